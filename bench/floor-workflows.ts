/**
 * The floors of the step-overhead benchmark: the least a Temporal workflow can do per agent step,
 * two activities in sequence that do nothing (one in place of the model call, one in place of
 * the tool call). `floorLocalWorkflow` has the runner's shape since local activities: a normal
 * activity for the model call and a local one for a short tool (Read); `floorWorkflow` is the
 * shape before them, two normal activities. Bundled on their own with `bundleWorkflowCode`.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';

/** The no-op activities of the floor workflows. */
export interface FloorActivities {
  noopModel(step: number): Promise<void>;
  noopTool(step: number): Promise<void>;
}

const { noopModel, noopTool } = proxyActivities<FloorActivities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '30 seconds',
});

const local = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '30 seconds' });

/** Runs `steps` steps of two normal no-op activities each (the shape before local activities). */
export async function floorWorkflow(steps: number): Promise<number> {
  for (let i = 0; i < steps; i++) {
    await noopModel(i);
    await noopTool(i);
  }
  return steps;
}

/** Runs `steps` steps of a normal no-op activity and a local no-op activity each (the runner's shape). */
export async function floorLocalWorkflow(steps: number): Promise<number> {
  for (let i = 0; i < steps; i++) {
    await noopModel(i);
    await local.noopTool(i);
  }
  return steps;
}
