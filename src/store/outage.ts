/**
 * Waiting through an outage of the transcript store (a PostgreSQL server restarted or down, a
 * network blip to it). A store that cannot be reached is a condition of its own, not an error of
 * whatever called it: the caller waits for the store, with a notice, as a client waits for
 * Temporal (`src/client/outage.ts`), for up to `store.outageTimeoutMs`, and then fails with
 * {@link StoreUnavailableError}, whose message names the store.
 *
 * {@link waitingStore} wraps a {@link TranscriptStore} so that every call does this: the worker's
 * activities (each write is retried in place, so a model response or a tool result the worker
 * holds is kept until the store takes it, and never made again) and the clients that read it.
 * Nothing here loads a driver or Temporal code.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { driverMessage } from './postgres/errors';
import type { TranscriptStore } from './transcript-store';

/**
 * Thrown when the transcript store cannot be reached: by {@link waitingStore} once the outage has
 * lasted `timeoutMs` (`exceeded`), or earlier when the caller may not wait longer (an activity near
 * its start-to-close timeout, a caller that does not wait at all).
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(
    /** The store, for people: `PostgreSQL transcript store at postgres://user:***@host:5432/db`. */
    readonly store: string,
    /** What the driver said (`connect ECONNREFUSED 127.0.0.1:5432`). */
    readonly reason: string,
    /** How long the store has been unreachable, ms. */
    readonly downForMs: number,
    /** The outage limit in ms when it was passed (the caller should give up), else null. */
    readonly exceededLimitMs: number | null = null,
  ) {
    super(
      `the ${store} is unreachable: ${reason}` +
        (exceededLimitMs !== null
          ? ` (for ${Math.round(downForMs / 1000)} s, longer than store.outageTimeoutMs ${exceededLimitMs})`
          : downForMs >= 1000
            ? ` (for ${Math.round(downForMs / 1000)} s)`
            : ''),
    );
  }
}

/** errno codes of a peer that cannot be reached right now: the network, the server down or restarting. */
export const NETWORK_ERRNO_CODES: readonly string[] = [
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENETRESET',
  'ENOTCONN',
  'EAI_AGAIN',
];

/** errno codes of a store that cannot be reached right now (also a name that does not resolve, an NFS handle gone). */
const UNREACHABLE_CODES = new Set([...NETWORK_ERRNO_CODES, 'ENOTFOUND', 'ESTALE']);

/**
 * SQLSTATEs of a PostgreSQL server that is going away, coming back or full: class 08 (connection
 * exception), 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now (starting up),
 * 53300 too many connections.
 */
const UNREACHABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** Messages of the `pg` driver for a connection that broke or could not be made (they carry no code). */
const UNREACHABLE_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable|terminating connection/i;

/**
 * True when `err` says the store cannot be reached right now (as opposed to an answer: a
 * constraint, a bad line, a full disk): a network errno, a PostgreSQL connection-class SQLSTATE,
 * a broken `pg` connection, or an error whose causes (or every error of an AggregateError) are so.
 */
export function isStoreUnreachable(err: unknown, depth = 0): boolean {
  if (err === null || err === undefined || depth > 5) return false;
  if (err instanceof StoreUnavailableError) return true;
  if (err instanceof AggregateError && err.errors.length > 0) {
    return err.errors.every((e: unknown) => isStoreUnreachable(e, depth + 1));
  }
  const e = err as { code?: unknown; message?: unknown; cause?: unknown };
  if (typeof e.code === 'string') {
    if (UNREACHABLE_CODES.has(e.code) || UNREACHABLE_SQLSTATES.has(e.code) || /^08[0-9A-Z]{3}$/.test(e.code)) {
      return true;
    }
  }
  if (typeof e.message === 'string' && UNREACHABLE_MESSAGES.test(e.message)) return true;
  return e.cause !== err && isStoreUnreachable(e.cause, depth + 1);
}

/** Options of {@link StoreOutage} and {@link waitingStore}. */
export interface StoreWaitOptions {
  /** Give up after the store has been unreachable this long, in ms. @default 600000 (`store.outageTimeoutMs`) */
  timeoutMs?: number;
  /** Lines for people: when an outage begins, every 30 s while it lasts, when the store is back. */
  notice?: (line: string) => void;
  /**
   * How much longer the current caller may wait, in ms (asked at each failed try): an activity
   * passes what is left of its start-to-close timeout, a local activity 0 (it fails at once and
   * the normal activity waits). @default Infinity
   */
  budgetMs?: () => number;
  /** Called about every second while waiting (an activity heartbeats there). */
  onWait?: () => void;
}

/**
 * The outage state of one store in one process: since when it has been unreachable (shared by
 * every caller, so the limit counts from the first failure, whoever saw it).
 */
export class StoreOutage {
  private since: number | null = null;
  private lastNotice = 0;
  private readonly timeoutMs: number;

  constructor(
    /** The store, for messages (see {@link StoreUnavailableError.store}). */
    readonly storeName: string,
    private readonly opts: StoreWaitOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 600_000;
  }

  /** True while an outage is going on (the last call failed to reach the store). */
  get waiting(): boolean {
    return this.since !== null;
  }

  /**
   * Runs `op`, and again while it fails because the store cannot be reached: with a backoff from
   * 0.5 s to 5 s, until it succeeds, fails otherwise, or the outage passes the limit or the
   * caller's budget. `retry: false` (an operation that cannot be repeated, such as a streamed
   * write) only turns an unreachable store into a {@link StoreUnavailableError}.
   * @throws StoreUnavailableError when it gives up; any other error of `op` at once.
   */
  async run<T>(op: () => Promise<T>, opts: { retry?: boolean; budgetMs?: () => number } = {}): Promise<T> {
    let delay = 500;
    for (;;) {
      try {
        const value = await op();
        this.recovered();
        return value;
      } catch (err) {
        if (!isStoreUnreachable(err)) throw err;
        const now = Date.now();
        const reason = err instanceof StoreUnavailableError ? err.reason : firstLine(driverMessage(err));
        if (this.since === null) {
          this.since = now;
          this.lastNotice = now;
          this.opts.notice?.(
            `agent-runner: the ${this.storeName} is unreachable (${reason}); waiting for it to come back ` +
              `(up to ${Math.round(this.timeoutMs / 1000)} s)`,
          );
        } else if (now - this.lastNotice >= 30_000) {
          this.lastNotice = now;
          this.opts.notice?.(
            `agent-runner: still waiting for the ${this.storeName} (${Math.round((now - this.since) / 1000)} s)`,
          );
        }
        const down = now - this.since;
        if (down >= this.timeoutMs) throw new StoreUnavailableError(this.storeName, reason, down, this.timeoutMs);
        // The next try comes after the backoff, or at the limit when that is sooner.
        const wait = Math.min(delay, this.timeoutMs - down);
        const budget = (opts.budgetMs ?? this.opts.budgetMs)?.() ?? Infinity;
        if (opts.retry === false || budget < wait) throw new StoreUnavailableError(this.storeName, reason, down);
        await this.pause(wait);
        delay = Math.min(delay * 2, 5000);
      }
    }
  }

  /** Records that the store answered (a notice when that ends an outage). */
  recovered(): void {
    if (this.since === null) return;
    this.opts.notice?.(
      `agent-runner: the ${this.storeName} is back after ${Math.round((Date.now() - this.since) / 1000)} s`,
    );
    this.since = null;
  }

  private async pause(ms: number): Promise<void> {
    for (let left = ms; left > 0; left -= 1000) {
      this.opts.onWait?.();
      await sleep(Math.min(1000, left));
    }
  }
}

function firstLine(s: string): string {
  return (s.split('\n')[0] ?? s).slice(0, 300);
}

/** A body that can be sent again (a buffer or a string; a stream cannot). */
function repeatable(body: unknown): boolean {
  return typeof body === 'string' || body instanceof Uint8Array;
}

/**
 * `store`, whose every call waits through an outage of the store (see {@link StoreOutage.run}).
 * Every store operation is idempotent (first-writer-wins lines and blobs, upserted usage
 * records, run markers keyed by tool call), so a call retried after a connection broke mid-way
 * leaves the store as one call would. A streamed `putContent` cannot be repeated: it fails with
 * {@link StoreUnavailableError} at once and its caller retries the whole operation. `close` and
 * the `streamEvents` side channel (best effort by contract) are passed through.
 */
export function waitingStore(store: TranscriptStore, outage: StoreOutage): TranscriptStore {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || prop === 'close' || prop === 'constructor') return value;
      let fn = wrapped.get(prop);
      if (!fn) {
        const method = value as (...args: unknown[]) => Promise<unknown>;
        fn = (...args: unknown[]) =>
          outage.run(() => method.apply(target, args), {
            retry: prop !== 'putContent' || repeatable(args[2]),
          });
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}
