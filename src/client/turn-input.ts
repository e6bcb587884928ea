/**
 * The input a turn workflow was started with (its options, working directory, session), read
 * from the first event of its history: a client that follows a turn it did not start (`attach`)
 * can say what the turn runs with. No worker is needed, and the turn may have finished.
 */
import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { TurnInput } from '../common/turn';

/**
 * The input of the turn workflow `turnWorkflowId` (its latest run: the first run's input, or the
 * carry of a continue-as-new, with the same options), or undefined when it cannot be read.
 */
export async function turnInputOf(client: Client, turnWorkflowId: string): Promise<TurnInput | undefined> {
  try {
    const page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId: turnWorkflowId },
      maximumPageSize: 1,
    });
    const started = page.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
    if (!started?.input?.payloads) return undefined;
    return await decodeFromPayloadsAtIndex<TurnInput>(client.options.loadedDataConverter, 0, started.input.payloads);
  } catch {
    return undefined;
  }
}
