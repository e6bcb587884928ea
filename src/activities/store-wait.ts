/**
 * The transcript store as the activities see it: every call waits through an outage of the store
 * (`src/store/outage.ts`) inside the running attempt, heartbeating, for as long as the attempt
 * may run, so that what the attempt holds (a complete model response, a tool's result) is written
 * once the store is back instead of being made again. A local activity does not wait (it cannot
 * heartbeat and holds its workflow task): it fails at once and the turn runs the normal activity,
 * which waits.
 */
import { Context } from '@temporalio/activity';
import { StoreOutage, waitingStore } from '../store/outage';
import type { TranscriptStore } from '../store/transcript-store';

/** Time an attempt keeps for itself before its start-to-close timeout (to fail with a clear error), ms. */
const ATTEMPT_MARGIN_MS = 3000;

/** The running activity's context, or undefined outside an activity. */
function currentContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/**
 * When each running attempt started in this process ({@link withAttemptStart}). Start-to-close
 * counts from the start, not from scheduling (an attempt may wait long in its task queue).
 */
const firstSeen = new WeakMap<Context, number>();

/** Wraps an activity so that {@link activityWaitBudgetMs} knows when its attempt started. */
export function withAttemptStart<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return (...args: A): Promise<R> => {
    const ctx = currentContext();
    if (ctx && !firstSeen.has(ctx)) firstSeen.set(ctx, Date.now());
    return fn(...args);
  };
}

/**
 * How much longer the running activity attempt may wait for the store, ms: until shortly before
 * its start-to-close (or schedule-to-close) timeout; 0 in a local activity; Infinity outside an
 * activity.
 */
export function activityWaitBudgetMs(now: number = Date.now()): number {
  const ctx = currentContext();
  const info = ctx?.info;
  if (!ctx || !info) return Infinity;
  if (info.isLocal) return 0;
  let started = firstSeen.get(ctx);
  if (started === undefined) {
    started = now;
    firstSeen.set(ctx, started);
  }
  const ends: number[] = [];
  if (info.startToCloseTimeoutMs > 0) ends.push(started + info.startToCloseTimeoutMs);
  if (info.scheduleToCloseTimeoutMs > 0) ends.push(info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs);
  if (ends.length === 0) return Infinity;
  return Math.max(0, Math.min(...ends) - now - ATTEMPT_MARGIN_MS);
}

/** Heartbeats the running activity when it has a heartbeat timeout (Temporal: only then may it). */
function heartbeatIfWatched(): void {
  const ctx = currentContext();
  if (ctx && !ctx.info.isLocal && ctx.info.heartbeatTimeoutMs) ctx.heartbeat();
}

/** Logs through the running activity's logger when there is one. */
function warn(line: string): void {
  const ctx = currentContext();
  if (ctx) ctx.log.warn(line);
  else console.warn(line);
}

/** Options of {@link activityStore}. */
export interface ActivityStoreOptions {
  /** How long an outage may last before activities give up, ms. @default 600000 (`store.outageTimeoutMs`) */
  timeoutMs?: number;
  /** Where outage notices go. @default the activity's logger (the worker's log) */
  log?: (line: string) => void;
}

/**
 * The outage state of `store` for the activities of one worker: calls wait through an outage of
 * the store within the attempt's time ({@link activityWaitBudgetMs}), heartbeating; then they
 * fail with `StoreUnavailableError`, which `withStorageErrors` turns into
 * `TranscriptError.Unavailable`. Wrap the store with `waitingStore(store, outage)`; an operation
 * that must be repeated whole (a streamed snapshot) runs in `outage.run(...)`.
 */
export function activityStoreOutage(store: TranscriptStore, opts: ActivityStoreOptions = {}): StoreOutage {
  return new StoreOutage(store.description ?? 'transcript store', {
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    notice: opts.log ?? warn,
    budgetMs: () => activityWaitBudgetMs(),
    onWait: heartbeatIfWatched,
  });
}

/** `store` for the activities of one worker (see {@link activityStoreOutage}). */
export function activityStore(store: TranscriptStore, opts: ActivityStoreOptions = {}): TranscriptStore {
  return waitingStore(store, activityStoreOutage(store, opts));
}
