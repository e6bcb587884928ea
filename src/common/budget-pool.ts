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

/** Schema version of {@link PoolSnapshot}. */
export const POOL_STATE_VERSION = 1;

/** What a pool carries into its next run (continue-as-new). JSON-safe. */
export interface PoolSnapshot {
  v: number;
  /** Limit of the pool (USD). */
  limitUsd: number;
  /** USD spent by all members so far, including members that left. */
  spentUsd: number;
  /** Current members: turn workflow id → USD it spent. */
  members: Record<string, number>;
  /** True once `spentUsd >= limitUsd` (until the limit is raised). */
  exhausted: boolean;
  /** Revision of the pool status, increased on every change members are told about. */
  rev: number;
  /** Workflow time (ms since the epoch) at which the pool last became exhausted, or null. */
  exhaustedAtMs: number | null;
  /** Reports received so far (spend signals), over all runs. */
  reports: number;
}
