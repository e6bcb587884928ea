import type { PoolSnapshot } from '../engine/budget-pool';

/** Pool ids: letters, digits and `._:-`, 1–200 characters (they become part of a workflow id). */
export const POOL_ID_PATTERN = /^[A-Za-z0-9._:-]{1,200}$/;

/** Signals a budget pool handles per run before it continues as new, unless the server suggests it sooner. */
export const DEFAULT_POOL_SIGNALS_PER_RUN = 2000;

/** Input of `budgetPoolWorkflow`. JSON-safe. */
export interface BudgetPoolInput {
  /** Pool id; the workflow id is `agent-budget-pool-<poolId>`. */
  poolId: string;
  /** Limit (USD) of a new pool; ignored when `state` is carried. */
  limitUsd: number;
  /** Signals per run before continuing as new. @default 2000 ({@link DEFAULT_POOL_SIGNALS_PER_RUN}) */
  maxSignalsPerRun?: number;
  /** State carried by continue-as-new (absent on a fresh start). */
  state?: PoolSnapshot;
  /** `poolStatus` messages not yet sent when the previous run continued as new: member id → ack (or null). */
  pending?: Record<string, number | null>;
  /** Runs so far (absent on a fresh start). */
  runs?: number;
}
