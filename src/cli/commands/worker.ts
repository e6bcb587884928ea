import type { Config } from '../../config';
import { openRuntime } from '../../host/runtime';
import type { Runtime } from '../../host/runtime';
import { UsageError } from '../usage-error';
import type { SparePool } from '../../host/spare-pool';

/** Flags of `agent-runner worker`: Worker Versioning settings over the config's `worker` section. */
export interface WorkerFlags {
  /** `worker.deploymentName`. */
  deploymentName?: string;
  /** `worker.buildId`. */
  buildId?: string;
  /** `worker.defaultVersioningBehavior`. */
  versioningBehavior?: Config['worker']['defaultVersioningBehavior'];
}

/** The config with the flags' versioning settings over the file's and the environment's. */
export function withVersioningFlags(config: Config, flags: WorkerFlags): Config {
  return {
    ...config,
    worker: {
      ...config.worker,
      ...(flags.deploymentName !== undefined ? { deploymentName: flags.deploymentName } : {}),
      ...(flags.buildId !== undefined ? { buildId: flags.buildId } : {}),
      ...(flags.versioningBehavior !== undefined ? { defaultVersioningBehavior: flags.versioningBehavior } : {}),
    },
  };
}

/**
 * `agent-runner worker`: runs a worker for a configured server (`temporal.address` or a running
 * `agent-runner server`) until SIGINT/SIGTERM, then shuts down gracefully.
 */
export async function runWorker(config: Config, log: (l: string) => void): Promise<number> {
  // Temporal or the store down at start: the worker waits for them (as a running worker does).
  const rt = await openRuntime({ config, worker: true, log, notice: log, waitForServices: true });
  if (rt.mode === 'embedded') {
    await rt.close();
    throw new UsageError(
      'agent-runner worker needs a server: set temporal.address (or TEMPORAL_ADDRESS), or start `agent-runner server`',
    );
  }
  log(
    `worker polling task queue "${rt.taskQueue}" at ${rt.address} (namespace ${config.temporal.namespace}); Ctrl-C to stop`,
  );
  await waitForStop(log, new AbortController().signal);
  await rt.close();
  return 0;
}

/** How long a background server serves the run that started it before loading spare clients, in ms. */
const SPARE_DELAY_MS = 3000;

/** Options of {@link runServer}. */
export interface ServerFlags {
  ui: boolean;
  /** Run as the background server (started by a run; stops when idle). */
  background?: boolean;
}

/**
 * `agent-runner server`: the embedded dev server (persisted under the data directory) plus a
 * worker, in the foreground; other `agent-runner` commands on this machine use it. With
 * `--background` (how a run starts the shared background server): output to `<dataDir>/server.log`,
 * and it stops by itself after `devServer.idleTimeoutMs` with no running turn and no client, or
 * when its data directory is removed.
 */
export async function runServer(config: Config, log: (l: string) => void, flags: ServerFlags): Promise<number> {
  const { writeServerState, clearServerState, readServerState, readLastAddress, writeLastAddress } =
    await import('../../host/server-state');
  const { EmbeddedServerBusyError } = await import('../../host/server-lock');
  const background = flags.background === true;
  // The run that spawned this server before loading its code (bin/agent-runner).
  const spawnedBy = Number(process.env['AGENT_RUNNER_SPAWNED_BY']) || undefined;
  delete process.env['AGENT_RUNNER_SPAWNED_BY'];
  const stamp = (l: string): void => log(background ? `${new Date().toISOString()} ${l}` : l);
  // The last address, from server.json, the lock record (after a crash) or server.last (after
  // `server stop`, which removes the other two): clients waiting through the restart reconnect to
  // the same address.
  const { readServerLock } = await import('../../host/server-lock');
  const previousAddress =
    readServerState(config.dataDir)?.address ??
    readServerLock(config.dataDir)?.address ??
    readLastAddress(config.dataDir) ??
    null;
  const previousPort = previousAddress ? Number(previousAddress.slice(previousAddress.lastIndexOf(':') + 1)) : 0;
  const { workerEnvFingerprint } = await import('../../host/background');
  const { runnerIdentity } = await import('../../host/runner-build');
  // Recorded as soon as the dev server answers: clients start their turns while the worker loads
  // (their workflow tasks wait on the task queue until it polls).
  let readyAt: number | undefined;
  const record = (devServer: NonNullable<Runtime['devServer']>): void => {
    readyAt = Date.now();
    writeLastAddress(config.dataDir, devServer.address);
    writeServerState(config.dataDir, {
      address: devServer.address,
      pid: devServer.pid,
      uiUrl: devServer.uiUrl,
      ownerPid: process.pid,
      mode: background ? 'background' : 'foreground',
      ...(background ? { idleTimeoutMs: config.devServer.idleTimeoutMs } : {}),
      workerEnv: workerEnvFingerprint(config, process.env),
      runner: runnerIdentity(),
    });
  };
  let rt: Runtime;
  try {
    rt = await openRuntime({
      config,
      worker: true,
      forceEmbedded: true,
      lockMode: background ? 'background' : 'foreground',
      ...(previousPort > 0 && (await portIsFree(config.devServer.ip, previousPort))
        ? { preferredPort: previousPort }
        : {}),
      log: stamp,
      ui: flags.ui,
      onDevServerReady: record,
    });
  } catch (e) {
    if (readServerState(config.dataDir)?.ownerPid === process.pid) clearServerState(config.dataDir);
    if (background && e instanceof EmbeddedServerBusyError && e.mode !== 'private') {
      stamp(`another server process (pid ${e.pid}, ${e.mode ?? 'starting'}) holds ${config.dataDir}; exiting`);
      return 0;
    }
    throw e;
  }
  if (!rt.devServer) throw new Error('the embedded server did not start');
  if (readServerState(config.dataDir)?.ownerPid !== process.pid) record(rt.devServer);
  stamp(
    `agent-runner server ready: Temporal at ${rt.address}${rt.devServer.uiUrl ? `, Web UI ${rt.devServer.uiUrl}` : ''}`,
  );
  let spares: SparePool | null = null;
  if (config.devServer.spareClients > 0) {
    const { startSparePool } = await import('../../host/spare-pool');
    try {
      spares = await startSparePool({
        dataDir: config.dataDir,
        size: config.devServer.spareClients,
        log: stamp,
        // A background server was started by a run whose first turn comes now.
        delayMs: background ? SPARE_DELAY_MS : 0,
      });
    } catch (e) {
      stamp(`no spare clients: ${e instanceof Error ? e.message : String(e)} (runs load their own code)`);
    }
  }
  const stop = new AbortController();
  if (background) {
    stamp(`data directory ${config.dataDir}; stops after ${config.devServer.idleTimeoutMs} ms idle`);
    const { watchIdle } = await import('../../host/background');
    void watchIdle(
      {
        client: rt.client,
        dataDir: config.dataDir,
        idleTimeoutMs: config.devServer.idleTimeoutMs,
        log: stamp,
        ...(spawnedBy ? { spawnedBy } : {}),
        ...(readyAt !== undefined ? { readyAt } : {}),
      },
      stop.signal,
    ).then((why) => {
      if (why !== 'aborted') {
        stamp(`${why}: shutting down`);
        stop.abort();
      }
    });
  } else {
    stamp(`data directory ${config.dataDir}; Ctrl-C to stop`);
  }
  await waitForStop(stamp, stop.signal);
  stop.abort();
  await spares?.close();
  if (readServerState(config.dataDir)?.ownerPid === process.pid) clearServerState(config.dataDir);
  await rt.close();
  stamp('stopped');
  return 0;
}

async function portIsFree(ip: string, port: number): Promise<boolean> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ port, host: ip, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** Resolves on SIGINT, SIGTERM or `signal`'s abort. */
function waitForStop(log: (l: string) => void, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve();
    };
    const stop = (sig: string): void => {
      log(`${sig}: shutting down`);
      done();
    };
    const onInt = (): void => stop('SIGINT');
    const onTerm = (): void => stop('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    if (signal.aborted) done();
    else signal.addEventListener('abort', done);
  });
}
