import { Context } from '@temporalio/activity';

/** A running heartbeat timer. */
export interface Heartbeat {
  /** Ends the timer (again: nothing). */
  stop(): void;
}

/**
 * Calls `beat` every `intervalMs` until stopped: the one heartbeat timer of the activities (model
 * calls, compaction, tool runs, Bash, hooks, MCP start-up). The first beat comes after one
 * interval, not at once: a step that ends sooner costs the server no heartbeat write, and the
 * heartbeat timeout counts from the activity's start anyway. Temporal sends at most one heartbeat
 * per `worker.heartbeatThrottleMs` whatever the interval; a cancellation arrives with a
 * heartbeat's answer, so a short interval is what makes an interrupt quick.
 * @param intervalMs ms between beats
 * @param beat what one beat does. @default the current activity's `Context.current().heartbeat()`
 */
export function heartbeatEvery(intervalMs: number, beat?: () => void): Heartbeat {
  const fn =
    beat ??
    (
      (ctx) => () =>
        ctx.heartbeat()
    )(Context.current());
  let timer: ReturnType<typeof setInterval> | undefined = setInterval(fn, intervalMs);
  return {
    stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}

/**
 * Wraps an activity so that it heartbeats every second while it runs (for activities whose work
 * has no natural progress points, such as starting MCP servers): a dead worker is noticed within
 * the caller's heartbeat timeout, a live slow one is not.
 */
export function withHeartbeats<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A): Promise<R> => {
    const beat = heartbeatEvery(1000);
    try {
      return await fn(...args);
    } finally {
      beat.stop();
    }
  };
}
