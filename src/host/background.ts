/**
 * The background server: a detached `agent-runner server --background` (dev server + worker) that
 * the first run finding no server starts, and that later and parallel runs share. It stops after
 * an idle time with no running turn and no client. This module holds both halves: starting it from
 * a client ({@link ensureBackgroundServer}, light: no worker code) and its idle watch.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import { modelProviderOf } from '../config/provider';
import { PROVIDER_ENV_NAMES } from '../config/model-credentials';
import type { ServerState, WorkerEnvFingerprint } from './server-state';
import { isPidAlive, readLiveServerState, serverTouchPath } from './server-state';
import { binPath } from './package-root';
import { EmbeddedServerBusyError, serverLockHolder } from './server-lock';

import { backgroundLogPath, takeEarlySpawn, spawnBackgroundServer } from './background-spawn';
import { AgentRunnerError } from '../common/errors';
import { clientInterceptors } from '../connection/closed-channel';

export { backgroundLogPath } from './background-spawn';

/** The worker settings a client compares with a shared server's (the API key only as a hash). */
export function workerEnvFingerprint(config: Config, env: NodeJS.ProcessEnv): WorkerEnvFingerprint {
  // The API key, and the provider with every variable its client reads (credentials, regions, endpoints).
  const provider = modelProviderOf(config.model, env);
  const parts = [config.model.apiKeyEnv, ...PROVIDER_ENV_NAMES[provider]]
    .map((name) => env[name])
    .filter((v): v is string => v !== undefined && v !== '');
  return {
    baseUrl: config.model.baseUrl,
    apiKeySha:
      parts.length > 0 || provider !== 'firstParty'
        ? createHash('sha256')
            .update(JSON.stringify([provider, ...parts]))
            .digest('hex')
            .slice(0, 12)
        : null,
  };
}

/**
 * A line for stderr when a shared server's worker calls the model with other settings than this
 * client would (another ANTHROPIC_BASE_URL or API key), or null when they agree or are unknown.
 */
export function fingerprintMismatch(state: ServerState, config: Config, env: NodeJS.ProcessEnv): string | null {
  if (!state.workerEnv) return null;
  const mine = workerEnvFingerprint(config, env);
  const diffs: string[] = [];
  if (mine.baseUrl !== state.workerEnv.baseUrl) {
    diffs.push(
      `model base URL ${state.workerEnv.baseUrl ?? '(the Anthropic API)'} instead of ${mine.baseUrl ?? '(the Anthropic API)'}`,
    );
  }
  if (mine.apiKeySha !== null && mine.apiKeySha !== state.workerEnv.apiKeySha) {
    diffs.push(`other model credentials (${config.model.apiKeyEnv}, the provider or its variables)`);
  }
  if (diffs.length === 0) return null;
  return (
    `agent-runner: note: the shared server (pid ${state.ownerPid ?? state.pid}) runs its worker with ${diffs.join(' and ')}; ` +
    'this run uses it. `agent-runner server stop` restarts it with this environment on the next run.'
  );
}

/**
 * Stops a background server whose worker was started with other model settings than `config` and
 * `env` would give, when no turn is running on it, so that the caller starts one with its own.
 * A foreground `agent-runner server` (started on purpose) is never stopped.
 * @returns true when it was stopped; false when it stays (no mismatch, foreground, or busy)
 */
export async function stopMismatchedIdleServer(
  state: ServerState,
  config: Config,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<boolean> {
  if (fingerprintMismatch(state, config, env) === null) return false;
  return stopIdleBackgroundServer(state, config, log, "this run's model settings");
}

/** Running turn workflows on a shared server, or null when it cannot be asked. */
export async function runningTurnCount(state: ServerState, config: Config): Promise<number | null> {
  const { Client, Connection } = await import('@temporalio/client');
  try {
    const connection = await Connection.connect({
      address: state.address,
      connectTimeout: 3000,
      interceptors: clientInterceptors(),
    });
    try {
      const client = new Client({ connection, namespace: config.temporal.namespace });
      return (await client.workflow.count(`WorkflowType = 'turnWorkflow' AND ExecutionStatus = 'Running'`)).count;
    } finally {
      await connection.close();
    }
  } catch {
    return null;
  }
}

/**
 * Stops the background server of `state` when no turn is running on it (a foreground
 * `agent-runner server`, started on purpose, is never stopped), saying why on `log`
 * (`restarting the idle background server (pid N) with <why>`).
 * @returns true when it was stopped; false when it stays (foreground, busy, or not answering)
 */
export async function stopIdleBackgroundServer(
  state: ServerState,
  config: Config,
  log: (line: string) => void,
  why: string,
): Promise<boolean> {
  if (state.mode !== 'background' || state.ownerPid === undefined) return false;
  if ((await runningTurnCount(state, config)) !== 0) return false;
  log(`restarting the idle background server (pid ${state.ownerPid}) with ${why}`);
  try {
    process.kill(state.ownerPid, 'SIGTERM');
  } catch {
    return true;
  }
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && (isPidAlive(state.ownerPid) || isPidAlive(state.pid))) {
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/**
 * Thrown by {@link ensureBackgroundServer} when the background server it started exited or did
 * not come up in time; the message ends with the last lines of `<dataDir>/server.log`.
 */
export class BackgroundServerStartError extends AgentRunnerError {
  override readonly name = 'BackgroundServerStartError';
  readonly kind = 'runtime';
}

/** Options of {@link ensureBackgroundServer}. */
export interface EnsureBackgroundServerOptions {
  config: Config;
  /** The config file the client read (passed to the server), or null for defaults + environment. */
  configPath: string | null;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** The `agent-runner` bin script. @default `<package>/bin/agent-runner.js` */
  binPath?: string;
  /** How long to wait for the server. @default config.devServer.startTimeoutMs + 30 s */
  timeoutMs?: number;
}

/**
 * The running background server of the data directory, started (detached) when there is none.
 * Parallel callers may each start one; all but one lose the server lock at once and exit, and
 * every caller waits for the one that runs (`server.json`).
 * @throws EmbeddedServerBusyError when a private embedded server (`-p --no-daemon`) holds the data directory
 * @throws BackgroundServerStartError when the server exits or does not come up
 */
export async function ensureBackgroundServer(opts: EnsureBackgroundServerOptions): Promise<ServerState> {
  const { config } = opts;
  const dataDir = config.dataDir;
  const timeoutMs = opts.timeoutMs ?? config.devServer.startTimeoutMs + 30_000;
  const deadline = Date.now() + timeoutMs;
  // The server `bin/agent-runner` already spawned for this run (it boots while this loads).
  let child: { exited: boolean; code: number | null } | null = takeEarlySpawn(dataDir);
  let logged = false;
  for (;;) {
    const live = await readLiveServerState(dataDir, 1000);
    if (live) return live;
    const holder = serverLockHolder(dataDir);
    if (holder?.mode === 'private') throw new EmbeddedServerBusyError(dataDir, holder.ownerPid, 'private');
    if (!holder && (child === null || child.exited)) {
      if (child?.exited && child.code !== 0) {
        throw new BackgroundServerStartError(
          `the background Temporal server exited with code ${String(child.code)} before it was ready` +
            logTail(backgroundLogPath(dataDir)),
        );
      }
      if (child === null) {
        child = spawnBackgroundServer({
          dataDir,
          configPath: opts.configPath,
          env: opts.env,
          binPath: opts.binPath ?? binPath(),
        });
      }
    }
    if (!logged) {
      opts.log(`starting the background Temporal server for ${dataDir} (log: ${backgroundLogPath(dataDir)})`);
      logged = true;
    }
    if (Date.now() > deadline) {
      throw new BackgroundServerStartError(
        `the background Temporal server did not come up within ${timeoutMs} ms` + logTail(backgroundLogPath(dataDir)),
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function logTail(file: string, lines = 20): string {
  try {
    const text = fs.readFileSync(file, 'utf8');
    const tail = text.split('\n').filter(Boolean).slice(-lines);
    return tail.length > 0 ? `\n--- last ${tail.length} lines of ${file} ---\n${tail.join('\n')}` : '';
  } catch {
    return '';
  }
}

function touchedSince(dataDir: string, since: number): boolean {
  try {
    return fs.statSync(serverTouchPath(dataDir)).mtimeMs >= since - 1000;
  } catch {
    return false;
  }
}

/** Options of {@link watchIdle}. */
export interface WatchIdleOptions {
  client: Client;
  dataDir: string;
  /** Stop after this long with no running turn and no client touch, in ms; 0 = never for idleness. */
  idleTimeoutMs: number;
  /**
   * The client process that spawned this server before loading its own code (env
   * `AGENT_RUNNER_SPAWNED_BY`): when it is gone and no client has used the server, the server
   * stops at once (that run ended early, a usage error say).
   */
  spawnedBy?: number;
  /**
   * When clients could first use this server (server.json written, before the worker loaded), in
   * ms since the epoch: a client touch since then counts as use. @default the call's time
   */
  readyAt?: number;
  /** How often to count running turns, in ms (the data directory is looked at every second). @default min(30 s, idleTimeoutMs / 4), at least 250 ms */
  intervalMs?: number;
  log: (line: string) => void;
}

/**
 * Resolves when the background server should stop: when no turn or session workflow has been
 * running ({@link BUSY_WORKFLOWS_QUERY}) and no client has touched the server for `idleTimeoutMs`, or at once when its data directory is gone
 * (a removed temporary directory must not leave a server behind).
 */
export async function watchIdle(
  opts: WatchIdleOptions,
  signal: AbortSignal,
): Promise<'idle' | 'data dir removed' | 'unused by the run that started it' | 'aborted'> {
  const interval = opts.intervalMs ?? Math.max(250, Math.min(30_000, Math.floor(opts.idleTimeoutMs / 4)));
  const tick = Math.min(1000, interval);
  const usableSince = opts.readyAt ?? Date.now();
  let spawnedBy = opts.spawnedBy;
  let lastBusy = Date.now();
  let lastCount = 0;
  while (!signal.aborted) {
    await new Promise<void>((resolve) => {
      const onAbort = (): void => {
        clearTimeout(t);
        resolve();
      };
      const t = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, tick);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    if (signal.aborted) break;
    if (!fs.existsSync(opts.dataDir)) return 'data dir removed';
    if (spawnedBy !== undefined && !isPidAlive(spawnedBy)) {
      // Used by another client (a touch since it was ready, or a turn running now): it serves
      // them and stops only when idle.
      if (touchedSince(opts.dataDir, usableSince) || (await runningTurns(opts)) !== 0) spawnedBy = undefined;
      else return 'unused by the run that started it';
    }
    if (opts.idleTimeoutMs === 0 || Date.now() - lastCount < interval) continue;
    lastCount = Date.now();
    try {
      lastBusy = Math.max(lastBusy, fs.statSync(serverTouchPath(opts.dataDir)).mtimeMs);
    } catch {
      // never touched
    }
    if ((await runningTurns(opts)) !== 0) lastBusy = Date.now();
    if (Date.now() - lastBusy >= opts.idleTimeoutMs) return 'idle';
  }
  return 'aborted';
}

/**
 * What keeps a background server up: a running turn, or a running session (a `-p` session ends
 * with its client unless it holds a pending task: a cron job, a wake-up, a background command or
 * agent, whose timers fire only while this server runs).
 */
export const BUSY_WORKFLOWS_QUERY = `ExecutionStatus = 'Running' AND (WorkflowType = 'turnWorkflow' OR WorkflowType = 'sessionWorkflow')`;

/**
 * What keeps the server busy: running turn and session workflows, plus schedules that will fire
 * (not paused, a next fire time), whose fires need this server; null (logged) when the server
 * does not answer: taken as busy.
 */
async function runningTurns(opts: WatchIdleOptions): Promise<number | null> {
  try {
    let busy = (await opts.client.workflow.count(BUSY_WORKFLOWS_QUERY)).count;
    if (busy > 0) return busy;
    for await (const s of opts.client.schedule.list()) {
      if (!s.state.paused && s.info.nextActionTimes.length > 0) busy++;
    }
    return busy;
  } catch (e) {
    opts.log(`idle check: ${e instanceof Error ? e.message : String(e)}`);
    return null;
  }
}
