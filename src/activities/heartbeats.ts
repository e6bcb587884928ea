import { Context } from '@temporalio/activity';

/**
 * Wraps an activity so that it heartbeats every second while it runs (for activities whose work
 * has no natural progress points, such as starting MCP servers): a dead worker is noticed within
 * the caller's heartbeat timeout, a live slow one is not.
 */
export function withHeartbeats<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A): Promise<R> => {
    const ctx = Context.current();
    const beat = setInterval(() => ctx.heartbeat(), 1000);
    try {
      return await fn(...args);
    } finally {
      clearInterval(beat);
    }
  };
}
