import type { Client } from '@temporalio/client';
import { AgentRunnerError } from '../common/errors';

/**
 * How long a control command (`status`, `pool show`) waits for a worker to answer a query, in ms.
 * A live worker answers in milliseconds; a workflow whose task queue has no worker any more would
 * hold the command for the server's query timeout (about 30 s) and then fail with a bare gRPC error.
 */
export const CONTROL_QUERY_MS = 10_000;

/** Thrown when no worker answered a query within {@link CONTROL_QUERY_MS}. */
export class NoWorkerAnsweredError extends AgentRunnerError {
  override readonly name = 'NoWorkerAnsweredError';
  readonly kind = 'runtime';
  constructor(
    readonly workflowId: string,
    readonly waitedMs: number,
  ) {
    super(
      `no worker answered for ${workflowId} within ${waitedMs / 1000} s: no worker polls its task queue now ` +
        '(start one with `agent-runner worker`, or run `agent-runner -p --resume <session>` to let the background server pick it up)',
    );
  }
}

/**
 * Runs `query` (a workflow query of `workflowId`) with a deadline.
 * @throws NoWorkerAnsweredError when the deadline passes; the query's own errors otherwise
 */
export async function queryWithDeadline<T>(
  client: Client,
  workflowId: string,
  query: () => Promise<T>,
  ms: number = CONTROL_QUERY_MS,
): Promise<T> {
  const started = Date.now();
  try {
    return await client.connection.withDeadline(started + ms, query);
  } catch (err) {
    if (Date.now() - started >= ms - 50) throw new NoWorkerAnsweredError(workflowId, ms);
    throw err;
  }
}
