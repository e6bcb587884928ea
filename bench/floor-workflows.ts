/**
 * The floor of the step-overhead benchmark: the least a Temporal workflow can do per agent step,
 * two activities in sequence that do nothing (one in place of the model call, one in place of
 * the tool call). Bundled on its own with `bundleWorkflowCode`.
 */
import { proxyActivities } from '@temporalio/workflow';

/** The no-op activities of {@link floorWorkflow}. */
export interface FloorActivities {
  noopModel(step: number): Promise<void>;
  noopTool(step: number): Promise<void>;
}

const { noopModel, noopTool } = proxyActivities<FloorActivities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '30 seconds',
});

/** Runs `steps` steps of two no-op activities each. */
export async function floorWorkflow(steps: number): Promise<number> {
  for (let i = 0; i < steps; i++) {
    await noopModel(i);
    await noopTool(i);
  }
  return steps;
}
