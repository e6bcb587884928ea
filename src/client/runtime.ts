import { Client, Connection } from '@temporalio/client';
import type { ConnectionOptions } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { NativeConnectionOptions, Worker } from '@temporalio/worker';
import { join } from 'node:path';
import type { Config } from '../config';
import { SEARCH_ATTRIBUTES } from '../common/search-attributes';
import { openConfiguredStore } from '../store/open';
import { temporalConnectionOptions } from './temporal-connection';
import type { TranscriptStore } from '../store/transcript-store';
import type { DevServer } from '../worker/dev-server';
import { findTemporalCli, readLiveServerState, startDevServer } from '../worker/dev-server';
import { createRunnerWorker } from '../worker/worker';
import { lockEmbeddedServer } from '../worker/server-lock';
import { installRuntimeLogging } from '../worker/logging';

/** How a process reaches Temporal, and what it started to do so. */
export interface Runtime {
  client: Client;
  store: TranscriptStore;
  taskQueue: string;
  /** Where the server is (`host:port`). */
  address: string;
  /** `configured` (temporal.address), `shared` (a running `agent-runner server`), or `embedded`. */
  mode: 'configured' | 'shared' | 'embedded';
  /** The in-process worker, when this process runs one. */
  worker: Worker | null;
  devServer: DevServer | null;
  /** Stops the worker, closes connections, stops the embedded server. Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link openRuntime}. */
export interface OpenRuntimeOptions {
  config: Config;
  /** Run a worker in this process. @default true in embedded mode, false otherwise */
  worker?: boolean;
  /** Start the dev server even when a shared one is recorded. @default false */
  forceEmbedded?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Progress lines (stderr in the CLI). */
  log?: (line: string) => void;
  /** Web UI for the embedded server. @default config.devServer.ui */
  ui?: boolean;
  /** Keep the embedded server running after this process exits (`agent-runner server`). */
  keepAlive?: boolean;
  /**
   * Forward the Temporal core's own log lines to stderr (else the core prints them to stdout).
   * @default true; in-process users that do not call `process.exit` may turn it off.
   */
  forwardCoreLogs?: boolean;
  /** Log only errors of the Temporal SDK (activity retries are warnings) unless AGENT_RUNNER_LOG_LEVEL says otherwise. */
  quiet?: boolean;
}

/** Temporal SDK log level from `AGENT_RUNNER_LOG_LEVEL` (TRACE, DEBUG, INFO, WARN, ERROR). @default "WARN" */
export function runtimeLogLevel(
  env: NodeJS.ProcessEnv,
  fallback: 'WARN' | 'ERROR' = 'WARN',
): 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' {
  const v = (env['AGENT_RUNNER_LOG_LEVEL'] ?? fallback).toUpperCase();
  return v === 'TRACE' || v === 'DEBUG' || v === 'INFO' || v === 'WARN' || v === 'ERROR' ? v : fallback;
}

/** Thrown when a configured Temporal server cannot be reached. */
export class TemporalUnreachableError extends Error {
  override readonly name = 'TemporalUnreachableError';
}

/**
 * Connection options for a configured server: address, API key, TLS and gRPC headers from the
 * config and the environment (see `temporal-connection.ts`).
 * @throws TemporalConnectionConfigError for TLS settings that cannot work.
 */
export function connectionOptions(
  config: Config,
  env: NodeJS.ProcessEnv = process.env,
): ConnectionOptions & NativeConnectionOptions {
  return temporalConnectionOptions(config.temporal, env);
}

/**
 * Connects to Temporal the way the config says: a configured `temporal.address` (start nothing),
 * else a live `agent-runner server` recorded in the data directory, else an embedded dev server
 * persisted at `<dataDir>/<devServer.dbFilename>` plus an in-process worker.
 * @throws TemporalCliNotFoundError / DevServerStartError when the embedded server cannot start;
 *   connection errors when a configured server does not answer.
 */
export async function openRuntime(opts: OpenRuntimeOptions): Promise<Runtime> {
  const { config } = opts;
  const env = opts.env ?? process.env;
  installRuntimeLogging(runtimeLogLevel(env, opts.quiet ? 'ERROR' : 'WARN'), {
    forwardCoreLogs: opts.forwardCoreLogs ?? true,
  });
  const log = opts.log ?? (() => undefined);
  // Opened first: a store that cannot be reached fails before any server starts. A process that
  // runs a worker brings a PostgreSQL schema up to date; others only check it.
  const store = await openConfiguredStore(config, {
    schema: opts.worker === false || (opts.worker === undefined && config.temporal.address) ? 'check' : 'migrate',
    log,
  });
  let devServer: DevServer | null = null;
  let releaseLock: (() => void) | null = null;
  let mode: Runtime['mode'];
  let address: string;
  let connection: Connection | null = null;
  let client: Client;
  let worker: Worker | null = null;
  let nativeConnection: NativeConnection | null = null;
  let workerRun: Promise<void> | null = null;
  try {
    if (config.temporal.address) {
      mode = 'configured';
      address = config.temporal.address;
    } else {
      const shared = opts.forceEmbedded ? null : await readLiveServerState(config.dataDir);
      if (shared) {
        mode = 'shared';
        address = shared.address;
        log(`using the agent-runner server at ${address}`);
      } else {
        mode = 'embedded';
        const cliPath = findTemporalCli({ configured: config.devServer.cliPath, env });
        releaseLock = lockEmbeddedServer(config.dataDir);
        log(`starting the embedded Temporal dev server (${cliPath})`);
        devServer = await startDevServer({
          cliPath,
          dataDir: config.dataDir,
          dbFilename: config.devServer.dbFilename,
          ip: config.devServer.ip,
          port: config.devServer.port,
          uiPort: config.devServer.uiPort,
          ui: opts.ui ?? config.devServer.ui,
          namespace: config.temporal.namespace,
          searchAttributes: { ...SEARCH_ATTRIBUTES },
          logLevel: config.devServer.logLevel,
          startTimeoutMs: config.devServer.startTimeoutMs,
          ...(opts.keepAlive ? { keepAlive: true } : {}),
        });
        address = devServer.address;
        log(`Temporal dev server at ${address}${devServer.uiUrl ? `, Web UI ${devServer.uiUrl}` : ''}`);
      }
    }
    const connOpts = mode === 'configured' ? connectionOptions(config, env) : { address };
    try {
      connection = await Connection.connect(connOpts);
    } catch (e) {
      throw new TemporalUnreachableError(
        `cannot reach Temporal at ${address} (${mode === 'configured' ? 'temporal.address / TEMPORAL_ADDRESS' : mode === 'shared' ? `the agent-runner server recorded in ${config.dataDir}` : 'the embedded dev server'}): ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    client = new Client({ connection, namespace: config.temporal.namespace });
    const runWorker = opts.worker ?? mode === 'embedded';
    if (runWorker) {
      nativeConnection = await NativeConnection.connect(connOpts);
      worker = await createRunnerWorker({ connection: nativeConnection, config, store, env });
      workerRun = worker.run();
    }
  } catch (e) {
    await nativeConnection?.close().catch(() => undefined);
    await connection?.close().catch(() => undefined);
    await devServer?.stop().catch(() => undefined);
    releaseLock?.();
    await store.close().catch(() => undefined);
    throw e;
  }
  let closed = false;
  return {
    client,
    store,
    taskQueue: config.temporal.taskQueue,
    address,
    mode,
    worker,
    devServer,
    async close() {
      if (closed) return;
      closed = true;
      if (worker && worker.getState() === 'RUNNING') worker.shutdown();
      await workerRun?.catch(() => undefined);
      await nativeConnection?.close().catch(() => undefined);
      await connection?.close().catch(() => undefined);
      await devServer?.stop();
      releaseLock?.();
      await store.close();
    },
  };
}

/** The data directory's transcript folder, for messages that point users at it. */
export function sessionsDir(config: Config): string {
  return join(config.dataDir, 'sessions');
}
