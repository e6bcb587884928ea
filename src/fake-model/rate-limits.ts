/**
 * Rate limits of the fake model, as the Messages API enforces them: token buckets of requests,
 * input tokens and output tokens per minute, refilled continuously up to the limit (Anthropic's
 * documented algorithm). Every response carries the `anthropic-ratelimit-*` headers; a request
 * over a limit gets HTTP 429 `rate_limit_error` with `retry-after` (seconds until it would fit).
 *
 * Input tokens are taken when a request is admitted (the prompt estimate); output tokens when the
 * response completes (the real count), and a request is refused while the output bucket is empty.
 */

/** Limits per minute; an absent one is not enforced (and has no headers). */
export interface RateLimitOptions {
  /** Requests per minute. */
  requestsPerMinute?: number;
  /** Input tokens per minute (uncached input and cache writes; cache reads do not count, as on the API). */
  inputTokensPerMinute?: number;
  /** Output tokens per minute. */
  outputTokensPerMinute?: number;
  /**
   * Length of the limits' "minute", ms: a shorter one lets a test or bench see many refills in a
   * few seconds (the headers still state the limits per that period). @default 60000
   */
  periodMs?: number;
}

const MINUTE_MS = 60_000;

/** One token bucket: `capacity` per period, refilled continuously. */
class Bucket {
  private level: number;
  private at: number;

  constructor(
    readonly capacity: number,
    nowMs: number,
    private readonly period: number = MINUTE_MS,
  ) {
    this.level = capacity;
    this.at = nowMs;
  }

  /** Tokens available at `nowMs` (may be negative after a debit beyond the level). */
  available(nowMs: number): number {
    this.level = Math.min(this.capacity, this.level + ((nowMs - this.at) * this.capacity) / this.period);
    this.at = nowMs;
    return this.level;
  }

  take(n: number, nowMs: number): void {
    this.available(nowMs);
    this.level -= n;
  }

  /** Ms until `n` tokens (at most the capacity) are available. */
  msUntil(n: number, nowMs: number): number {
    const missing = Math.min(n, this.capacity) - this.available(nowMs);
    return missing <= 0 ? 0 : Math.ceil((missing * this.period) / this.capacity);
  }

  /** Time at which the bucket is full again. */
  resetAt(nowMs: number): Date {
    return new Date(nowMs + Math.ceil(((this.capacity - this.available(nowMs)) * this.period) / this.capacity));
  }
}

/** The verdict on one request: admitted, or refused for `retryAfterMs`. */
export type RateVerdict = { ok: true } | { ok: false; retryAfterMs: number; limit: 'requests' | 'input' | 'output' };

/** The buckets of one fake server (all callers share them, as an organisation's limits). */
export class RateLimiter {
  private readonly requests: Bucket | undefined;
  private readonly input: Bucket | undefined;
  private readonly output: Bucket | undefined;
  /** Requests refused with 429 so far. */
  refused = 0;

  constructor(
    options: RateLimitOptions,
    private readonly now: () => number = Date.now,
  ) {
    const t = now();
    const bucket = (n: number | undefined): Bucket | undefined =>
      n !== undefined && n > 0 ? new Bucket(n, t, options.periodMs) : undefined;
    this.requests = bucket(options.requestsPerMinute);
    this.input = bucket(options.inputTokensPerMinute);
    this.output = bucket(options.outputTokensPerMinute);
  }

  /** True when any limit is set. */
  get active(): boolean {
    return this.requests !== undefined || this.input !== undefined || this.output !== undefined;
  }

  /** Admits a request of `inputTokens` (taking one request and its input tokens), or refuses it. */
  admit(inputTokens: number): RateVerdict {
    const t = this.now();
    let worst: RateVerdict & { ok: false } = { ok: false, retryAfterMs: 0, limit: 'requests' };
    const check = (b: Bucket | undefined, n: number, limit: 'requests' | 'input' | 'output'): void => {
      const ms = b?.msUntil(n, t) ?? 0;
      if (ms > worst.retryAfterMs) worst = { ok: false, retryAfterMs: ms, limit };
    };
    check(this.requests, 1, 'requests');
    check(this.input, inputTokens, 'input');
    check(this.output, 1, 'output');
    if (worst.retryAfterMs > 0) {
      this.refused++;
      return worst;
    }
    this.requests?.take(1, t);
    this.input?.take(inputTokens, t);
    return { ok: true };
  }

  /** Counts the output tokens of a completed response. */
  completed(outputTokens: number): void {
    this.output?.take(outputTokens, this.now());
  }

  /**
   * The `anthropic-ratelimit-*` headers at this moment: `requests-*`, `input-tokens-*`,
   * `output-tokens-*` and `tokens-*` (the most restrictive token limit), each `-limit`,
   * `-remaining` (floored at 0) and `-reset` (RFC 3339: when the bucket is full again).
   */
  headers(): Record<string, string> {
    const t = this.now();
    const out: Record<string, string> = {};
    const put = (name: string, b: Bucket | undefined): void => {
      if (b === undefined) return;
      out[`anthropic-ratelimit-${name}-limit`] = String(b.capacity);
      out[`anthropic-ratelimit-${name}-remaining`] = String(Math.max(0, Math.floor(b.available(t))));
      out[`anthropic-ratelimit-${name}-reset`] = b.resetAt(t).toISOString();
    };
    put('requests', this.requests);
    put('input-tokens', this.input);
    put('output-tokens', this.output);
    const tokens = [this.input, this.output]
      .filter((b): b is Bucket => b !== undefined)
      .sort((a, b) => a.available(t) / a.capacity - b.available(t) / b.capacity)[0];
    put('tokens', tokens);
    return out;
  }
}
