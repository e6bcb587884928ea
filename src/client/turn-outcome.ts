import type { Client } from '@temporalio/client';
import { resultOfFailure } from '../common/agent-result';
import type { TurnOutcome } from '../common/turn';

/**
 * The outcome of a turn workflow (following continue-as-new), whether it succeeded or ended in an
 * error result: an error result fails the workflow (so the Web UI lists it as failed) and carries
 * the outcome in the failure, which this reads back.
 * @throws WorkflowFailedError when the turn failed without an outcome (terminated, a store that
 *   could not be written, …)
 */
export async function turnOutcome(client: Client, turnWorkflowId: string): Promise<TurnOutcome> {
  const handle = client.workflow.getHandle<() => Promise<TurnOutcome>>(turnWorkflowId);
  try {
    return await handle.result();
  } catch (err) {
    const carried = resultOfFailure<TurnOutcome>(err);
    if (carried) return carried;
    throw err;
  }
}
