/**
 * `agent-runner server status` and `agent-runner server stop`: the shared server of the data
 * directory (a foreground `agent-runner server` or the background server a run started).
 */
import { resolve } from 'node:path';
import type { Config } from '../../config';
import { isPidAlive, readLiveServerState, readServerState } from '../../host/server-state';
import type { ServerState } from '../../host/server-state';
import { readServerLock, serverLockHolder } from '../../host/server-lock';
import type { ControlIo } from '../control';
import { kvTable } from '../control';
import { describeRunner, runnerDiffers, runnerIdentity } from '../../host/runner-build';
import { EXIT } from '../output';
import { clientInterceptors } from '../../connection/closed-channel';

function ago(iso: string | undefined): string {
  if (!iso) return '';
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return s < 120 ? ` (${s} s ago)` : s < 7200 ? ` (${Math.round(s / 60)} min ago)` : ` (${Math.round(s / 3600)} h ago)`;
}

async function runningTurns(config: Config, state: ServerState): Promise<number | null> {
  const { Connection, Client } = await import('@temporalio/client');
  try {
    const connection = await Connection.connect({
      address: state.address,
      connectTimeout: 2000,
      interceptors: clientInterceptors(),
    });
    try {
      const client = new Client({ connection, namespace: config.temporal.namespace });
      const r = await client.workflow.count(`WorkflowType = 'turnWorkflow' AND ExecutionStatus = 'Running'`);
      return r.count;
    } finally {
      await connection.close();
    }
  } catch {
    return null;
  }
}

/**
 * `agent-runner server status`: whether a shared server runs for the data directory, where, and
 * how busy it is. Exit 0 when one runs, 1 when none does.
 */
export async function runServerStatus(config: Config, flags: { json?: boolean }, io: ControlIo): Promise<number> {
  const live = await readLiveServerState(config.dataDir);
  const holder = serverLockHolder(config.dataDir);
  if (!live) {
    const why =
      holder?.mode === 'private'
        ? `no shared server; process ${holder.ownerPid} runs a private embedded server for its own run (--no-daemon)`
        : holder
          ? `a ${holder.mode} server is starting (pid ${holder.ownerPid})`
          : 'no agent-runner server is running';
    if (flags.json) io.stdout(JSON.stringify({ running: false, dataDir: config.dataDir, detail: why }));
    else io.stdout(`${why} for ${config.dataDir}`);
    return EXIT.error;
  }
  const turns = await runningTurns(config, live);
  if (flags.json) {
    io.stdout(
      JSON.stringify({
        running: true,
        dataDir: config.dataDir,
        runningTurns: turns,
        ...live,
        client: runnerIdentity(),
        versionMatches: !runnerDiffers(live.runner),
      }),
    );
    return EXIT.success;
  }
  const me = runnerIdentity();
  const rows: Array<[string, string]> = [
    ['server', `running (${live.mode ?? 'foreground'})`],
    [
      'version',
      `${describeRunner(live.runner)}${runnerDiffers(live.runner, me) ? ` (this client is ${describeRunner(me)}: a run restarts the server when it is idle)` : ''}`,
    ],
    ['Temporal', `${live.address} (dev server pid ${live.pid})`],
    ['Web UI', live.uiUrl ?? '- (headless)'],
    ['process', `pid ${live.ownerPid ?? '?'}, started ${live.startedAt ?? '?'}${ago(live.startedAt)}`],
    ['data dir', config.dataDir],
    ['running turns', turns === null ? '?' : String(turns)],
  ];
  if (live.mode === 'background') {
    rows.push([
      'stops',
      live.idleTimeoutMs
        ? `after ${Math.round(live.idleTimeoutMs / 1000)} s with no turn and no client`
        : 'never by itself',
    ]);
    rows.push(['log', resolve(config.dataDir, 'server.log')]);
  }
  io.stdout(kvTable(rows));
  return EXIT.success;
}

async function waitGone(pids: number[], ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (pids.every((p) => !isPidAlive(p))) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return pids.every((p) => !isPidAlive(p));
}

/**
 * `agent-runner server stop`: stops the shared server of the data directory (its worker finishes
 * or hands back running activities; running turns continue when a server runs again), or a dev
 * server a killed server left behind. A private `-p --no-daemon` server is not stopped (exit 1).
 * Stopping when nothing runs is not an error.
 */
export async function runServerStop(config: Config, io: ControlIo): Promise<number> {
  const holder = serverLockHolder(config.dataDir);
  if (holder?.mode === 'private') {
    io.stderr(
      `agent-runner: process ${holder.ownerPid} runs a private embedded server for its own run; ` +
        'interrupt that run (Ctrl-C, or kill it) instead',
    );
    return EXIT.error;
  }
  const state = readServerState(config.dataDir);
  const ownerPid = holder?.ownerPid ?? state?.ownerPid;
  let stopped = false;
  if (ownerPid !== undefined && isPidAlive(ownerPid)) {
    stopped = true;
    const devPid = holder?.devServerPid ?? state?.pid ?? null;
    process.kill(ownerPid, 'SIGTERM');
    io.stderr(`stopping the agent-runner server (pid ${ownerPid}) of ${config.dataDir}…`);
    if (!(await waitGone(devPid !== null ? [ownerPid, devPid] : [ownerPid], 30_000))) {
      process.kill(ownerPid, 'SIGKILL');
      await waitGone([ownerPid], 5000);
    }
  }
  // A dev server whose owner is gone (killed where no parent-death signal exists): stop it too.
  const lock = readServerLock(config.dataDir);
  if (lock?.devServerPid && !isPidAlive(lock.ownerPid)) {
    const { stopDevServerProcess } = await import('../../host/dev-server');
    const dbPath = config.devServer.dbFilename === null ? null : resolve(config.dataDir, config.devServer.dbFilename);
    if (isPidAlive(lock.devServerPid) && (await stopDevServerProcess(lock.devServerPid, dbPath))) {
      io.stderr(`stopped the orphaned Temporal dev server (pid ${lock.devServerPid})`);
      stopped = true;
    }
  }
  const { clearServerState } = await import('../../host/server-state');
  if (ownerPid === undefined || !isPidAlive(ownerPid)) clearServerState(config.dataDir);
  io.stdout(
    stopped
      ? `stopped the agent-runner server of ${config.dataDir}`
      : `no agent-runner server was running for ${config.dataDir}`,
  );
  return EXIT.success;
}
