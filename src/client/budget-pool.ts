import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { BudgetPoolInput } from '../common/budget-pool';
import { budgetPoolWorkflowId, poolIdOfWorkflowId } from '../common/ids';
import { closePoolUpdate, poolStateQuery, setPoolLimitSignal } from '../workflows/messages';
import type { PoolStateView } from '../workflows/messages';
import { queryWithDeadline } from './query-deadline';

/** Thrown by the helpers below when no budget pool workflow with that id exists. */
export class BudgetPoolNotFoundError extends Error {
  override readonly name = 'BudgetPoolNotFoundError';
  constructor(readonly poolId: string) {
    super(
      `no budget pool "${poolId}" (workflow ${budgetPoolWorkflowId(poolId)}); ` +
        `create it with \`agent-runner pool create ${poolId} --max-budget-usd <usd>\``,
    );
  }
}

import { POOL_ID_PATTERN } from '../common/budget-pool';

export { POOL_ID_PATTERN } from '../common/budget-pool';

function checkPoolId(poolId: string): void {
  if (!POOL_ID_PATTERN.test(poolId)) {
    throw new RangeError(`invalid budget pool id "${poolId}": use 1-200 letters, digits, '.', '_', ':' or '-'`);
  }
}

function checkUsd(usd: number): void {
  if (typeof usd !== 'number' || !Number.isFinite(usd) || usd < 0) {
    throw new RangeError(`a budget pool limit must be a finite number of USD >= 0, got ${String(usd)}`);
  }
}

/** Options of {@link ensureBudgetPool}. */
export interface EnsureBudgetPoolOptions {
  /** Task queue of the workers that run the pool workflow. */
  taskQueue: string;
  /** Pool id (or its workflow id `agent-budget-pool-<id>`). */
  poolId: string;
  /** Limit of a new pool (USD). An existing pool keeps its limit (change it with {@link setBudgetPoolLimit}). */
  limitUsd: number;
  /** Signals per pool run before it continues as new. @default 2000 */
  maxSignalsPerRun?: number;
}

/** What {@link ensureBudgetPool} did. */
export interface EnsuredBudgetPool {
  poolId: string;
  /** The pool's workflow id: pass it as a turn's `budgetPoolId`. */
  workflowId: string;
  /**
   * False when the pool was already running (its limit is unchanged). Two callers racing to
   * create the same pool may both see true; they still share one pool.
   */
  created: boolean;
}

/**
 * Starts the budget pool `poolId` unless it is already running (start with the conflict policy
 * `USE_EXISTING`, so concurrent callers get the same pool). Needs no worker to return; the pool
 * runs once a worker polls `taskQueue`.
 * @throws RangeError for an invalid pool id or limit
 */
export async function ensureBudgetPool(client: Client, opts: EnsureBudgetPoolOptions): Promise<EnsuredBudgetPool> {
  const poolId = poolIdOfWorkflowId(opts.poolId);
  checkPoolId(poolId);
  checkUsd(opts.limitUsd);
  const workflowId = budgetPoolWorkflowId(poolId);
  const running = await isRunning(client, workflowId);
  if (running) return { poolId, workflowId, created: false };
  const input: BudgetPoolInput = {
    poolId,
    limitUsd: opts.limitUsd,
    ...(opts.maxSignalsPerRun !== undefined ? { maxSignalsPerRun: opts.maxSignalsPerRun } : {}),
  };
  await client.workflow.start('budgetPoolWorkflow', {
    workflowId,
    taskQueue: opts.taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return { poolId, workflowId, created: true };
}

async function isRunning(client: Client, workflowId: string): Promise<boolean> {
  try {
    const d = await client.workflow.getHandle(workflowId).describe();
    return d.status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** True when the budget pool `poolId` (or pool workflow id) is running. */
export async function budgetPoolExists(client: Client, poolId: string): Promise<boolean> {
  return isRunning(client, budgetPoolWorkflowId(poolIdOfWorkflowId(poolId)));
}

/**
 * State of a budget pool: limit and spend (USD), members, exhausted. Answered by a worker.
 * @throws BudgetPoolNotFoundError when the pool does not exist
 * @throws NoWorkerAnsweredError when no worker answered within `CONTROL_QUERY_MS`
 */
export async function budgetPoolState(client: Client, poolId: string): Promise<PoolStateView> {
  const id = poolIdOfWorkflowId(poolId);
  try {
    const wid = budgetPoolWorkflowId(id);
    return await queryWithDeadline(client, wid, () => client.workflow.getHandle(wid).query(poolStateQuery));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new BudgetPoolNotFoundError(id);
    throw err;
  }
}

/**
 * Sets a running pool's limit (USD). Raising it above the spend refills the pool (members are told
 * `exhausted: false` and new turns may spend again); lowering it below the spend exhausts it.
 * @throws BudgetPoolNotFoundError when no such pool is running; RangeError for a bad amount
 */
export async function setBudgetPoolLimit(client: Client, poolId: string, usd: number): Promise<void> {
  checkUsd(usd);
  const id = poolIdOfWorkflowId(poolId);
  if (!(await isRunning(client, budgetPoolWorkflowId(id)))) throw new BudgetPoolNotFoundError(id);
  try {
    await client.workflow.getHandle(budgetPoolWorkflowId(id)).signal(setPoolLimitSignal, { limitUsd: usd });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new BudgetPoolNotFoundError(id);
    throw err;
  }
}

/** One budget pool as `agent-runner pool list` shows it. */
export interface BudgetPoolRow {
  poolId: string;
  /**
   * `open`, `exhausted` (running), `unknown` (running, but no worker answered within
   * {@link POOL_QUERY_MS}), or the closed workflow's status in lower case (`completed`, `terminated`, …).
   */
  status: string;
  /** Limit, spend (USD) and members: from the running pool, or the closed pool's final state; null when unknown. */
  limitUsd: number | null;
  spentUsd: number | null;
  members: number | null;
  startTime: Date;
  closeTime: Date | null;
}

/**
 * How long `pool list` waits for a running pool to answer its state query, in ms: a pool whose
 * task queue has no worker any more would hold the listing for the server's query timeout (about
 * 30 s) each. Such a pool is listed with status `unknown` (no worker answered).
 */
export const POOL_QUERY_MS = 5000;

/** Pools asked at the same time by {@link listBudgetPools}. */
const POOL_QUERY_CONCURRENCY = 16;

/**
 * Budget pools (running first, then closed, most recent first within each), with their state:
 * queried from running pools (a worker answers within {@link POOL_QUERY_MS}, else `unknown`), read
 * from the result of closed ones; several at a time.
 */
export async function listBudgetPools(client: Client, limit = 100): Promise<BudgetPoolRow[]> {
  const found: WorkflowExecutionInfo[] = [];
  const query = `WorkflowType = 'budgetPoolWorkflow' AND ExecutionStatus != 'ContinuedAsNew'`;
  for await (const wf of client.workflow.list({ query, pageSize: Math.min(limit, 1000) })) {
    found.push(wf);
    if (found.length >= limit) break;
  }
  const stateOf = async (wf: WorkflowExecutionInfo): Promise<{ state: PoolStateView | null; answered: boolean }> => {
    try {
      if (wf.status.name === 'RUNNING') {
        const state = await client.connection.withDeadline(Date.now() + POOL_QUERY_MS, () =>
          client.workflow.getHandle(wf.workflowId).query(poolStateQuery),
        );
        return { state, answered: true };
      }
      if (wf.status.name !== 'COMPLETED') return { state: null, answered: true };
      const result = (await client.workflow.getHandle(wf.workflowId, wf.runId).result()) as PoolStateView | undefined;
      return { state: result ?? null, answered: true };
    } catch {
      return { state: null, answered: false };
    }
  };
  const states = new Array<{ state: PoolStateView | null; answered: boolean }>(found.length);
  let next = 0;
  const askNext = async (): Promise<void> => {
    for (let i = next++; i < found.length; i = next++) states[i] = await stateOf(found[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(POOL_QUERY_CONCURRENCY, found.length) }, askNext));
  const rows = found.map((wf, i): BudgetPoolRow => {
    const { state, answered } = states[i]!;
    const running = wf.status.name === 'RUNNING';
    return {
      poolId: poolIdOfWorkflowId(wf.workflowId),
      status: running
        ? !answered
          ? 'unknown'
          : state?.exhausted
            ? 'exhausted'
            : 'open'
        : wf.status.name.toLowerCase(),
      limitUsd: state?.limitUsd ?? null,
      spentUsd: state?.spentUsd ?? null,
      members: state?.members ?? null,
      startTime: wf.startTime,
      closeTime: wf.closeTime ?? null,
    };
  });
  return rows.sort((a, b) => Number(b.closeTime === null) - Number(a.closeTime === null));
}

/** Thrown by {@link closeBudgetPool} when turns are still in the pool and `force` is not set. */
export class BudgetPoolBusyError extends Error {
  override readonly name = 'BudgetPoolBusyError';
}

/**
 * Closes a running budget pool: its workflow completes with its final state, which is returned.
 * @throws BudgetPoolNotFoundError when no such pool is running
 * @throws BudgetPoolBusyError when turns are in the pool and `force` is not set
 */
export async function closeBudgetPool(
  client: Client,
  poolId: string,
  opts: { force?: boolean } = {},
): Promise<PoolStateView> {
  const id = poolIdOfWorkflowId(poolId);
  const handle = client.workflow.getHandle(budgetPoolWorkflowId(id));
  if (!(await isRunning(client, budgetPoolWorkflowId(id)))) throw new BudgetPoolNotFoundError(id);
  try {
    const state = await handle.executeUpdate(closePoolUpdate, { args: [{ force: opts.force === true }] });
    await handle.result().catch(() => undefined);
    return state;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new BudgetPoolNotFoundError(id);
    if (err instanceof WorkflowUpdateFailedError) {
      throw new BudgetPoolBusyError(
        `budget pool "${id}": ${err.cause instanceof Error ? err.cause.message : err.message}`,
      );
    }
    throw err;
  }
}
