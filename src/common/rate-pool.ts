/**
 * Wire types of rate pools (`ratePoolWorkflow`): requests and tokens per minute shared by every
 * turn that names the pool, on any host and in any batch. JSON-safe; no heavy imports.
 */

/** Signals a rate pool handles per run before it continues as new, unless the server suggests it sooner. */
export const DEFAULT_RATE_POOL_SIGNALS_PER_RUN = 2000;

/** Workflow id of rate pool `poolId`. */
export function ratePoolWorkflowId(poolId: string): string {
  return `agent-rate-pool-${poolId}`;
}

/** Limits per minute; an absent limit is learned from the API's `anthropic-ratelimit-*` headers. */
export interface RateLimits {
  /** Requests per minute. */
  requestsPerMinute?: number;
  /** Input tokens per minute. */
  inputTokensPerMinute?: number;
  /** Output tokens per minute. */
  outputTokensPerMinute?: number;
}

/** One limit as a response's headers state it: `anthropic-ratelimit-<name>-limit/-remaining/-reset`. */
export interface RateHeaderLimit {
  limit: number;
  remaining: number;
  /** Epoch ms at which the bucket is full again (`-reset`, RFC 3339), when given. */
  resetAtMs?: number;
}

/** The rate-limit headers of one API response, parsed (a few numbers: they go into history). */
export interface RateHeaders {
  requests?: RateHeaderLimit;
  inputTokens?: RateHeaderLimit;
  outputTokens?: RateHeaderLimit;
  /** A 429's `retry-after` (ms). */
  retryAfterMs?: number;
}

/** What a member tells the pool of its last leased call (with its next lease request, or as it leaves). */
export interface LeaseReport {
  /** Sequence number of the lease the call used. */
  seq: number;
  /** Input tokens the call was billed (uncached + cache writes). */
  inputTokens: number;
  /** Output tokens the call was billed. */
  outputTokens: number;
  /** The response's rate-limit headers, when it had any. */
  rate?: RateHeaders;
  /** True when the API answered 429: the pool shrinks and pauses (`rate.retryAfterMs`). */
  throttled?: boolean;
}

/** Signal `requestLease`: a member asks for capacity for one model call. */
export interface LeaseRequest {
  /** The member's workflow id (the turn); the grant is signalled to it. */
  memberWorkflowId: string;
  /** Lease number of this member, increasing; the pool grants each once. */
  seq: number;
  /** Temporal priority key: 1 (first) … 5 (last). @default 3 */
  priority?: number;
  /** Fairness key (e.g. a batch id): keys of one priority share the capacity evenly. @default the member id */
  fairnessKey?: string;
  /** Input tokens the call is expected to take (the pool corrects by the report). */
  inputTokens: number;
  /** Output tokens the call is expected to take. */
  outputTokens: number;
  /** The member's previous call. */
  report?: LeaseReport;
}

/** Signal `leaveRatePool`: the member's turn ended (its last report, if any). */
export interface LeaveRatePool {
  memberWorkflowId: string;
  report?: LeaseReport;
}

/** Signal `rateLease`: the pool granted lease `seq`. */
export interface LeaseGrant {
  seq: number;
  /** Ms the request waited in the pool's queue. */
  waitedMs: number;
}

/** A waiting lease in the pool's state. */
export interface QueuedLease {
  member: string;
  seq: number;
  priority: number;
  fairnessKey: string;
  inputTokens: number;
  outputTokens: number;
  atMs: number;
}

/** One bucket of a pool: level (may be negative: debt from reports over the estimate) at `atMs`. */
export interface RateBucketState {
  /** Per minute; null = unknown (not configured, not yet learned). */
  limit: number | null;
  level: number;
  atMs: number;
}

/** Schema version of {@link RatePoolSnapshot}. */
export const RATE_POOL_STATE_VERSION = 1;

/** What a rate pool carries into its next run (continue-as-new). JSON-safe. */
export interface RatePoolSnapshot {
  v: number;
  requests: RateBucketState;
  inputTokens: RateBucketState;
  outputTokens: RateBucketState;
  /** Configured limits (a ceiling for what headers say). */
  configured: RateLimits;
  /** Length of the limits' "minute", ms (tests and benches against the fake model only). @default 60000 */
  periodMs?: number;
  /** Share of the limit granted, (0, 1]: a 429 shrinks it, clean calls grow it back. */
  factor: number;
  /** No grants before this workflow time (a 429's `retry-after`). */
  pausedUntilMs: number;
  /** Leases waiting, in arrival order. */
  queue: QueuedLease[];
  /** Granted leases whose report has not come, member → expected tokens (seq, input, output). */
  outstanding: Record<string, [seq: number, input: number, output: number, atMs: number]>;
  /** Leases granted per fairness key (only keys with waiters are carried). */
  served: Record<string, number>;
  /** Totals over all runs. */
  granted: number;
  throttled: number;
  reports: number;
}

/** Input of `ratePoolWorkflow`. JSON-safe. */
export interface RatePoolInput {
  /** Pool id; the workflow id is `agent-rate-pool-<poolId>` ({@link ratePoolWorkflowId}). */
  poolId: string;
  /** Limits of a new pool (absent ones are learned from headers); ignored when `state` is carried. */
  limits?: RateLimits;
  /**
   * Length of the limits' "minute", ms: for tests and benches against a fake model with the same
   * `periodMs`, so that a run of seconds sees many refills. @default 60000
   */
  periodMs?: number;
  /** Signals per run before continuing as new. @default {@link DEFAULT_RATE_POOL_SIGNALS_PER_RUN} */
  maxSignalsPerRun?: number;
  /** State carried by continue-as-new. */
  state?: RatePoolSnapshot;
  /** Grants not yet signalled when the previous run continued as new. */
  pending?: Array<[member: string, grant: LeaseGrant]>;
  /** Runs so far. */
  runs?: number;
}

/** The `ratePoolState` query's answer (and the workflow's result when closed). */
export interface RatePoolView {
  poolId: string;
  /** Effective limits now (configured or learned, times the factor); null = unknown. */
  requestsPerMinute: number | null;
  inputTokensPerMinute: number | null;
  outputTokensPerMinute: number | null;
  factor: number;
  waiting: number;
  outstanding: number;
  granted: number;
  throttled: number;
  pausedUntil: string | null;
  runs: number;
}
