/**
 * A worker that starts while Temporal or the transcript store is down waits for them, as a
 * running worker does when they go away (its polls retry), instead of exiting: a notice when the
 * wait begins, every 30 s while it lasts, and when the service answers.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Options of {@link untilReachable}. */
export interface UntilReachableOptions {
  /** The service for people: `Temporal at 127.0.0.1:7233`. */
  what: string;
  /** True when the error means "not reachable right now" (anything else is thrown at once). */
  unreachable: (err: unknown) => boolean;
  notice: (line: string) => void;
  /** Give up after this long, in ms (the last error is thrown). @default Infinity */
  timeoutMs?: number;
  /** Aborts the wait (the last error is thrown). */
  signal?: AbortSignal;
}

/**
 * Calls `fn` until it resolves, retrying (0.5 s backoff up to 5 s) while it fails with an error
 * that `unreachable` accepts.
 * @throws the error of `fn` when it is not an outage, or when the wait timed out or was aborted.
 */
export async function untilReachable<T>(fn: () => Promise<T>, opts: UntilReachableOptions): Promise<T> {
  let since: number | null = null;
  let lastNotice = 0;
  let delay = 500;
  for (;;) {
    try {
      const value = await fn();
      if (since !== null) opts.notice(`${opts.what} answers after ${Math.round((Date.now() - since) / 1000)} s`);
      return value;
    } catch (err) {
      if (!opts.unreachable(err)) throw err;
      const now = Date.now();
      const why = (err instanceof Error ? err.message : String(err)).split('\n')[0]?.slice(0, 300) ?? '';
      if (since === null) {
        since = now;
        lastNotice = now;
        opts.notice(`${opts.what} is unreachable (${why}); the worker waits for it and starts when it answers`);
      } else if (now - lastNotice >= 30_000) {
        lastNotice = now;
        opts.notice(`still waiting for ${opts.what} (${Math.round((now - since) / 1000)} s): ${why}`);
      }
      if (now - since >= (opts.timeoutMs ?? Infinity) || opts.signal?.aborted) throw err;
      await sleep(delay, undefined, opts.signal ? { signal: opts.signal } : undefined).catch(() => undefined);
      if (opts.signal?.aborted) throw err;
      delay = Math.min(delay * 2, 5000);
    }
  }
}
