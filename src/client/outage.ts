/**
 * Waiting through a Temporal outage: a client whose server goes away (restarted, a network blip,
 * the background server being replaced) keeps waiting, with a notice on stderr, instead of failing
 * a turn that goes on on the server. The limit is `temporal.outageTimeoutMs`.
 */
import { ServiceError, isGrpcServiceError } from '@temporalio/client';
import { retry } from '../connection/retry';
import { AgentRunnerError } from '../common/errors';

/** gRPC status codes that mean "the server is not reachable right now" (CANCELLED, UNKNOWN, DEADLINE_EXCEEDED, UNAVAILABLE). */
const UNREACHABLE_CODES = new Set([1, 2, 4, 14]);

/**
 * Whether `err` says the Temporal server cannot be reached (as opposed to an answer such as "not
 * found" or a failed workflow): a gRPC UNAVAILABLE / DEADLINE_EXCEEDED / CANCELLED, directly or as
 * the cause of the client's `ServiceError`, or a socket error under one.
 */
export function isServerUnreachable(err: unknown): boolean {
  const grpc = err instanceof ServiceError ? err.cause : err;
  if (isGrpcServiceError(grpc)) return UNREACHABLE_CODES.has(grpc.code);
  if (err instanceof ServiceError) {
    const code = (grpc as NodeJS.ErrnoException | undefined)?.code;
    return typeof code === 'string' && /^E(CONNREFUSED|CONNRESET|PIPE|HOSTUNREACH|NETUNREACH|TIMEDOUT)$/.test(code);
  }
  return false;
}

/** Thrown when the server stays unreachable longer than the client's outage limit. */
export class TemporalOutageError extends AgentRunnerError {
  override readonly name = 'TemporalOutageError';
  readonly kind = 'runtime';
}

/** Options of {@link OutageWaiter}. */
export interface OutageOptions {
  /** Give up after the server has been unreachable this long, in ms. @default 600000 */
  timeoutMs?: number;
  /** Lines for the user (stderr in the CLI). */
  notice?: (line: string) => void;
  /** What the caller can do when it gives up, appended to the error (e.g. how to re-attach). */
  hint?: string;
  /** Called after each failed call of an outage (e.g. to restart a background server that died). */
  onUnreachable?: () => void;
}

/**
 * Runs calls that may meet an outage: an unreachable server is retried with a backoff (0.5 s up
 * to 5 s) until it answers or the outage has lasted `timeoutMs`; a notice goes out when it starts,
 * every 30 s while it lasts, and when the server is back. Other errors propagate at once.
 */
export class OutageWaiter {
  private since: number | null = null;
  private lastNotice = 0;

  constructor(private readonly opts: OutageOptions = {}) {}

  /** Calls `fn` until it returns, or throws an error that is not an outage, or the outage is too long. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const v = await retry(fn, {
      delayMs: 500,
      maxDelayMs: 5000,
      retryIf: isServerUnreachable,
      onRetry: (err) => this.failed(err),
    });
    this.recovered();
    return v;
  }

  /** Records a failed call (throws TemporalOutageError once the outage is too long). */
  failed(err: unknown): void {
    this.opts.onUnreachable?.();
    const now = Date.now();
    const limit = this.opts.timeoutMs ?? 600_000;
    if (this.since === null) {
      this.since = now;
      this.lastNotice = now;
      this.opts.notice?.(
        `agent-runner: Temporal is unreachable (${describe(err)}); waiting for it to come back ` +
          `(up to ${Math.round(limit / 1000)} s; the turn goes on on the server)`,
      );
    } else if (now - this.lastNotice >= 30_000) {
      this.lastNotice = now;
      this.opts.notice?.(`agent-runner: still waiting for Temporal (${Math.round((now - this.since) / 1000)} s)`);
    }
    if (now - this.since >= limit) {
      throw new TemporalOutageError(
        `Temporal was unreachable for ${Math.round((now - this.since) / 1000)} s (temporal.outageTimeoutMs ${limit}): ` +
          `${describe(err)}.${this.opts.hint ? ` ${this.opts.hint}` : ''}`,
      );
    }
  }

  /** Records a successful call after an outage. */
  recovered(): void {
    if (this.since === null) return;
    this.opts.notice?.(`agent-runner: Temporal is back after ${Math.round((Date.now() - this.since) / 1000)} s`);
    this.since = null;
  }

  /** Whether an outage is going on. */
  get waiting(): boolean {
    return this.since !== null;
  }
}

function describe(err: unknown): string {
  const cause = err instanceof ServiceError && err.cause ? err.cause : err;
  const msg = cause instanceof Error ? cause.message : String(cause);
  return msg.split('\n')[0]?.slice(0, 200) ?? msg;
}
