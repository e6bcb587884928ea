/**
 * Process wiring for commands that may run work: connect to the configured or shared server, or
 * start an embedded Temporal dev server, and run a worker in this process when asked. Clients that
 * only start and steer turns use `src/connection/connect.ts` instead and load none of this.
 */
import * as path from 'node:path';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { Connection } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import { SEARCH_ATTRIBUTES } from '../common/search-attributes';
import type { ClientRuntime, ServerTarget } from '../connection/connect';
import { readServerState, touchServer } from './server-state';
import { resolveConfigPath } from '../config/load';
import {
  clientStore,
  connectTemporalClient,
  findServer,
  openTranscriptStore,
  targetConnectionOptions,
} from '../connection/connect';
import type { DevServer } from './dev-server';
import type { ServerLock, ServerLockMode } from './server-lock';
import { acquireServerLock } from './server-lock';
import { checkDataDir, checkModelKey } from './preflight';
import { untilReachable } from './wait-at-start';
import { StoreConnectionError } from '../store/postgres/errors';
import { isStoreUnreachable } from '../store/outage';
import { TemporalUnreachableError } from '../connection/connect';
import { ServerVersionSkewError, describeRunner, runnerDiffers, runnerIdentity } from './runner-build';

export { runtimeLogLevel } from '../worker/log-level';
export { TemporalUnreachableError, connectionOptions, sessionsDir } from '../connection/connect';

/** How a process reaches Temporal, and what it started to do so. */
export interface Runtime extends ClientRuntime {
  /** The in-process worker, when this process runs one. */
  worker: Worker | null;
  devServer: DevServer | null;
  /** Stops the worker, closes connections, stops the embedded server. Idempotent. */
  close(): Promise<void>;
  /**
   * With the background server (`daemon`): when it is gone (killed, crashed), starts it again on
   * the same address, so that a client waiting through the outage gets its server back. Throttled;
   * safe to call often. A no-op in other modes.
   */
  recover(): void;
}

/** Options of {@link openRuntime}. */
export interface OpenRuntimeOptions {
  config: Config;
  /** Run a worker in this process. @default true when this process starts a private embedded server, false otherwise */
  worker?: boolean;
  /** Start the dev server even when a shared one is recorded. @default false */
  forceEmbedded?: boolean;
  /**
   * With no server to use, start the shared background server (detached, stops when idle) and
   * use it, instead of a private embedded server in this process. @default false (the CLI's
   * `-p` and `batch` pass true unless `--no-daemon`)
   */
  daemon?: boolean;
  /** The config file `config` came from, passed to a background server it starts. @default the one loadConfig would read */
  configPath?: string | null;
  /** Who holds the server lock when this process starts a dev server. @default "private" */
  lockMode?: ServerLockMode;
  /** Ask for this gRPC port for a dev server this process starts (used when free). */
  preferredPort?: number;
  env?: NodeJS.ProcessEnv;
  /** Progress lines (stderr in the CLI). */
  log?: (line: string) => void;
  /** Lines the user should see even without progress (stderr in the CLI). @default log */
  notice?: (line: string) => void;
  /** Web UI for the embedded server. @default config.devServer.ui */
  ui?: boolean;
  /** Keep the embedded server running after this process exits. */
  keepAlive?: boolean;
  /**
   * Forward the Temporal core's own log lines to stderr (else the core prints them to stdout).
   * @default true; in-process users that do not call `process.exit` may turn it off.
   */
  forwardCoreLogs?: boolean;
  /** Log only errors of the Temporal SDK (activity retries are warnings) unless AGENT_RUNNER_LOG_LEVEL says otherwise. */
  quiet?: boolean;
  /**
   * Called once an embedded dev server this process started answers, before the worker is
   * created: `agent-runner server` records itself there, so that clients start their turns while
   * the worker loads (their workflow tasks wait on the task queue).
   */
  onDevServerReady?: (devServer: DevServer) => void;
  /**
   * Before starting a dev server or worker, check that the data directory is writable and (for a
   * worker) that the model API key is set. @default true
   */
  preflight?: boolean;
  /**
   * Wait (with a notice, without limit) for a configured Temporal server and a PostgreSQL store
   * that cannot be reached yet, instead of failing: `agent-runner worker`, which starts when they
   * answer as a running worker carries on when they come back. @default false
   */
  waitForServices?: boolean;
  /**
   * Whether the command calls the model (runs turns). One that does not (`attach`, `pool create`)
   * needs no model key and never stops or restarts a shared server, whatever its version or model
   * settings; with no server running and no key it starts a private dev server without a worker
   * (enough to read finished turns) instead of the background server. @default true
   */
  callsModel?: boolean;
}

/**
 * Connects to Temporal the way the config says: a configured `temporal.address` (start nothing),
 * else a live `agent-runner server` recorded in the data directory, else (with `daemon`) the
 * background server, started if needed, else an embedded dev server persisted at
 * `<dataDir>/<devServer.dbFilename>` plus an in-process worker. A dev server that a dead process
 * left running on the same database is adopted (or stopped when it does not answer), never run
 * beside a second one. The dev-server launcher, the native worker and the activities (with the
 * Anthropic SDK) are loaded only when this process starts a server or runs a worker.
 * @throws DataDirError / ModelKeyMissingError before anything starts (see {@link checkDataDir},
 *   {@link checkModelKey}); EmbeddedServerBusyError when another live process runs the dev server
 *   of the data directory privately; TemporalCliNotFoundError / DevServerStartError /
 *   BackgroundServerStartError when a server cannot start; TemporalUnreachableError when a
 *   configured server does not answer.
 */
export async function openRuntime(opts: OpenRuntimeOptions): Promise<Runtime> {
  const { config } = opts;
  const env = opts.env ?? process.env;
  const log = opts.log ?? (() => undefined);
  // Opened first: a store that cannot be reached fails before any server starts. A process that
  // runs a worker brings a PostgreSQL schema up to date; others only check it.
  const notice = opts.notice ?? log;
  const waitFor = <T>(what: string, unreachable: (err: unknown) => boolean, fn: () => Promise<T>): Promise<T> =>
    opts.waitForServices ? untilReachable(fn, { what, unreachable, notice }) : fn();
  const store = await waitFor(
    'the PostgreSQL transcript store',
    (err) => err instanceof StoreConnectionError && isStoreUnreachable(err.cause),
    () =>
      openTranscriptStore(
        config,
        log,
        opts.worker === false || (opts.worker === undefined && config.temporal.address) ? 'check' : 'migrate',
      ),
  );
  let devServer: DevServer | null = null;
  let lock: ServerLock | null = null;
  let mode: Runtime['mode'];
  let address: string;
  let connection: Connection | null = null;
  let client: Client;
  let worker: Worker | null = null;
  let nativeConnection: NativeConnection | null = null;
  let workerRun: Promise<void> | null = null;
  try {
    let found: ServerTarget | null = opts.forceEmbedded && !config.temporal.address ? null : await findServer(config);
    const callsModel = opts.callsModel ?? true;
    let wantDaemon = (opts.daemon ?? false) && !opts.forceEmbedded && opts.worker !== true;
    if (found?.mode === 'shared' && opts.worker !== true && opts.preflight !== false) {
      const state = readServerState(config.dataDir);
      const me = runnerIdentity();
      if (state && runnerDiffers(state.runner, me)) {
        // Another agent-runner's worker would run this turn: restart that server when it is idle
        // (and this run starts its own), else refuse. Commands that call no model only say so.
        if (!callsModel) {
          notice(
            `agent-runner: note: the shared server (pid ${state.ownerPid ?? state.pid}) runs ${describeRunner(state.runner)}; this is ${describeRunner(me)}`,
          );
        } else {
          const { stopIdleBackgroundServer, runningTurnCount } = await import('./background');
          const why = `this run's ${describeRunner(me)} (it ran ${describeRunner(state.runner)})`;
          if (wantDaemon && (await stopIdleBackgroundServer(state, config, notice, why))) found = null;
          else throw new ServerVersionSkewError(state, me, (await runningTurnCount(state, config)) !== 0);
        }
      } else if (state && wantDaemon && callsModel) {
        // A background server left by a run with other model settings (another ANTHROPIC_BASE_URL
        // or key) would serve this run with those: restart it when it is idle.
        const { fingerprintMismatch, stopMismatchedIdleServer } = await import('./background');
        if (fingerprintMismatch(state, config, env) !== null) {
          checkModelKey(config, env);
          if (await stopMismatchedIdleServer(state, config, env, log)) found = null;
        }
      }
    }
    // No model calls and no key: no background server (its worker could not call the model for a
    // turn still running); a private dev server without a worker reads finished turns.
    if (!callsModel && found === null && wantDaemon && !env[config.model.apiKeyEnv]) wantDaemon = false;
    const daemon = wantDaemon && found === null;
    const runWorker = opts.worker ?? (found === null && !daemon && callsModel);
    if (opts.preflight !== false && (runWorker || found === null)) {
      checkDataDir(config.dataDir);
      if (callsModel || runWorker) checkModelKey(config, env);
    }
    if (daemon) {
      // A missing CLI: fetched (first use) or an exit 2 here, not an error in the server's log.
      const { ensureTemporalCli } = await import('./temporal-cli');
      await ensureTemporalCli({ config, env, log: opts.notice ?? log });
      const { ensureBackgroundServer } = await import('./background');
      const state = await ensureBackgroundServer({
        config,
        configPath: opts.configPath !== undefined ? opts.configPath : resolveConfigPath({ env }),
        env,
        log,
      });
      found = { address: state.address, mode: 'shared' };
    }
    if (found) {
      ({ mode, address } = found);
      if (mode === 'shared') {
        log(`using the agent-runner server at ${address}`);
        touchServer(config.dataDir);
        const state = readServerState(config.dataDir);
        const { fingerprintMismatch } = await import('./background');
        const note = state && !runWorker && callsModel ? fingerprintMismatch(state, config, env) : null;
        if (note) (opts.notice ?? log)(note);
      }
    } else {
      mode = 'embedded';
      const { adoptOrStopOrphan, startDevServer } = await import('./dev-server');
      const { ensureTemporalCli } = await import('./temporal-cli');
      const cliPath = await ensureTemporalCli({ config, env, log: opts.notice ?? log });
      lock = await acquireServerLock(config.dataDir, opts.lockMode ?? 'private');
      const dbPath =
        config.devServer.dbFilename === null ? null : path.resolve(config.dataDir, config.devServer.dbFilename);
      const previous = lock.previous;
      if (previous?.devServerPid) {
        devServer = await adoptOrStopOrphan(
          { pid: previous.devServerPid, address: previous.address, uiUrl: previous.uiUrl },
          dbPath,
        );
        if (devServer)
          log(`adopted the Temporal dev server (pid ${devServer.pid}) that process ${previous.ownerPid} left running`);
      }
      if (!devServer) {
        log(`starting the embedded Temporal dev server (${cliPath})`);
        let spawned: () => void = () => undefined;
        const spawn = new Promise<void>((resolve) => (spawned = resolve));
        const starting = startDevServer({
          cliPath,
          dataDir: config.dataDir,
          dbFilename: config.devServer.dbFilename,
          ip: config.devServer.ip,
          port: config.devServer.port || opts.preferredPort || 0,
          uiPort:
            (opts.ui ?? config.devServer.ui)
              ? await uiPortFor(config.devServer.uiPort, config.devServer.ip, opts.notice ?? log)
              : 0,
          ui: opts.ui ?? config.devServer.ui,
          namespace: config.temporal.namespace,
          searchAttributes: { ...SEARCH_ATTRIBUTES },
          logLevel: config.devServer.logLevel,
          dynamicConfig: config.devServer.dynamicConfig,
          sqlitePragmas: config.devServer.sqlitePragmas,
          startTimeoutMs: config.devServer.startTimeoutMs,
          ...(opts.keepAlive ? { keepAlive: true } : {}),
          onSpawn: () => spawned(),
        });
        // While the server boots (its own process), load the client and worker code here (about
        // 1 s of module loading that would otherwise follow the boot).
        await Promise.race([spawn, starting.then(noop, noop)]);
        await loadModules(runWorker);
        devServer = await starting;
      }
      lock.setDevServer(devServer);
      address = devServer.address;
      log(`Temporal dev server at ${address}${devServer.uiUrl ? `, Web UI ${devServer.uiUrl}` : ''}`);
      opts.onDevServerReady?.(devServer);
    }
    if (runWorker || mode === 'embedded') {
      // After the dev server's start: loading @temporalio/worker overlaps its boot.
      const { installRuntimeLogging, runtimeLogLevel } = await import('../worker/logging');
      installRuntimeLogging(runtimeLogLevel(env, opts.quiet ? 'ERROR' : 'WARN'), {
        forwardCoreLogs: opts.forwardCoreLogs ?? true,
        metrics: { prometheusAddress: config.worker.metricsPrometheusAddress, otlpUrl: config.worker.metricsOtlpUrl },
      });
    }
    const target = { address, mode };
    ({ connection, client } = await waitFor(
      `Temporal at ${address}`,
      (err) => err instanceof TemporalUnreachableError,
      () => connectTemporalClient(config, target, env),
    ));
    if (runWorker) {
      const { NativeConnection } = await import('@temporalio/worker');
      const { createRunnerWorker } = await import('../worker/worker');
      nativeConnection = await waitFor(
        `Temporal at ${address}`,
        (err) => err instanceof Error && err.name === 'TransportError',
        () => NativeConnection.connect(targetConnectionOptions(config, target, env)),
      );
      worker = await createRunnerWorker({ connection: nativeConnection, config, store, env });
      workerRun = worker.run();
    }
  } catch (e) {
    await nativeConnection?.close().catch(() => undefined);
    await connection?.close().catch(() => undefined);
    await devServer?.stop().catch(() => undefined);
    lock?.release();
    await store.close().catch(() => undefined);
    throw e;
  }
  let closed = false;
  let recovering: Promise<unknown> | null = null;
  let lastRecover = 0;
  const recover = (): void => {
    if (mode !== 'shared' || !opts.daemon || closed || recovering || Date.now() - lastRecover < 2000) return;
    lastRecover = Date.now();
    recovering = (async () => {
      if (readServerState(config.dataDir) && (await findServer(config))) return;
      const { ensureBackgroundServer } = await import('./background');
      await ensureBackgroundServer({
        config,
        configPath: opts.configPath !== undefined ? opts.configPath : resolveConfigPath({ env }),
        env,
        log: opts.notice ?? log,
      });
    })()
      .catch((e: unknown) => (opts.notice ?? log)(`agent-runner: cannot restart the background server: ${String(e)}`))
      .finally(() => {
        recovering = null;
      });
  };
  return {
    recover,
    client,
    // The worker has the raw store (its activities wait within each attempt); this process's
    // own reads and writes wait through an outage with a notice.
    store: clientStore(config, store, opts.notice ?? log),
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
      lock?.release();
      await store.close().catch(() => undefined);
    },
  };
}

function noop(): void {}

/** Loads the Temporal client and, for a worker, the native worker and the activities (with the Anthropic SDK). */
async function loadModules(worker: boolean): Promise<void> {
  await import('@temporalio/client');
  if (!worker) return;
  await import('@temporalio/worker');
  await import('../worker/worker');
}

/** The Web UI port to ask for: the configured one (8233 by default) when it is free, else 0 (a free one). */
async function uiPortFor(port: number, ip: string, log: (line: string) => void): Promise<number> {
  if (port === 0) return 0;
  const net = await import('node:net');
  const free = await new Promise<boolean>((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ port, host: ip, exclusive: true }, () => s.close(() => resolve(true)));
  });
  if (!free) log(`the Web UI port ${port} is taken; the Web UI gets a free port`);
  return free ? port : 0;
}
