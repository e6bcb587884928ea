/** Errors of the PostgreSQL store that a user must act on (the CLI exits 2 on each). */
import { AgentRunnerError } from '../../common/errors';

/** Thrown when the database cannot be reached or refuses the connection (the URL is masked). */
export class StoreConnectionError extends AgentRunnerError {
  override readonly name = 'StoreConnectionError';
  readonly kind = 'usage';
  constructor(
    /** The URL, password masked. */
    readonly url: string,
    /** What the driver said. */
    readonly reason: string,
    /** The driver's error (its code tells an unreachable server from a refused login). */
    cause?: unknown,
  ) {
    super(
      `cannot connect to the PostgreSQL transcript store at ${url}: ${reason} ` +
        '(store.url in temporal.yaml or AGENT_RUNNER_STORE_URL)',
      cause === undefined ? undefined : { cause },
    );
  }
}

/**
 * Thrown when the database's schema does not fit this version of agent-runner: newer than the
 * code (upgrade agent-runner), or older than the code in a process that does not migrate (run
 * `agent-runner store migrate`, or start a worker).
 */
export class StoreSchemaError extends AgentRunnerError {
  override readonly name = 'StoreSchemaError';
  readonly kind = 'usage';
  constructor(
    readonly url: string,
    /** Schema version found in the database (0 = no tables yet). */
    readonly found: number,
    /** Schema version this code expects. */
    readonly expected: number,
  ) {
    super(
      found > expected
        ? `the transcript store at ${url} has schema version ${found}, newer than this agent-runner knows ` +
            `(${expected}): upgrade agent-runner on this host; nothing was changed`
        : `the transcript store at ${url} has schema version ${found}, older than this agent-runner needs ` +
            `(${expected}): run \`agent-runner store migrate\` (or start a worker, which migrates)`,
    );
  }
}

/** Thrown when the server is older than the store supports. */
export class StoreServerVersionError extends AgentRunnerError {
  override readonly name = 'StoreServerVersionError';
  readonly kind = 'usage';
}

/** The text of a driver error, for messages (AggregateError of several addresses included). */
export function driverMessage(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) {
    return [...new Set(err.errors.map((e: unknown) => driverMessage(e)))].join('; ');
  }
  const e = err as { message?: unknown; code?: unknown } | null;
  const msg = typeof e?.message === 'string' && e.message !== '' ? e.message : String(err);
  return typeof e?.code === 'string' && !msg.includes(e.code) ? `${msg} (${e.code})` : msg;
}
