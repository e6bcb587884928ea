import { ApplicationFailure } from '@temporalio/common';
import type { RunToolInput, RunToolSummary } from '../common/tools';
import { WorkspaceErrorType } from '../common/workspace';
import { planToolCall } from '../engine/tool-call-plan';
import { classifyToolError } from './tool-faults';
import { storageFailure } from './store-errors';
import { factsOf, readToolCall } from './tool-run/call';
import type { ToolRunInput } from './tool-run/call';
import type { RunToolDeps } from './tool-run/deps';
import { executeToolCall } from './tool-run/execute';
import { recordToolResult, storedResultOf, summaryOf } from './tool-run/record';
import { snapshotAfterTool } from './tool-run/snapshot';

export type { RunToolDeps } from './tool-run/deps';
export { UNKNOWN_OUTCOME_TEXT, invalidJsonOutput } from './tool-run/outputs';

/**
 * Creates the `runTool` activity: finds the tool_use in the stored assistant line, applies the
 * workflow's permission decision, runs the tool (heartbeating; cancelled with the activity) and
 * writes its tool_result line with the uuid the workflow chose.
 *
 * Crash safety: a result already stored (by uuid or by tool_use id) is returned as is. Before a
 * non-idempotent tool (Bash, Write, Edit) runs, a run marker is written; an attempt that finds
 * the marker does not re-run the tool and reports an unknown outcome to the model instead. The
 * tool_use is read from the stored assistant line, and the result line is first-writer-wins: an
 * attempt that loses the race (a superseded attempt still alive) returns the stored result.
 */
export function createRunTool(deps: RunToolDeps): (input: RunToolInput) => Promise<RunToolSummary> {
  const run = runToolOnce(deps);
  // An error retrying cannot fix leaves at once as a non-retryable `Tool.Fault` (the turn answers
  // the call with an is_error result); transient errors and the store's own failures as they are.
  return async function runTool(given: RunToolInput): Promise<RunToolSummary> {
    try {
      return await run(given);
    } catch (err) {
      throw storageFailure(err) ? err : classifyToolError(err);
    }
  };
}

/**
 * One attempt of a call, step by step: a result already stored is returned as is; otherwise the
 * call is read ({@link readToolCall}), planned ({@link planToolCall}: pure), executed, the
 * workspace snapshotted after a tool that can change files, and the result recorded.
 */
function runToolOnce(deps: RunToolDeps): (input: RunToolInput) => Promise<RunToolSummary> {
  return async function runTool(given: RunToolInput): Promise<RunToolSummary> {
    // An absent parent is the assistant line (see RunToolInput.parentUuid).
    const input: ToolRunInput = { ...given, parentUuid: given.parentUuid ?? given.assistantUuid };
    checkHost(deps, input);
    const existing = await storedResultOf(deps.store, input);
    if (existing) return summaryOf(existing, input, true);
    const call = await readToolCall(deps, input);
    const plan = planToolCall(factsOf(deps, input, call));
    if (plan.kind === 'ask') {
      // Someone can decide: nothing is written; the workflow waits for the answer and runs it again.
      return {
        toolUseId: input.toolUseId,
        resultUuid: input.resultUuid,
        isError: false,
        outcome: 'ask',
        askReason: plan.reason,
        resultBytes: 0,
        replayed: false,
      };
    }
    const run = await executeToolCall(deps, input, call, plan);
    const snapshot = await snapshotAfterTool(deps, input, run);
    return recordToolResult(deps, input, call, run, snapshot);
  };
}

/**
 * A local activity on a worker of another host than the workspace's: the workflow sends the
 * call to the host (`Workspace.NotOnHost`, non-retryable).
 */
function checkHost(deps: RunToolDeps, input: ToolRunInput): void {
  if (input.expectHostQueue !== undefined && input.expectHostQueue !== deps.hostQueue) {
    throw ApplicationFailure.create({
      type: WorkspaceErrorType.NotOnHost,
      message: `the workspace is on ${input.expectHostQueue}, not on this worker (${deps.hostQueue ?? 'no host queue'})`,
      nonRetryable: true,
    });
  }
}
