import { setTimeout as sleep } from 'node:timers/promises';
import type { BatchBudget } from '../../client/batch';
import type { Runtime } from '../../client/runtime';
import type { BudgetPoolInput } from '../../common/budget-pool';
import { budgetPoolWorkflowId } from '../../workflows/ids';
import { poolStateQuery, setPoolLimitSignal } from '../../workflows/messages';

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
  const poolId = batchPoolId(batchId);
  const workflowId = budgetPoolWorkflowId(poolId);
  const input: BudgetPoolInput = { poolId, limitUsd };
  const handle = await rt.client.workflow.start('budgetPoolWorkflow', {
    workflowId,
    taskQueue: rt.taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  const state = await queryWithRetry(() => handle.query(poolStateQuery));
  if (Math.abs(state.limitUsd - limitUsd) > 1e-9) await handle.signal(setPoolLimitSignal, { limitUsd });
  return {
    poolWorkflowId: workflowId,
    limitUsd,
    async exhausted() {
      const s = await queryWithRetry(() => handle.query(poolStateQuery));
      return s.exhausted;
    },
  };
}

/** A query right after the start may find no worker ready yet: retry for up to ~30 s. */
async function queryWithRetry<T>(fn: () => Promise<T>): Promise<T> {
  let delay = 100;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 20) throw err;
      await sleep(delay);
      delay = Math.min(delay * 2, 2000);
    }
  }
}
