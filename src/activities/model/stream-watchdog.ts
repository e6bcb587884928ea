/**
 * The stream watchdog of a model call, as Claude Code has it: a response stream that sends
 * nothing (not even a `ping`) for the idle limit is given up, and the attempt fails with a
 * retryable `ModelError.StreamIdleTimeout` that reports the usage the attempt was billed, instead
 * of hanging until its start-to-close timeout (10 minutes, 10 times). An attempt also ends itself
 * shortly before that timeout (`ModelError.Timeout`), so that its failure, not a timeout without
 * details, says what it was billed.
 *
 * Claude Code 2.1.328 reads `CLAUDE_STREAM_IDLE_TIMEOUT_MS` (default 300000, never below 300000,
 * at most 1800000) and `CLAUDE_ENABLE_STREAM_WATCHDOG` (on unless `0`/`false`); its errors say
 * `Stream idle timeout - partial response received` or `- no chunks received`.
 */

/** Claude Code's default idle limit, and the least its environment variable can set, ms. */
export const CLAUDE_STREAM_IDLE_DEFAULT_MS = 300_000;
/** The most `CLAUDE_STREAM_IDLE_TIMEOUT_MS` can set in Claude Code, ms. */
export const CLAUDE_STREAM_IDLE_MAX_MS = 1_800_000;

/**
 * The idle limit of a worker's model streams, ms (0 = no limit): off when
 * `CLAUDE_ENABLE_STREAM_WATCHDOG` is `0` or `false`; else `CLAUDE_STREAM_IDLE_TIMEOUT_MS` as
 * Claude Code reads it (raised to 300000, cut to 1800000); else `model.streamIdleTimeoutMs`.
 */
export function streamIdleTimeoutMs(configured: number, env: NodeJS.ProcessEnv): number {
  const watchdog = env['CLAUDE_ENABLE_STREAM_WATCHDOG']?.trim().toLowerCase();
  if (watchdog === '0' || watchdog === 'false') return 0;
  const raw = env['CLAUDE_STREAM_IDLE_TIMEOUT_MS'];
  const n = raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  if (Number.isFinite(n)) return Math.min(CLAUDE_STREAM_IDLE_MAX_MS, Math.max(CLAUDE_STREAM_IDLE_DEFAULT_MS, n));
  return configured;
}

/** Thrown by {@link watchedStream} when no event arrived within the idle limit. */
export class StreamIdleTimeoutError extends Error {
  override readonly name = 'StreamIdleTimeoutError';
  constructor(
    readonly idleMs: number,
    /** Events received before the stream went quiet. */
    readonly events: number,
  ) {
    super(
      `Stream idle timeout - ${events > 0 ? 'partial response received' : 'no chunks received'} ` +
        `(no stream event for ${Math.round(idleMs / 1000)} s; CLAUDE_STREAM_IDLE_TIMEOUT_MS or model.streamIdleTimeoutMs)`,
    );
  }
}

/** Thrown by {@link watchedStream} when the attempt's own deadline passed while the stream ran. */
export class AttemptDeadlineError extends Error {
  override readonly name = 'AttemptDeadlineError';
  constructor(readonly afterMs: number) {
    super(
      `the model call's attempt ended itself after ${Math.round(afterMs / 1000)} s, just before its start-to-close ` +
        'timeout, with the stream still running (model.requestTimeoutMs / modelStartToCloseMs)',
    );
  }
}

/** Options of {@link watchedStream}. */
export interface WatchOptions {
  /** Longest wait for the next event, ms; 0 = no limit. */
  idleMs: number;
  /** Epoch ms after which the next wait fails with {@link AttemptDeadlineError}; Infinity = none. */
  deadline?: number;
  /** Called when the watchdog gives up (the caller aborts the request). */
  onGiveUp(): void;
}

/**
 * `events`, failing when the next event takes longer than `idleMs` (or passes `deadline`). Only
 * the wait for the stream is timed: the time the consumer spends between two reads (writing the
 * response to the store, say) does not count.
 * @throws StreamIdleTimeoutError | AttemptDeadlineError (after `onGiveUp`).
 */
export async function* watchedStream<E>(events: AsyncIterable<E>, opts: WatchOptions): AsyncGenerator<E> {
  const it = events[Symbol.asyncIterator]();
  const started = Date.now();
  const idle = opts.idleMs > 0 ? opts.idleMs : Infinity;
  let count = 0;
  let gaveUp = false;
  try {
    for (;;) {
      const deadlineLeft = (opts.deadline ?? Infinity) - Date.now();
      const limit = Math.min(idle, deadlineLeft);
      let timer: NodeJS.Timeout | undefined;
      const next = it.next();
      const result =
        limit === Infinity
          ? await next
          : await Promise.race([
              next,
              new Promise<'timeout'>((resolve) => {
                timer = setTimeout(() => resolve('timeout'), Math.max(0, limit));
              }),
            ]).finally(() => clearTimeout(timer));
      if (result === 'timeout') {
        next.catch(() => undefined); // the aborted read rejects; nobody waits for it
        gaveUp = true;
        opts.onGiveUp();
        throw deadlineLeft <= idle
          ? new AttemptDeadlineError(Date.now() - started)
          : new StreamIdleTimeoutError(idle, count);
      }
      if (result.done) return;
      count++;
      yield result.value;
    }
  } finally {
    // After giving up, a read is still pending: returning would queue behind it.
    if (gaveUp) void it.return?.()?.catch(() => undefined);
    else await it.return?.().catch(() => undefined);
  }
}
