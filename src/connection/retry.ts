/**
 * The callers' one retry helper (client, CLI and local-server code): a call that may fail for a
 * moment (a query that finds no worker yet, a server still booting, a line not yet visible in an
 * eventually consistent store) is tried again with a growing delay, until it succeeds, an error
 * says it is not worth trying again, or the attempts or the time run out. Activities do not use
 * it: Temporal retries them by their retry policies.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Options of {@link retry}. */
export interface RetryOptions {
  /** Most attempts in all, the first included. @default unlimited (bounded by `deadline`, `signal`) */
  attempts?: number;
  /** Delay before the second attempt, in ms. @default 100 */
  delayMs?: number;
  /** Factor the delay grows by after each further attempt (1: a fixed delay). @default 2 */
  factor?: number;
  /** Longest delay between two attempts, in ms. @default 2000 */
  maxDelayMs?: number;
  /**
   * Time (epoch ms) after which no attempt starts: the last error is thrown. A delay never runs
   * past it. @default none
   */
  deadline?: number;
  /** Stops retrying once aborted: the last error is thrown. */
  signal?: AbortSignal;
  /** Whether an error is worth another attempt; one that is not is thrown at once. @default every error */
  retryIf?: (err: unknown) => boolean;
  /**
   * Called after each failed attempt that will be tried again (attempt counts from 1), before the
   * delay; an error it throws ends the retries with that error.
   */
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
}

/**
 * Calls `fn` until it resolves, and returns its value.
 * @throws the last error of `fn` when it is not worth retrying (`retryIf`), or when the attempts,
 *   the deadline or the signal end the retries; or the error `onRetry` throws.
 */
export async function retry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const attempts = opts.attempts ?? Infinity;
  const factor = opts.factor ?? 2;
  const maxDelayMs = opts.maxDelayMs ?? 2000;
  let delay = Math.min(opts.delayMs ?? 100, maxDelayMs);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt >= attempts || opts.signal?.aborted || (opts.retryIf && !opts.retryIf(err))) throw err;
      const left = opts.deadline === undefined ? Infinity : opts.deadline - Date.now();
      if (left <= 0) throw err;
      const wait = Math.max(0, Math.min(delay, left));
      opts.onRetry?.(err, attempt, wait);
      if (wait > 0) await sleep(wait);
      if (opts.signal?.aborted) throw err;
      delay = Math.min(delay * factor, maxDelayMs);
    }
  }
}

/** Internal: the value {@link retryUntilDefined} waits for is not there yet. */
class NotYet extends Error {}

/**
 * Calls `fn` until it returns something other than `undefined` (a read that may not see a write
 * yet), with {@link retry}'s delays; undefined when the attempts (or the deadline) run out. Errors
 * of `fn` are not retried: they propagate.
 */
export async function retryUntilDefined<T>(
  fn: (attempt: number) => Promise<T | undefined>,
  opts: Omit<RetryOptions, 'retryIf'> = {},
): Promise<T | undefined> {
  try {
    return await retry(
      async (attempt) => {
        const v = await fn(attempt);
        if (v === undefined) throw new NotYet();
        return v;
      },
      { ...opts, retryIf: (err) => err instanceof NotYet },
    );
  } catch (err) {
    if (err instanceof NotYet) return undefined;
    throw err;
  }
}
