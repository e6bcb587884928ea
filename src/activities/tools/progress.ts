/**
 * Liveness helpers for long tool runs: throttled heartbeats and abort checks.
 */
import type { ToolContext } from './types';

/**
 * Returns a function that calls `ctx.heartbeat()` at most once per `intervalMs`
 * (the first call always beats). Cheap enough to call in tight loops.
 */
export function throttledHeartbeat(ctx: Pick<ToolContext, 'heartbeat'>, intervalMs = 1000): () => void {
  let last = 0;
  return () => {
    const now = Date.now();
    if (now - last >= intervalMs) {
      last = now;
      ctx.heartbeat();
    }
  };
}

/** Thrown by tools that stop early because `ctx.signal` was aborted. */
export class ToolAbortedError extends Error {
  constructor(what = 'The tool run') {
    super(`${what} was aborted before it finished.`);
    this.name = 'ToolAbortedError';
  }
}

/** Throws {@link ToolAbortedError} when the signal is aborted. */
export function throwIfAborted(signal: AbortSignal, what?: string): void {
  if (signal.aborted) throw new ToolAbortedError(what);
}
