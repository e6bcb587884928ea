/**
 * The server lock of a data directory: at most one process at a time runs a dev server on its
 * SQLite file. The process that holds it (a private embedded `-p`, `agent-runner server`, or the
 * background server) records in `<dataDir>/embedded-server.lock` its own pid, its dev server's pid
 * and address, so that the next holder can adopt or stop a dev server its dead predecessor left.
 *
 * The mutex itself: on Linux, a listening socket in the abstract namespace named after the data
 * directory. The kernel releases it when the holder dies (even by `kill -9`), and taking it is
 * atomic, so two processes can never both hold it and no stale lock needs breaking. Elsewhere,
 * the lock file is created with O_EXCL and a file whose holder is dead is taken over (a small race
 * between two processes taking over the same stale file remains there).
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, realpathSync, renameSync, rmSync, writeSync } from 'node:fs';
import { PRIVATE_FILE_MODE, ensurePrivateDataDir } from '../store/data-dir';
import * as net from 'node:net';
import { join } from 'node:path';
import { z } from 'zod';
import { isPidAlive } from './server-state';
import { AgentRunnerError } from '../common/errors';

/** Who holds the lock: a `-p --no-daemon` run, `agent-runner server`, or the background server. */
export type ServerLockMode = 'private' | 'foreground' | 'background';

/** What the lock file records. */
export interface ServerLockInfo {
  /** The process holding the lock. */
  ownerPid: number;
  mode: ServerLockMode;
  /** The dev server it runs, once started. */
  devServerPid: number | null;
  /** `host:port` of that dev server, once started. */
  address: string | null;
  uiUrl: string | null;
  startedAt: string;
}

const LockFileSchema = z.object({
  v: z.literal(1),
  ownerPid: z.number().int().positive(),
  mode: z.enum(['private', 'foreground', 'background']),
  devServerPid: z.number().int().positive().nullable(),
  address: z.string().nullable(),
  uiUrl: z.string().nullable(),
  startedAt: z.string(),
});

/** Thrown when another live process holds the server lock of the data directory. */
export class EmbeddedServerBusyError extends AgentRunnerError {
  override readonly name = 'EmbeddedServerBusyError';
  readonly kind = 'usage';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
    readonly mode: ServerLockMode | null = 'private',
  ) {
    super(
      mode === 'private'
        ? `another agent-runner process (pid ${pid}) runs a private embedded Temporal server on ${dataDir} (--no-daemon). ` +
            'Wait for it to end, run without --no-daemon once it has (runs then share one background server), ' +
            'or give this run its own AGENT_RUNNER_DATA_DIR.'
        : `agent-runner process ${pid} runs the Temporal server of ${dataDir} (${mode ?? 'unknown'}); ` +
            'this process cannot start another one on the same database.',
    );
  }
}

/** Path of the lock file: `<dataDir>/embedded-server.lock`. */
export function serverLockPath(dataDir: string): string {
  return join(dataDir, 'embedded-server.lock');
}

/**
 * The lock file's record (an old file holding a bare pid reads as a private holder), or null when
 * there is none or it is unreadable. Says nothing about whether its owner is alive.
 */
export function readServerLock(dataDir: string): ServerLockInfo | null {
  let text: string;
  try {
    text = readFileSync(serverLockPath(dataDir), 'utf8').trim();
  } catch {
    return null;
  }
  if (/^\d+$/.test(text)) {
    return { ownerPid: Number(text), mode: 'private', devServerPid: null, address: null, uiUrl: null, startedAt: '' };
  }
  try {
    const parsed = LockFileSchema.safeParse(JSON.parse(text));
    if (!parsed.success) return null;
    const info: ServerLockInfo & { v?: number } = { ...parsed.data };
    delete info.v;
    return info;
  } catch {
    return null;
  }
}

/** Version of the lock file's format. */
export const SERVER_LOCK_VERSION = 1;

function writeLockFile(dataDir: string, info: ServerLockInfo): void {
  const file = serverLockPath(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', PRIVATE_FILE_MODE);
  try {
    writeSync(fd, `${JSON.stringify({ v: SERVER_LOCK_VERSION, ...info })}\n`);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/** A held server lock. */
export interface ServerLock {
  /**
   * What the previous holder left: its record, when its dev server may still be running
   * (its owner is dead). The new holder adopts or stops that dev server before starting one.
   */
  readonly previous: ServerLockInfo | null;
  /** Records the dev server this holder started (or adopted). */
  setDevServer(devServer: { pid: number; address: string; uiUrl: string | null }): void;
  /** Releases the lock and removes the file. Idempotent. */
  release(): void;
}

/** Name of the Linux abstract socket that is the mutex of `dataDir`. */
function mutexName(dataDir: string): string {
  let real = dataDir;
  try {
    real = realpathSync(dataDir);
  } catch {
    // not created yet: the given path
  }
  return `\0durable-agent-runner:${createHash('sha256').update(real).digest('hex').slice(0, 40)}`;
}

/** Takes the abstract-socket mutex; resolves with the listening server, or null when it is taken. */
function takeMutex(dataDir: string): Promise<net.Server | null> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => socket.destroy());
    server.once('error', (e: NodeJS.ErrnoException) => (e.code === 'EADDRINUSE' ? resolve(null) : reject(e)));
    server.listen({ path: mutexName(dataDir) }, () => {
      server.unref();
      resolve(server);
    });
  });
}

/**
 * How long a taken mutex whose recorded owner is dead (gone or a zombie) is looked at again before
 * giving up, in ms: the kernel releases a killed process's socket shortly after the process is
 * seen to be dead, not at the same instant. (Measured: up to ~150 ms on a loaded 2-core machine.)
 */
const DEAD_HOLDER_SETTLE_MS = 3000;

/** Whether `pid` is a live process that is not a zombie (Linux /proc; a zombie has closed its files or is closing them). */
function isPidRunning(pid: number): boolean {
  if (!isPidAlive(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false; // gone between the two looks
  }
}

/**
 * Takes the server lock of `dataDir` for this process. When the recorded holder has just died,
 * waits up to {@link DEAD_HOLDER_SETTLE_MS} for the kernel to release its mutex.
 * @throws EmbeddedServerBusyError when a live process holds it (naming that process and its mode)
 */
export async function acquireServerLock(dataDir: string, mode: ServerLockMode): Promise<ServerLock> {
  ensurePrivateDataDir(dataDir);
  const file = serverLockPath(dataDir);
  let mutex: net.Server | null = null;
  let previous: ServerLockInfo | null;
  if (process.platform === 'linux') {
    const settle = Date.now() + DEAD_HOLDER_SETTLE_MS;
    let current: ServerLockInfo | null;
    for (;;) {
      mutex = await takeMutex(dataDir);
      current = readServerLock(dataDir);
      if (mutex !== null) break;
      // Taken. A holder that has just died may still hold the socket for a moment: the kernel
      // closes a dead process's files asynchronously (it may already be a zombie, or reaped).
      // Only then is it worth looking again; a live holder is reported at once.
      const holderGone = current !== null && current.ownerPid !== process.pid && !isPidRunning(current.ownerPid);
      if (!holderGone || Date.now() >= settle) {
        throw new EmbeddedServerBusyError(dataDir, current?.ownerPid ?? 0, current?.mode ?? null);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    previous = current;
  } else {
    previous = takeLockFileExclusively(dataDir, file);
  }
  const info: ServerLockInfo = {
    ownerPid: process.pid,
    mode,
    devServerPid: null,
    address: null,
    uiUrl: null,
    startedAt: new Date().toISOString(),
  };
  writeLockFile(dataDir, info);
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.off('exit', release);
    const now = readServerLock(dataDir);
    if (now?.ownerPid === process.pid) rmSync(file, { force: true });
    mutex?.close();
  };
  process.on('exit', release);
  return {
    previous: previous && previous.ownerPid !== process.pid && previous.devServerPid !== null ? previous : null,
    setDevServer(d) {
      Object.assign(info, { devServerPid: d.pid, address: d.address, uiUrl: d.uiUrl });
      writeLockFile(dataDir, info);
    },
    release,
  };
}

/** The O_EXCL lock file (platforms without abstract sockets); returns the stale record it replaced. */
function takeLockFileExclusively(dataDir: string, file: string): ServerLockInfo | null {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      closeSync(openSync(file, 'wx', PRIVATE_FILE_MODE));
      return null;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const held = readServerLock(dataDir);
      if (held && held.ownerPid !== process.pid && isPidAlive(held.ownerPid)) {
        throw new EmbeddedServerBusyError(dataDir, held.ownerPid, held.mode);
      }
      rmSync(file, { force: true }); // stale: its process is gone
      if (held) {
        try {
          closeSync(openSync(file, 'wx', PRIVATE_FILE_MODE));
          return held;
        } catch {
          // another process took it first: look again
        }
      }
    }
  }
  throw new Error(`could not take the server lock ${file}`);
}

/**
 * The live holder of the data directory's server lock, or null when none is alive.
 */
export function serverLockHolder(dataDir: string): ServerLockInfo | null {
  const info = readServerLock(dataDir);
  return info && info.ownerPid !== process.pid && isPidAlive(info.ownerPid) ? info : null;
}

/**
 * Pid of the live process that runs a private embedded dev server on `dataDir` (an
 * `agent-runner -p --no-daemon`), or null when none does.
 */
export function embeddedServerHolder(dataDir: string): number | null {
  const holder = serverLockHolder(dataDir);
  return holder && holder.mode === 'private' ? holder.ownerPid : null;
}
