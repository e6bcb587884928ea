/**
 * Client-side connection to Temporal: the configured server (`temporal.address`) or a running
 * `agent-runner server` recorded in the data directory. Starts nothing and loads no worker,
 * bundler or dev-server code (the worker layer's `openRuntime` adds those).
 */
import { join } from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import type { Config } from '../config';
import { openConfiguredStore } from '../store/open';
import type { TranscriptStore } from '../store/transcript-store';
import { StoreOutage, waitingStore } from '../store/outage';
import { readLiveServerState } from '../host/server-state';
import { temporalConnectionOptions, type TemporalConnectionOptions } from './temporal-connection';
import { AgentRunnerError } from '../common/errors';
import { clientInterceptors } from './closed-channel';

/** A connection to Temporal plus the transcript store: what a client needs to run and steer turns. */
export interface ClientRuntime {
  client: Client;
  store: TranscriptStore;
  taskQueue: string;
  /** Where the server is (`host:port`). */
  address: string;
  /** `configured` (temporal.address), `shared` (a running `agent-runner server`), or `embedded`. */
  mode: 'configured' | 'shared' | 'embedded';
  /** Closes the connection (and whatever else this process started). Idempotent. */
  close(): Promise<void>;
}

/** A server to connect to, found by {@link findServer}. */
export interface ServerTarget {
  address: string;
  mode: 'configured' | 'shared';
}

/** Thrown when a configured (or recorded) Temporal server cannot be reached. */
export class TemporalUnreachableError extends AgentRunnerError {
  override readonly name = 'TemporalUnreachableError';
  readonly kind = 'usage';
}

/**
 * Thrown by {@link connectClient} when there is no server to reach: no `temporal.address` and no
 * running `agent-runner server`. (An embedded server started just for a control command would be
 * empty of running work, or collide with the one a `-p` run holds, so none is started.)
 */
export class NoServerError extends AgentRunnerError {
  override readonly name = 'NoServerError';
  readonly kind = 'runtime';
  constructor(command: string, dataDir: string, holderPid: number | null) {
    super(
      `${command} needs a running Temporal server, and there is none to reach: ` +
        `temporal.address (TEMPORAL_ADDRESS) is not set and no \`agent-runner server\` is running for ${dataDir}.\n` +
        'A run (`agent-runner -p`) starts the shared background server; or start one with `agent-runner server`, ' +
        'or set temporal.address to a Temporal server that runs `agent-runner worker`.' +
        (holderPid !== null
          ? `\nProcess ${holderPid} runs a private embedded server for its own turn; ` +
            'it cannot be reached from another process (press Ctrl-C in its terminal to interrupt it).'
          : ''),
    );
  }
}

export type { TemporalConnectionOptions } from './temporal-connection';

/**
 * Connection options for a configured server: address, API key, TLS and gRPC headers from the
 * config and the environment, by `@temporalio/envconfig`'s names (see `temporal-connection.ts`).
 * @throws TemporalConnectionConfigError for TLS settings that cannot work.
 */
export function connectionOptions(config: Config, env: NodeJS.ProcessEnv = process.env): TemporalConnectionOptions {
  return temporalConnectionOptions(config.temporal, env);
}

/** Connection options for a target: the configured TLS/API key, or plain loopback for a shared dev server. */
export function targetConnectionOptions(
  config: Config,
  target: { address: string; mode: ClientRuntime['mode'] },
  env: NodeJS.ProcessEnv = process.env,
): TemporalConnectionOptions {
  return target.mode === 'configured' ? connectionOptions(config, env) : { address: target.address };
}

/**
 * The server a client would use, without starting anything: `temporal.address`, else the live
 * `agent-runner server` recorded in the data directory; null when there is neither.
 */
export async function findServer(config: Config): Promise<ServerTarget | null> {
  if (config.temporal.address) return { address: config.temporal.address, mode: 'configured' };
  const shared = await readLiveServerState(config.dataDir);
  return shared ? { address: shared.address, mode: 'shared' } : null;
}

/**
 * The transcript store the config names: `store.url` (PostgreSQL, shared by every host), else
 * JSONL files under the data directory. `migrate` (processes that run a worker) brings a
 * PostgreSQL schema up to date; `check` (clients) only verifies it.
 * @throws StoreConnectionError / StoreSchemaError when a PostgreSQL store cannot be used.
 */
export async function openTranscriptStore(
  config: Config,
  log: (line: string) => void = () => undefined,
  schema: 'migrate' | 'check' = 'check',
): Promise<TranscriptStore> {
  return openConfiguredStore(config, { schema, log });
}

/**
 * The store as a client uses it: a call that cannot reach it waits for it (a notice when the
 * outage begins, every 30 s, and when it is back), for up to `store.outageTimeoutMs`, then fails
 * with `StoreUnavailableError` naming the store. The worker's activities wrap the raw store
 * themselves (their waits are bounded by each attempt's timeout).
 */
export function clientStore(
  config: Pick<Config, 'store'>,
  store: TranscriptStore,
  notice?: (line: string) => void,
): TranscriptStore {
  return waitingStore(
    store,
    new StoreOutage(store.description ?? 'transcript store', {
      timeoutMs: config.store.outageTimeoutMs,
      ...(notice ? { notice } : {}),
    }),
  );
}

/** Connects a Temporal client, turning a connect failure into {@link TemporalUnreachableError}. */
export async function connectTemporalClient(
  config: Config,
  target: { address: string; mode: ClientRuntime['mode'] },
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ connection: Connection; client: Client }> {
  // Loaded here, not at import: a server process starts its dev server before it needs a client.
  const { Client, Connection } = await import('@temporalio/client');
  // Settings that cannot work (a TLS file that cannot be read) are errors of their own, not an
  // unreachable server: a worker waits for the latter, never for the former.
  const options = targetConnectionOptions(config, target, env);
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...options, interceptors: clientInterceptors() });
  } catch (e) {
    const where =
      target.mode === 'configured'
        ? 'temporal.address / TEMPORAL_ADDRESS'
        : target.mode === 'shared'
          ? `the agent-runner server recorded in ${config.dataDir}`
          : 'the embedded dev server';
    throw new TemporalUnreachableError(
      `cannot reach Temporal at ${target.address} (${where}): ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  return { connection, client: new Client({ connection, namespace: config.temporal.namespace }) };
}

/** Options of {@link connectClient}. */
export interface ConnectClientOptions {
  config: Config;
  /** Names the command in {@link NoServerError}. @default "agent-runner" */
  command?: string;
  env?: NodeJS.ProcessEnv;
  /** Progress lines (stderr in the CLI). */
  log?: (line: string) => void;
  /** Lines the user should see even without progress (a store outage). @default log */
  notice?: (line: string) => void;
  /** Pid of a process running a private embedded server, named in {@link NoServerError}. */
  embeddedHolder?: () => number | null;
}

/**
 * Connects a client (no worker, no server started) to the configured server or the running
 * `agent-runner server`.
 * @throws NoServerError when there is neither
 * @throws TemporalUnreachableError when the server does not answer
 */
export async function connectClient(opts: ConnectClientOptions): Promise<ClientRuntime> {
  const { config } = opts;
  const env = opts.env ?? process.env;
  const target = await findServer(config);
  if (!target) {
    throw new NoServerError(opts.command ?? 'agent-runner', config.dataDir, opts.embeddedHolder?.() ?? null);
  }
  if (target.mode === 'shared') opts.log?.(`using the agent-runner server at ${target.address}`);
  const store = clientStore(config, await openTranscriptStore(config, opts.log), opts.notice ?? opts.log);
  let connected: { connection: Connection; client: Client };
  try {
    connected = await connectTemporalClient(config, target, env);
  } catch (e) {
    await store.close().catch(() => undefined);
    throw e;
  }
  const { connection, client } = connected;
  let closed = false;
  return {
    client,
    store,
    taskQueue: config.temporal.taskQueue,
    address: target.address,
    mode: target.mode,
    async close() {
      if (closed) return;
      closed = true;
      await connection.close().catch(() => undefined);
      await store.close().catch(() => undefined);
    },
  };
}

/** The data directory's transcript folder, for messages that point users at it. */
export function sessionsDir(config: Config): string {
  return join(config.dataDir, 'sessions');
}
