import { ApplicationFailure } from '@temporalio/common';
import { ToolErrorType } from '../../common/tools';
import { WorkspaceErrorType, type SnapshotRef } from '../../common/workspace';
import { SnapshotTooLargeError } from '../workspace/snapshot';
import { isTransientToolError, toolFaultMessage } from '../tool-faults';
import type { ToolRunInput } from './call';
import type { RunToolDeps } from './deps';
import type { ToolRun } from './execute';

/**
 * After a tool that can change files: the tree goes to the store before the result line, so a
 * result the workflow sees always has its snapshot (DESIGN.md rule 7). Only for a followed
 * workspace, a non-idempotent tool that ran (or may have: `unknown`), and a call the workflow
 * did not skip.
 * @throws ApplicationFailure `Workspace.SnapshotTooLarge` (non-retryable) over the snapshot limit;
 *   `Tool.Fault` (non-retryable) when the repository's own state breaks it (the tool did run);
 *   a transient error as it is (retried).
 */
export async function snapshotAfterTool(
  deps: RunToolDeps,
  input: ToolRunInput,
  run: ToolRun,
): Promise<SnapshotRef | undefined> {
  const ws = input.workspace;
  const { outcome } = run.out;
  if (
    !ws ||
    !deps.snapshot ||
    deps.isIdempotent(input.toolName) ||
    !(outcome === 'ok' || outcome === 'error' || outcome === 'unknown') ||
    input.skipReason !== undefined
  ) {
    return undefined;
  }
  try {
    return await deps.snapshot({
      sessionId: input.sessionId,
      toolUseId: input.toolUseId,
      root: ws.repoRoot,
      base: ws.baseCommit,
    });
  } catch (err) {
    if (err instanceof SnapshotTooLargeError) {
      throw ApplicationFailure.create({
        type: WorkspaceErrorType.SnapshotTooLarge,
        message: err.message,
        nonRetryable: true,
      });
    }
    if (isTransientToolError(err)) throw err;
    // The repository's own state (a broken .git/config): the same on every attempt. The tool
    // did run; the model is told so (the turn gives it this as the call's is_error result).
    throw ApplicationFailure.create({
      type: ToolErrorType.Fault,
      message: toolFaultMessage(
        new Error(
          `${input.toolName} ran, but the workspace could not be recorded after it: ${err instanceof Error ? err.message : String(err)}`,
        ),
      ),
      nonRetryable: true,
    });
  }
}
