/**
 * Bookkeeping of a shared rate pool (`ratePoolWorkflow`): requests, input tokens and output tokens
 * per minute for many member turns. Pure and deterministic (workflow time is passed in).
 *
 * Three token buckets, refilled continuously up to the limit as the API's are. A lease takes one
 * request and the tokens its member expects; the member's report of the call (with its next
 * request, or as it leaves) corrects the token buckets by what the call was billed, and the
 * response's `anthropic-ratelimit-*` headers teach the pool the limits (the lower of configured and
 * stated) and lower a level the API says is lower (other users of the same key). A 429 pauses the
 * pool for its `retry-after` and shrinks the share of the limit granted (`factor`), which clean
 * calls grow back. A tenth of each bucket stays in reserve (see {@link RESERVE}).
 *
 * Order: the lowest priority number first (Temporal's priority keys, 1–5, default 3); within a
 * priority the fairness key served least so far, then arrival. A lease waits for the one before
 * it (no smaller lease overtakes a large one, so none starves).
 */
import type {
  LeaseGrant,
  LeaseReport,
  LeaseRequest,
  QueuedLease,
  RateBucketState,
  RateHeaderLimit,
  RateLimits,
  RatePoolSnapshot,
} from '../common/rate-pool';
import { RATE_POOL_STATE_VERSION } from '../common/rate-pool';

const MINUTE_MS = 60_000;
/** Priority of a lease that names none (Temporal's default priority key). */
export const DEFAULT_RATE_PRIORITY = 3;
/** Smallest share of the limit a pool shrinks to after 429s. */
const MIN_FACTOR = 0.25;
/** Share kept of the granted rate on each 429. */
const SHRINK = 0.85;
/** Share of the limit a clean call gives back. */
const GROW = 0.02;
/**
 * Share of each bucket kept in reserve: a lease is granted only when the bucket holds its need
 * plus this. The rate granted is the same (the refill rate); the API's bucket then sits this far
 * above empty, which absorbs grants that reach it unevenly (a workflow task or two of latency).
 */
const RESERVE = 0.1;
/** Pause after a 429 without `retry-after` (ms). */
const DEFAULT_PAUSE_MS = 1000;
/** A granted lease not reported within this time no longer holds the probe slot (ms). */
const OUTSTANDING_EXPIRY_MS = 120_000;

type BucketName = 'requests' | 'inputTokens' | 'outputTokens';
const BUCKETS: readonly BucketName[] = ['requests', 'inputTokens', 'outputTokens'];
const CONFIG_KEY: Record<BucketName, keyof RateLimits> = {
  requests: 'requestsPerMinute',
  inputTokens: 'inputTokensPerMinute',
  outputTokens: 'outputTokensPerMinute',
};

/** A new pool's snapshot: configured limits, full buckets. */
export function newRatePoolSnapshot(limits: RateLimits, nowMs: number, periodMs?: number): RatePoolSnapshot {
  const bucket = (n: number | undefined): RateBucketState => {
    const limit = n !== undefined && Number.isFinite(n) && n > 0 ? n : null;
    return { limit, level: limit ?? 0, atMs: nowMs };
  };
  return {
    v: RATE_POOL_STATE_VERSION,
    requests: bucket(limits.requestsPerMinute),
    inputTokens: bucket(limits.inputTokensPerMinute),
    outputTokens: bucket(limits.outputTokensPerMinute),
    configured: { ...limits },
    ...(periodMs !== undefined && periodMs > 0 && periodMs !== MINUTE_MS ? { periodMs } : {}),
    factor: 1,
    pausedUntilMs: 0,
    queue: [],
    outstanding: {},
    served: {},
    granted: 0,
    throttled: 0,
    reports: 0,
  };
}

/**
 * The state of one rate pool. Methods mutate it in place; {@link grants} returns the leases to
 * signal now and {@link nextGrantInMs} when to look again.
 */
export class RateLedger {
  private readonly s: RatePoolSnapshot;

  constructor(snapshot: RatePoolSnapshot) {
    this.s = {
      ...snapshot,
      queue: [...snapshot.queue],
      outstanding: { ...snapshot.outstanding },
      served: { ...snapshot.served },
    };
  }

  /** A copy-free view for continue-as-new and queries (do not mutate). */
  snapshot(): RatePoolSnapshot {
    return this.s;
  }

  /** The limits' period, ms (a minute). */
  private get period(): number {
    return this.s.periodMs ?? MINUTE_MS;
  }

  /** Effective limit of a bucket (per minute), or null while unknown. */
  effectiveLimit(name: BucketName): number | null {
    const l = this.s[name].limit;
    return l === null ? null : l * this.s.factor;
  }

  /** Leases waiting. */
  get waiting(): number {
    return this.s.queue.length;
  }

  /** Granted leases not yet reported. */
  get outstanding(): number {
    return Object.keys(this.s.outstanding).length;
  }

  /** `requestLease`: counts the report, queues the lease (a member has one lease waiting at most). */
  request(r: LeaseRequest, nowMs: number): void {
    if (r.report) this.report(r.memberWorkflowId, r.report, nowMs);
    const q = this.s.queue;
    const i = q.findIndex((l) => l.member === r.memberWorkflowId);
    if (i >= 0) {
      if ((q[i] as QueuedLease).seq >= r.seq) return; // a repeated signal
      q.splice(i, 1);
    }
    const out = this.s.outstanding[r.memberWorkflowId];
    if (out && out[0] >= r.seq) return; // already granted
    q.push({
      member: r.memberWorkflowId,
      seq: r.seq,
      priority: clampPriority(r.priority),
      fairnessKey: r.fairnessKey ?? r.memberWorkflowId,
      inputTokens: nonNegative(r.inputTokens),
      outputTokens: nonNegative(r.outputTokens),
      atMs: nowMs,
    });
  }

  /** `leaveRatePool`: counts the report, drops the member's waiting and outstanding lease. */
  leave(member: string, report: LeaseReport | undefined, nowMs: number): void {
    if (report) this.report(member, report, nowMs);
    this.s.queue = this.s.queue.filter((l) => l.member !== member);
    delete this.s.outstanding[member];
  }

  /**
   * `setRateLimits`: new configured limits (per minute). A limit given replaces the bucket's; one
   * absent keeps what the headers taught (and is no longer a ceiling).
   */
  setLimits(limits: RateLimits, nowMs: number): void {
    const fresh = newRatePoolSnapshot(limits, nowMs);
    this.s.configured = fresh.configured;
    for (const b of BUCKETS) {
      const st = this.s[b];
      st.limit = fresh[b].limit ?? st.limit;
      st.level = Math.min(this.level(b, nowMs), st.limit ?? 0);
    }
  }

  /** A member that cannot be signalled (its turn is gone): forgotten. */
  forget(member: string): void {
    this.leave(member, undefined, 0);
  }

  /** The report of a leased call: token corrections, headers learned, a 429 counted. */
  report(member: string, rep: LeaseReport, nowMs: number): void {
    this.s.reports++;
    const out = this.s.outstanding[member];
    if (out && out[0] === rep.seq) {
      delete this.s.outstanding[member];
      // Billed beyond (or below) what the lease took: the buckets pay (or get back) the difference.
      this.adjust('inputTokens', out[1] - nonNegative(rep.inputTokens), nowMs);
      this.adjust('outputTokens', out[2] - nonNegative(rep.outputTokens), nowMs);
    }
    const rate = rep.rate;
    if (rate?.requests) this.learn('requests', rate.requests, nowMs);
    if (rate?.inputTokens) this.learn('inputTokens', rate.inputTokens, nowMs);
    if (rate?.outputTokens) this.learn('outputTokens', rate.outputTokens, nowMs);
    if (rep.throttled) {
      this.s.throttled++;
      this.s.factor = Math.max(MIN_FACTOR, this.s.factor * SHRINK);
      const pause = rate?.retryAfterMs !== undefined && rate.retryAfterMs > 0 ? rate.retryAfterMs : DEFAULT_PAUSE_MS;
      this.s.pausedUntilMs = Math.max(this.s.pausedUntilMs, nowMs + pause);
      for (const b of BUCKETS) this.s[b].level = Math.min(this.level(b, nowMs), 0);
    } else {
      this.s.factor = Math.min(1, this.s.factor + GROW);
    }
  }

  /** Grants every lease that fits now, in order; the caller signals them. */
  grants(nowMs: number): Array<[member: string, grant: LeaseGrant]> {
    const out: Array<[string, LeaseGrant]> = [];
    for (;;) {
      const next = this.best();
      if (next === undefined || this.waitMs(next, nowMs) > 0) return out;
      this.s.queue.splice(this.s.queue.indexOf(next), 1);
      this.take('requests', 1, nowMs);
      this.take('inputTokens', next.inputTokens, nowMs);
      this.take('outputTokens', next.outputTokens, nowMs);
      this.s.outstanding[next.member] = [next.seq, next.inputTokens, next.outputTokens, nowMs];
      this.s.served[next.fairnessKey] = (this.s.served[next.fairnessKey] ?? 0) + 1;
      this.s.granted++;
      out.push([next.member, { seq: next.seq, waitedMs: nowMs - next.atMs }]);
    }
  }

  /**
   * Ms until the next lease can be granted (0: now), or null when none waits or it waits for a
   * report (the probe before any limit is known).
   */
  nextGrantInMs(nowMs: number): number | null {
    const next = this.best();
    if (next === undefined) return null;
    const ms = this.waitMs(next, nowMs);
    return Number.isFinite(ms) ? ms : null;
  }

  /** Drops fairness counts of keys with no waiter (kept small across continue-as-new). */
  compact(): void {
    const keys = new Set(this.s.queue.map((l) => l.fairnessKey));
    const served: Record<string, number> = {};
    const floor = Math.min(...[...keys].map((k) => this.s.served[k] ?? 0));
    for (const k of keys) served[k] = (this.s.served[k] ?? 0) - (Number.isFinite(floor) ? floor : 0);
    this.s.served = served;
  }

  /** The waiting lease to grant next. */
  private best(): QueuedLease | undefined {
    let best: QueuedLease | undefined;
    for (const l of this.s.queue) {
      if (best === undefined) {
        best = l;
        continue;
      }
      if (l.priority !== best.priority) {
        if (l.priority < best.priority) best = l;
        continue;
      }
      const a = this.s.served[l.fairnessKey] ?? 0;
      const b = this.s.served[best.fairnessKey] ?? 0;
      if (a < b) best = l; // arrival order among equals: the queue is in arrival order
    }
    return best;
  }

  /** Ms until `l` fits (Infinity: it waits for a report). */
  private waitMs(l: QueuedLease, nowMs: number): number {
    let ms = Math.max(0, this.s.pausedUntilMs - nowMs);
    if (this.s.requests.limit === null) {
      // No limit known: one call at a time until a response's headers say.
      const live = Object.values(this.s.outstanding).some((o) => nowMs - o[3] < OUTSTANDING_EXPIRY_MS);
      if (live) return Infinity;
    }
    const need: Record<BucketName, number> = { requests: 1, inputTokens: l.inputTokens, outputTokens: l.outputTokens };
    for (const b of BUCKETS) {
      const cap = this.effectiveLimit(b);
      if (cap === null) continue;
      const missing = Math.min(need[b] + Math.max(1, cap * RESERVE), cap) - this.level(b, nowMs);
      if (missing > 0) ms = Math.max(ms, Math.ceil((missing * this.period) / cap));
    }
    return ms;
  }

  /** The bucket's level at `nowMs` (refilled, at most the effective limit). */
  private level(b: BucketName, nowMs: number): number {
    const st = this.s[b];
    const cap = this.effectiveLimit(b);
    if (cap === null) return 0;
    const dt = Math.max(0, nowMs - st.atMs);
    st.level = Math.min(cap, st.level + (dt * cap) / this.period);
    st.atMs = Math.max(st.atMs, nowMs);
    return st.level;
  }

  private take(b: BucketName, n: number, nowMs: number): void {
    if (this.s[b].limit === null) return;
    this.s[b].level = this.level(b, nowMs) - n;
  }

  private adjust(b: BucketName, delta: number, nowMs: number): void {
    if (this.s[b].limit === null || delta === 0) return;
    this.s[b].level = Math.min(this.effectiveLimit(b) ?? 0, this.level(b, nowMs) + delta);
  }

  /**
   * What the API's bucket held at `nowMs` by its headers: `-remaining`, refilled since (`-reset` is
   * when it is full again). Never below `-remaining`: workflow time may lag the API's clock.
   */
  private stated(h: RateHeaderLimit, nowMs: number): number {
    if (h.resetAtMs === undefined) return h.remaining;
    return Math.max(h.remaining, h.limit * (1 - Math.max(0, h.resetAtMs - nowMs) / this.period));
  }

  private learn(b: BucketName, h: RateHeaderLimit, nowMs: number): void {
    if (!(h.limit > 0)) return;
    const configured = this.s.configured[CONFIG_KEY[b]];
    const limit = configured !== undefined && configured > 0 ? Math.min(configured, h.limit) : h.limit;
    const st = this.s[b];
    if (st.limit === null) {
      st.limit = limit;
      st.level = Math.min(this.stated(h, nowMs), limit * this.s.factor);
      st.atMs = nowMs;
      return;
    }
    st.limit = limit;
    // The API counts users of the key outside the pool too: its word on what is left wins when
    // lower, refilled since it was said (`-reset` is when its bucket is full again).
    const left = this.stated(h, nowMs);
    if (left < this.level(b, nowMs)) st.level = left;
  }
}

function clampPriority(p: number | undefined): number {
  return p !== undefined && Number.isInteger(p) && p >= 1 && p <= 5 ? p : DEFAULT_RATE_PRIORITY;
}

function nonNegative(n: number): number {
  return Number.isFinite(n) && n > 0 ? n : 0;
}
