/**
 * Spawning the background server (`agent-runner server --background`, detached, its output in
 * `<dataDir>/server.log`): the one step of {@link ensureBackgroundServer} that `bin/agent-runner`
 * also takes itself, first thing, when it finds no server, so that the server boots while the
 * client loads its code. Only Node built-ins load here.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PRIVATE_FILE_MODE, ensurePrivateDataDir } from '../store/data-dir';

/** Where the background server writes its output: `<dataDir>/server.log`. */
export function backgroundLogPath(dataDir: string): string {
  return path.join(dataDir, 'server.log');
}

/** A spawned background server process, as far as its parent knows. */
export interface SpawnedServer {
  dataDir: string;
  exited: boolean;
  code: number | null;
}

/** Options of {@link spawnBackgroundServer}. */
export interface SpawnBackgroundServerOptions {
  dataDir: string;
  /** The config file to pass (`--config`), or null. */
  configPath: string | null;
  env: NodeJS.ProcessEnv;
  /** The `agent-runner` bin script. */
  binPath: string;
}

let earlySpawn: SpawnedServer | null = null;

/**
 * Spawns `agent-runner server --background` for the data directory, detached (it outlives this
 * process). It takes the data directory's server lock itself; a second one started at the same
 * time loses the lock and exits.
 */
export function spawnBackgroundServer(opts: SpawnBackgroundServerOptions): SpawnedServer {
  ensurePrivateDataDir(opts.dataDir);
  const args = [opts.binPath, 'server', '--background', ...(opts.configPath ? ['--config', opts.configPath] : [])];
  const fd = fs.openSync(backgroundLogPath(opts.dataDir), 'a', PRIVATE_FILE_MODE);
  const state: SpawnedServer = { dataDir: opts.dataDir, exited: false, code: null };
  try {
    const child = spawn(process.execPath, args, {
      cwd: opts.dataDir,
      detached: true,
      stdio: ['ignore', fd, fd],
      env: { ...opts.env, AGENT_RUNNER_DATA_DIR: opts.dataDir },
    });
    child.once('exit', (code) => {
      state.exited = true;
      state.code = code;
    });
    child.once('error', () => {
      state.exited = true;
      state.code = -1;
    });
    child.unref();
  } finally {
    fs.closeSync(fd);
  }
  return state;
}

/** Records the background server this process spawned before it loaded the client code. */
export function noteEarlySpawn(spawned: SpawnedServer): void {
  earlySpawn = spawned;
}

/**
 * The background server this process spawned early for `dataDir`, if any, taken: it serves one
 * start (a spare client that runs many commands must not see a later command wait for a server an
 * earlier one spawned).
 */
export function takeEarlySpawn(dataDir: string): SpawnedServer | null {
  const spawned = earlySpawn;
  if (spawned === null || spawned.dataDir !== dataDir) return null;
  earlySpawn = null;
  return spawned;
}
