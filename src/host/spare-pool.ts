/**
 * Spare client processes of a shared server (`agent-runner server`, foreground or background):
 * node processes that have loaded the client code (`src/cli/spare-entry.ts`, which runs
 * `src/host/spare-client.ts`) and wait. A later `agent-runner -p` on this machine connects to
 * `<dataDir>/client.sock` and this pool hands the connection to a ready spare, which then runs
 * that command as the client itself would (its argv, cwd, environment, streams and signals) and
 * exits with it. The client so skips loading its own code: about 400 ms of a warm run
 * (docs/performance.md). No spare ready → the client is told so at once and runs the command
 * itself, as without a pool.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { SpareIpcMessage } from './spare-protocol';
import { frameLine, spareSocketPath } from './spare-protocol';

/** Options of {@link startSparePool}. */
export interface SparePoolOptions {
  /** The server's data directory (the socket is `<dataDir>/client.sock`). */
  dataDir: string;
  /** Spares kept ready; at least 1 (0 means: do not call this). */
  size: number;
  log: (line: string) => void;
  /** Where spares write before they take a run (the server's log). @default inherit */
  logFd?: number;
  /** The spare entry script. @default `dist/src/cli/spare-entry.js` */
  entry?: string;
  /**
   * Wait this long before loading the first spares, in ms: a server started by a run serves that
   * run's first turn meanwhile, which a spare loading beside it would slow (on two cores, by a
   * third). @default 0
   */
  delayMs?: number;
}

/** A running pool; {@link SparePool.close} stops it. */
export interface SparePool {
  /** The socket clients connect to. */
  readonly socketPath: string;
  /** Spares loaded and waiting, now. */
  ready(): number;
  /**
   * Stops accepting runs, removes the socket and stops the spares that run nothing (a spare
   * running a client's command finishes it).
   */
  close(): Promise<void>;
}

interface Spare {
  child: ChildProcess;
  state: 'loading' | 'ready' | 'handed' | 'taken';
}

/**
 * How long a run waits for a spare that is finishing the previous run, in ms, before it runs the
 * command itself (a spare settles in about 20 ms after a clean run; loading the client code takes
 * about 400 ms).
 */
const WAIT_FOR_FREE_MS = 300;

/** A spare that exits before it is ready this many times in a row stops the pool from spawning. */
const MAX_EARLY_EXITS = 3;

/**
 * Starts the pool: listens on `<dataDir>/client.sock` (mode 0600: only this user's processes may
 * hand it a run, since a spare runs the run as this user) and starts `size` spares. Call it only
 * while holding the data directory's server lock: a stale socket file is removed.
 * @returns the pool, or null when the socket path is too long for a Unix socket
 * @throws the listen error (for instance EACCES on the data directory)
 */
export async function startSparePool(opts: SparePoolOptions): Promise<SparePool | null> {
  const socketPath = spareSocketPath(opts.dataDir);
  if (socketPath === null) {
    opts.log(`no spare clients: the socket path under ${opts.dataDir} is too long for a Unix socket`);
    return null;
  }
  const entry = opts.entry ?? path.join(__dirname, '..', 'cli', 'spare-entry.js');
  const spares = new Set<Spare>();
  let closing = false;
  let earlyExits = 0;

  const spawnSpare = (): void => {
    if (closing || earlyExits >= MAX_EARLY_EXITS) return;
    const child = fork(entry, [], {
      execArgv: [],
      // Its own process group: a Ctrl-C in the terminal of a foreground server must not reach the
      // runs of other terminals.
      detached: true,
      stdio: ['ignore', opts.logFd ?? 'inherit', opts.logFd ?? 'inherit', 'ipc'],
    });
    const spare: Spare = { child, state: 'loading' };
    spares.add(spare);
    child.on('message', (m: SpareIpcMessage) => {
      if (m.type === 'ready' || m.type === 'free') {
        spare.state = 'ready';
        earlyExits = 0;
        serveWaiting(spare);
      } else if (m.type === 'taken') {
        // Busy with a run; it says `free` after a run that left it clean, or exits (and is replaced
        // then: loading a spare while a run goes on would slow that run).
        spare.state = 'taken';
      }
    });
    child.on('error', () => undefined);
    child.on('exit', (code) => {
      const was = spare.state;
      spares.delete(spare);
      if (closing) return;
      if (was === 'loading') {
        earlyExits++;
        opts.log(`a spare client exited with code ${String(code)} before it was ready`);
        if (earlyExits >= MAX_EARLY_EXITS) {
          opts.log(`no spare clients: ${MAX_EARLY_EXITS} exited before they were ready (runs load their own code)`);
          return;
        }
      }
      spawnSpare();
    });
  };

  const handTo = (spare: Spare, socket: net.Socket): void => {
    spare.state = 'handed';
    spare.child.send({ type: 'run' } satisfies SpareIpcMessage, socket, (e) => {
      if (!e) return;
      spare.state = 'ready';
      socket.end(frameLine({ t: 'decline', why: `cannot hand over: ${e.message}` }));
    });
  };
  // Runs waiting a moment for a spare that is finishing a run (back-to-back commands in a script).
  const waiting: Array<{ socket: net.Socket; timer: NodeJS.Timeout }> = [];
  const serveWaiting = (spare: Spare): void => {
    const next = waiting.shift();
    if (!next) return;
    clearTimeout(next.timer);
    handTo(spare, next.socket);
  };

  const server = net.createServer({ pauseOnConnect: true }, (socket) => {
    const spare = [...spares].find((s) => s.state === 'ready');
    if (spare) {
      handTo(spare, socket);
      return;
    }
    if (![...spares].some((s) => s.state === 'taken' || s.state === 'handed')) {
      socket.end(frameLine({ t: 'decline', why: 'no spare client is ready' }));
      return;
    }
    const entry = {
      socket,
      timer: setTimeout(() => {
        waiting.splice(waiting.indexOf(entry), 1);
        socket.end(frameLine({ t: 'decline', why: 'no spare client became free in time' }));
      }, WAIT_FOR_FREE_MS),
    };
    waiting.push(entry);
  });
  server.on('error', (e) => opts.log(`spare clients: ${e.message}`));
  fs.rmSync(socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    // Created 0600: a spare runs what it is handed as this user.
    const umask = process.umask(0o177);
    server.once('error', reject);
    try {
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      process.umask(umask);
    }
  });
  const first = setTimeout(() => {
    for (let i = 0; i < opts.size; i++) spawnSpare();
  }, opts.delayMs ?? 0);
  first.unref();

  return {
    socketPath,
    ready: () => [...spares].filter((s) => s.state === 'ready').length,
    close: async () => {
      closing = true;
      clearTimeout(first);
      for (const w of waiting.splice(0)) {
        clearTimeout(w.timer);
        w.socket.end(frameLine({ t: 'decline', why: 'the server is stopping' }));
      }
      // Stops listening at once (not awaited: the connections handed to spares are theirs).
      server.close();
      fs.rmSync(socketPath, { force: true });
      for (const s of spares) {
        // A spare running a client's command finishes it (it exits when the run ends).
        if (s.state === 'taken') {
          s.child.disconnect();
          s.child.unref();
        } else s.child.kill('SIGTERM');
      }
    },
  };
}
