import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { POOL_ID_PATTERN } from '../common/budget-pool';
import type { RateLimits, RatePoolInput, RatePoolView } from '../common/rate-pool';
import { ratePoolWorkflowId } from '../common/rate-pool';
import { closeRatePoolUpdate, ratePoolStateQuery, setRateLimitsSignal } from '../workflows/rate-pool-messages';
import { queryWithDeadline } from './query-deadline';

const PREFIX = ratePoolWorkflowId('');

/** Pool id of a rate pool workflow id (the id itself when it lacks the prefix). */
export function ratePoolIdOf(idOrWorkflowId: string): string {
  return idOrWorkflowId.startsWith(PREFIX) ? idOrWorkflowId.slice(PREFIX.length) : idOrWorkflowId;
}

/** Thrown by the helpers below when no rate pool workflow with that id exists. */
export class RatePoolNotFoundError extends Error {
  override readonly name = 'RatePoolNotFoundError';
  constructor(readonly poolId: string) {
    super(`no rate pool "${poolId}" (workflow ${ratePoolWorkflowId(poolId)})`);
  }
}

/**
 * Checks limits per minute: each absent, or a finite number > 0.
 * @throws RangeError naming the bad limit
 */
export function checkRateLimits(limits: RateLimits): void {
  for (const [k, v] of Object.entries(limits)) {
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)) {
      throw new RangeError(`rate pool ${k} must be a number > 0, got ${String(v)}`);
    }
  }
}

/** Options of {@link ensureRatePool}. */
export interface EnsureRatePoolOptions {
  /** Task queue of the workers that run the pool workflow. */
  taskQueue: string;
  /** Pool id (or its workflow id `agent-rate-pool-<id>`). */
  poolId: string;
  /** Limits of a new pool, per minute; absent ones are learned from the API's headers. */
  limits?: RateLimits;
  /** Signals per pool run before it continues as new. @default 2000 */
  maxSignalsPerRun?: number;
  /** Length of the limits' "minute", ms (tests and benches against the fake model). @default 60000 */
  periodMs?: number;
}

/**
 * Starts rate pool `poolId` unless it is running (conflict policy `USE_EXISTING`: concurrent
 * callers share one pool; an existing pool keeps its limits). Returns its workflow id: pass it as
 * a turn's `ratePoolId`. Needs no worker to return.
 * @throws RangeError for an invalid pool id or limit
 */
export async function ensureRatePool(client: Client, opts: EnsureRatePoolOptions): Promise<string> {
  const poolId = ratePoolIdOf(opts.poolId);
  if (!POOL_ID_PATTERN.test(poolId)) {
    throw new RangeError(`invalid rate pool id "${poolId}": use 1-200 letters, digits, '.', '_', ':' or '-'`);
  }
  checkRateLimits(opts.limits ?? {});
  const workflowId = ratePoolWorkflowId(poolId);
  const input: RatePoolInput = {
    poolId,
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.maxSignalsPerRun !== undefined ? { maxSignalsPerRun: opts.maxSignalsPerRun } : {}),
    ...(opts.periodMs !== undefined ? { periodMs: opts.periodMs } : {}),
  };
  await client.workflow.start('ratePoolWorkflow', {
    workflowId,
    taskQueue: opts.taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return workflowId;
}

/**
 * State of a rate pool: effective limits, queue, grants and 429s. Answered by a worker.
 * @throws RatePoolNotFoundError when the pool does not exist
 * @throws NoWorkerAnsweredError when no worker answered in time
 */
export async function ratePoolState(client: Client, poolId: string): Promise<RatePoolView> {
  const id = ratePoolIdOf(poolId);
  const wid = ratePoolWorkflowId(id);
  try {
    return await queryWithDeadline(client, wid, () => client.workflow.getHandle(wid).query(ratePoolStateQuery));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new RatePoolNotFoundError(id);
    throw err;
  }
}

/**
 * Sets a running pool's configured limits (per minute; an absent one is learned from headers again).
 * @throws RatePoolNotFoundError when the pool does not exist; RangeError for a bad limit
 */
export async function setRatePoolLimits(client: Client, poolId: string, limits: RateLimits): Promise<void> {
  checkRateLimits(limits);
  const id = ratePoolIdOf(poolId);
  try {
    await client.workflow.getHandle(ratePoolWorkflowId(id)).signal(setRateLimitsSignal, limits);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new RatePoolNotFoundError(id);
    throw err;
  }
}

/**
 * Closes a rate pool: its workflow completes with its final state; members still waiting go on
 * without it once their lease wait times out.
 * @throws RatePoolNotFoundError when the pool does not exist
 */
export async function closeRatePool(client: Client, poolId: string): Promise<RatePoolView> {
  const id = ratePoolIdOf(poolId);
  try {
    return await client.workflow.getHandle(ratePoolWorkflowId(id)).executeUpdate(closeRatePoolUpdate);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new RatePoolNotFoundError(id);
    throw err;
  }
}
