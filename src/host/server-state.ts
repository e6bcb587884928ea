/**
 * The shared-server state file (`<dataDir>/server.json`): where a running `agent-runner server`
 * (or background server) can be reached. Read by every client command; written by the worker
 * layer that starts the server. No dev-server or worker code is loaded here.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { PRIVATE_FILE_MODE, ensurePrivateDataDir } from '../store/data-dir';
import { z } from 'zod';
import type { RunnerIdentity } from './runner-build';

/** What `<dataDir>/server.json` records about a running shared dev server. */
export interface ServerState {
  /** `host:port` of the gRPC frontend. */
  address: string;
  /** Process id of the dev server. */
  pid: number;
  /** Web UI URL, or null when headless. */
  uiUrl: string | null;
  /** The `agent-runner server` process that runs the dev server and the worker, when recorded. */
  ownerPid?: number;
  /** `foreground` (`agent-runner server`) or `background` (started by a run). */
  mode?: 'foreground' | 'background';
  /** Idle time after which a background server stops, in ms. */
  idleTimeoutMs?: number;
  /** What the worker's model client was started with (see {@link WorkerEnvFingerprint}). */
  workerEnv?: WorkerEnvFingerprint;
  /** ISO time the server was recorded. */
  startedAt?: string;
  /** The agent-runner version and build its worker runs (absent: a version before this was recorded). */
  runner?: RunnerIdentity;
}

/**
 * The settings of a shared server's worker that a client cannot change: its model endpoint and
 * key (a hash, never the key), so that a client started with others can say so.
 */
export interface WorkerEnvFingerprint {
  baseUrl: string | null;
  /** First 12 hex digits of the SHA-256 of the API key; null when none is set. */
  apiKeySha: string | null;
}

const ServerStateFileSchema = z.object({
  v: z.literal(1),
  address: z.string().min(1),
  pid: z.number().int().positive(),
  uiUrl: z.string().nullable(),
  ownerPid: z.number().int().positive().optional(),
  mode: z.enum(['foreground', 'background']).optional(),
  idleTimeoutMs: z.number().int().nonnegative().optional(),
  workerEnv: z.object({ baseUrl: z.string().nullable(), apiKeySha: z.string().nullable() }).optional(),
  startedAt: z.string().optional(),
  runner: z.object({ version: z.string(), build: z.string().nullable() }).optional(),
});

/** Version (`v`) of the dev-server state file. */
export const SERVER_STATE_VERSION = 1;

/** Path of the dev-server state file: `<dataDir>/server.json`. */
export function serverStatePath(dataDir: string): string {
  return path.join(dataDir, 'server.json');
}

/** Records a shared server in `<dataDir>/server.json` (atomically: temp file + rename). */
export function writeServerState(dataDir: string, state: ServerState): void {
  ensurePrivateDataDir(dataDir);
  const file = serverStatePath(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  const body = { v: SERVER_STATE_VERSION, ...state, startedAt: state.startedAt ?? new Date().toISOString() };
  fs.writeFileSync(tmp, `${JSON.stringify(body, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  fs.renameSync(tmp, file);
}

/** The recorded state, without checking that it is alive; null when there is no valid file. */
export function readServerState(dataDir: string): ServerState | null {
  try {
    const result = ServerStateFileSchema.safeParse(JSON.parse(fs.readFileSync(serverStatePath(dataDir), 'utf8')));
    if (!result.success) return null;
    const d = result.data;
    return {
      address: d.address,
      pid: d.pid,
      uiUrl: d.uiUrl,
      ...(d.ownerPid !== undefined ? { ownerPid: d.ownerPid } : {}),
      ...(d.mode !== undefined ? { mode: d.mode } : {}),
      ...(d.idleTimeoutMs !== undefined ? { idleTimeoutMs: d.idleTimeoutMs } : {}),
      ...(d.workerEnv !== undefined ? { workerEnv: d.workerEnv } : {}),
      ...(d.startedAt !== undefined ? { startedAt: d.startedAt } : {}),
      ...(d.runner !== undefined ? { runner: d.runner } : {}),
    };
  } catch {
    return null;
  }
}

/**
 * The recorded shared server if it is still alive: null when there is no (valid) state file, its
 * dev server's or owner's pid is dead, or its address does not accept a TCP connection within
 * `timeoutMs`. (The file is written once the server answers, so a live process listening there is
 * that server; a full health check would cost every command a gRPC channel of its own.) Does not
 * delete a stale file (see {@link clearServerState}).
 */
export async function readLiveServerState(dataDir: string, timeoutMs = 2000): Promise<ServerState | null> {
  const state = readServerState(dataDir);
  if (!state || !isPidAlive(state.pid) || (state.ownerPid !== undefined && !isPidAlive(state.ownerPid))) return null;
  try {
    await tcpProbe(state.address, timeoutMs);
    return state;
  } catch {
    return null;
  }
}

/** Path of the file whose modification time says when a client last used the shared server. */
export function serverTouchPath(dataDir: string): string {
  return path.join(dataDir, 'server.touch');
}

/** Records that a client uses the shared server now (a background server stops only when idle). */
export function touchServer(dataDir: string): void {
  try {
    const now = new Date();
    fs.utimesSync(serverTouchPath(dataDir), now, now);
  } catch {
    try {
      fs.writeFileSync(serverTouchPath(dataDir), '', { mode: PRIVATE_FILE_MODE });
    } catch {
      // a read-only data directory: the idle timeout then counts from the last turn
    }
  }
}

/** `<dataDir>/server.last`: the address of the last server, kept after it stops. */
export function lastAddressPath(dataDir: string): string {
  return path.join(dataDir, 'server.last');
}

/**
 * The address of the last server of `dataDir` (`host:port`), kept when the server stops (unlike
 * `server.json` and the lock record), so that a restarted server takes the same port and clients
 * waiting through the restart find it where they left it; null when none was recorded.
 */
export function readLastAddress(dataDir: string): string | null {
  try {
    const text = fs.readFileSync(lastAddressPath(dataDir), 'utf8').trim();
    return /^[\w.:[\]-]+:\d+$/.test(text) ? text : null;
  } catch {
    return null;
  }
}

/** Records the current server's address in {@link lastAddressPath} (best effort). */
export function writeLastAddress(dataDir: string, address: string): void {
  try {
    fs.writeFileSync(lastAddressPath(dataDir), `${address}\n`, { mode: PRIVATE_FILE_MODE });
  } catch {
    // best effort: a restart then picks a free port
  }
}

/** Removes `<dataDir>/server.json` (no error when it is missing). */
export function clearServerState(dataDir: string): void {
  fs.rmSync(serverStatePath(dataDir), { force: true });
}

/**
 * Whether a process with this pid exists and runs (EPERM counts as alive). A zombie (exited, not
 * yet reaped: common in containers whose init does not reap, or while a parent is slow to) is
 * dead: it holds no port and does no work, although `kill(pid, 0)` still succeeds on it.
 */
export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/** Linux: the process's state in `/proc/<pid>/stat` is Z (zombie) or X (dead). Elsewhere: false. */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2).charAt(0);
  return state === 'Z' || state === 'X';
}

/** Whether a Temporal frontend at `address` accepts TCP and reports SERVING within `timeoutMs`. */
export async function serverAnswers(address: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  try {
    await tcpProbe(address, timeoutMs);
  } catch {
    return false;
  }
  const { Connection } = await import('@temporalio/client'); // loaded only when asked
  const connection = Connection.lazy({ address, connectTimeout: Math.max(1, deadline - Date.now()) });
  try {
    const health = await connection.withDeadline(deadline, () => connection.healthService.check({}));
    return health.status === 1; // SERVING
  } catch {
    return false;
  } finally {
    await connection.close();
  }
}

/** Resolves once a TCP connection to `host:port` succeeds; rejects on error or after `timeoutMs`. */
export function tcpProbe(address: string, timeoutMs: number): Promise<void> {
  const { host, port } = splitAddress(address);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(
      () => socket.destroy(new Error(`connect to ${address} timed out`)),
      Math.max(1, timeoutMs),
    );
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.end();
      socket.destroy();
      resolve();
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

function splitAddress(address: string): { host: string; port: number } {
  const i = address.lastIndexOf(':');
  const host = address.slice(0, i).replace(/^\[(.*)\]$/, '$1');
  return { host, port: Number(address.slice(i + 1)) };
}
