import { isGrpcCancelledError } from '@temporalio/client';
import type { BatchBudget } from '../../client/batch';
import { budgetPoolState, ensureBudgetPool, setBudgetPoolLimit } from '../../client/budget-pool';
import type { ClientRuntime as Runtime } from '../../connection/connect';
import { retry } from '../../connection/retry';

/** Pool id of a batch's budget pool. */
export function batchPoolId(batchId: string): string {
  return `batch-${batchId}`;
}

/**
 * The budget pool of a batch (`agent-budget-pool-batch-<batchId>`), started if missing. A re-run
 * of the batch finds the same pool with its spend so far; a different `--max-budget-usd` on the
 * re-run changes the pool's limit (raising it above the spend refills it).
 */
export async function createBatchBudget(rt: Runtime, batchId: string, limitUsd: number): Promise<BatchBudget> {
  const pool = await ensureBudgetPool(rt.client, { taskQueue: rt.taskQueue, poolId: batchPoolId(batchId), limitUsd });
  if (!pool.created) {
    const state = await withRetry(() => budgetPoolState(rt.client, pool.poolId));
    if (Math.abs(state.limitUsd - limitUsd) > 1e-9) await setBudgetPoolLimit(rt.client, pool.poolId, limitUsd);
  }
  return {
    poolWorkflowId: pool.workflowId,
    limitUsd,
    async exhausted() {
      const s = await withRetry(() => budgetPoolState(rt.client, pool.poolId));
      return s.exhausted;
    },
    async spent() {
      const s = await withRetry(() => budgetPoolState(rt.client, pool.poolId));
      return { spentUsd: s.spentUsd, limitUsd: s.limitUsd };
    },
  };
}

/** A query right after the pool started may find no worker ready yet: retry for up to ~30 s. */
function withRetry<T>(fn: () => Promise<T>): Promise<T> {
  // A cancelled call (the batch was interrupted) is not retried.
  return retry(fn, {
    attempts: 21,
    delayMs: 100,
    maxDelayMs: 2000,
    retryIf: (err) => !isGrpcCancelledError(err) && !isGrpcCancelledError((err as { cause?: unknown }).cause),
  });
}
