/**
 * A spare client process: started by a shared server (`src/host/spare-pool.ts`) with the client
 * code already loaded, it waits for one run handed over by `bin/agent-runner` through the server's
 * socket, then becomes that run: the client's argv, cwd, environment, umask and terminal flags,
 * its stdout and stderr sent back as frames, its stdin read on demand, its signals forwarded. It
 * runs `main(argv)` exactly as the client would have, and exits with the run.
 *
 * It runs one run only: a run may change the process (environment, cwd, listeners, handles), so
 * no second run may inherit it. The server starts a new spare for the next run.
 */
import type { Socket } from 'node:net';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { RUNNER_VERSION } from '../common/version';
import type { RunHeader } from './spare-protocol';
import { SPARE_PROTOCOL_VERSION, frameLine, frameReader } from './spare-protocol';
import type { SpareFrame, SpareIpcMessage } from './spare-protocol';

/** What a spare runs: the CLI's `main(argv)`, given to {@link runSpare} by `src/cli/spare-entry.ts`. */
export type SpareMain = (argv: string[]) => Promise<number>;

let main: SpareMain = () => Promise.reject(new Error('runSpare() was not called'));

const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

function packageRootOf(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'package.json'))) return fs.realpathSync(d);
    if (path.dirname(d) === d) return dir;
  }
}

/** The newest modification time and the number of the compiled files under `dir`. */
function buildStamp(dir: string): string {
  let newest = 0;
  let count = 0;
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.js')) {
        count++;
        newest = Math.max(newest, fs.statSync(p).mtimeMs);
      }
    }
  };
  try {
    walk(dir);
  } catch {
    return 'unreadable';
  }
  return `${count}@${newest}`;
}

const DIST = path.join(__dirname, '..');
let loadedBuild: string | null = null;

/**
 * Why this spare's code is not the installed code any more (a rebuild or an upgrade since it
 * loaded), or null. A stale spare declines and exits; the server loads a fresh one.
 */
function staleBuild(): string | null {
  if (loadedBuild === null || buildStamp(DIST) === loadedBuild) return null;
  setImmediate(() => process.exit(0));
  return 'the installed code changed since this spare loaded';
}

/** Why this spare cannot run `h`, or null when it can. */
export function declineReason(h: RunHeader, root: string): string | null {
  if (h.v !== SPARE_PROTOCOL_VERSION) return `protocol ${String(h.v)}, not ${SPARE_PROTOCOL_VERSION}`;
  if (h.version !== RUNNER_VERSION) return `version ${h.version}, not ${RUNNER_VERSION}`;
  if (h.root !== root) return `another install (${h.root}, not ${root})`;
  try {
    if (!fs.statSync(h.cwd).isDirectory()) return `${h.cwd} is not a directory`;
  } catch {
    return `cannot reach ${h.cwd}`;
  }
  return null;
}

/** Makes this process's environment `env` (in place, so that native code sees it too). */
function replaceEnv(env: Record<string, string>): void {
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  for (const [k, v] of Object.entries(env)) process.env[k] = v;
}

/** What a clean spare looks like between runs: its listeners and live handles by kind. */
interface Baseline {
  listeners: Record<string, number>;
  resources: Record<string, number>;
}

const WATCHED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'exit', 'beforeExit', 'uncaughtException', 'unhandledRejection'];

function snapshot(): Baseline {
  const listeners: Record<string, number> = {};
  for (const e of WATCHED_EVENTS) listeners[e] = process.listenerCount(e);
  const resources: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) resources[r] = (resources[r] ?? 0) + 1;
  return { listeners, resources };
}

/**
 * What a finished run left behind in this process (a listener, a timer, a socket), or null when
 * nothing: only then may the spare take another run.
 */
export function leftovers(before: Baseline, after: Baseline): string | null {
  for (const [k, n] of Object.entries(after.listeners)) {
    if (n !== before.listeners[k]) return `${k} listeners ${String(before.listeners[k])} → ${n}`;
  }
  for (const [k, n] of Object.entries(after.resources)) {
    if (n > (before.resources[k] ?? 0)) return `${k} ${String(before.resources[k] ?? 0)} → ${n}`;
  }
  return null;
}

/** How many 10 ms waits a finished run's timers get to run out before the spare gives up on reuse. */
const SETTLE_TRIES = 150;

/** How long a connection may take to send its header and then `go`, in ms. */
const HEADER_TIMEOUT_MS = 5000;

/** Most runs one spare takes before it is replaced (bounds what a long life may accumulate). */
const MAX_RUNS = 100;

/**
 * Runs the client on `socket`, once. `done(reusable)` is called when the run is over (or was
 * declined): reusable when this process is as clean as before it.
 */
function runOn(socket: Socket, root: string, done: (reusable: boolean) => void): void {
  let header: RunHeader | null = null;
  let stdin: (Readable & { isTTY?: boolean }) | null = null;
  let restore: (() => void) | null = null;
  let ended = false;
  let tainted = false;
  let exitSent = false;
  let flushTimer: NodeJS.Timeout | undefined;
  const realExit = process.exit.bind(process);
  const baseline = snapshot();
  const send = (f: SpareFrame): void => {
    if (!socket.destroyed) socket.write(frameLine(f));
  };
  const end = (reusable: boolean): void => {
    if (ended) return;
    ended = true;
    clearTimeout(flushTimer);
    restore?.();
    socket.destroy();
    if (!reusable || tainted) {
      realExit(0);
      return;
    }
    // Let what the run closed finish closing, and its last timers (a poll's sleep) run out, then
    // compare with the baseline, outside any timer.
    const check = (triesLeft: number): void => {
      const left = leftovers(baseline, snapshot());
      if (left === null) {
        done(true);
      } else if (triesLeft > 0 && left.startsWith('Timeout')) {
        setTimeout(() => setImmediate(() => check(triesLeft - 1)), 10);
      } else {
        process.stderr.write(
          `${new Date().toISOString()} spare client ${process.pid}: the run left ${left}; exiting\n`,
        );
        realExit(0);
      }
    };
    setTimeout(() => setImmediate(() => check(SETTLE_TRIES)), 10);
  };
  const finish = (code: number, crashed = false, signal?: keyof typeof SIGNAL_EXIT): void => {
    if (ended || exitSent) return;
    tainted ||= crashed;
    exitSent = true;
    send({ t: 'exit', code, ...(signal ? { signal } : {}) });
    socket.end(() => end(true));
    flushTimer = setTimeout(() => end(true), 2000).unref();
  };
  const decline = (why: string): void => {
    if (ended) return;
    clearTimeout(headerTimer);
    ended = true;
    if (why) socket.end(frameLine({ t: 'decline', why }));
    else socket.destroy();
    done(true);
  };
  // A connection that sends no header (or no `go`) in time is dropped; the spare waits again.
  const headerTimer = setTimeout(() => {
    if (!started) decline('');
  }, HEADER_TIMEOUT_MS);
  let accepted = false;
  let started = false;
  const push = frameReader(
    (f) => {
      const frame = f as { t?: string; b?: string; s?: keyof typeof SIGNAL_EXIT };
      if (header === null) {
        if (frame.t !== 'run') {
          decline('');
          return;
        }
        header = f as RunHeader;
        const why = declineReason(header, root) ?? staleBuild();
        if (why !== null) {
          decline(why);
          return;
        }
        accepted = true;
        send({ t: 'start', pid: process.pid });
      } else if (frame.t === 'go' && accepted && !started) {
        clearTimeout(headerTimer);
        started = true;
        process.send?.({ type: 'taken' } satisfies SpareIpcMessage);
        const became = become(header, send, finish);
        stdin = became.stdin;
        restore = became.restore;
        start(header, finish);
      } else if (!started) {
        decline('');
      } else if (frame.t === 'in' && typeof frame.b === 'string') {
        stdin?.push(Buffer.from(frame.b, 'base64'));
      } else if (frame.t === 'eof') {
        stdin?.push(null);
      } else if (frame.t === 'sig' && frame.s !== undefined && frame.s in SIGNAL_EXIT) {
        tainted = true; // a signal handler may leave anything behind
        if (process.listenerCount(frame.s) > 0) process.emit(frame.s, frame.s);
        else finish(SIGNAL_EXIT[frame.s], false, frame.s);
      }
    },
    () => {
      if (!started) decline('');
      else end(false);
    },
  );
  socket.on('data', push);
  socket.on('error', () => undefined);
  // The client is gone (killed, or its terminal closed): as when a client process dies, the turn
  // goes on in Temporal; this process has nobody to report to, and its run is cut short. Gone
  // before `go`: nothing ran; wait for the next.
  socket.on('close', () => {
    if (ended) return;
    if (!started) decline('');
    else end(exitSent);
  });
  socket.resume();
}

/** Turns this process into the client described by `h`; returns its stdin and how to undo it. */
function become(
  h: RunHeader,
  send: (f: SpareFrame) => void,
  finish: (code: number, crashed?: boolean) => void,
): { stdin: Readable & { isTTY?: boolean }; restore: () => void } {
  const undo: Array<() => void> = [];
  // Between runs the spare holds no caller's directory (a busy mount) or environment (secrets).
  const home = process.cwd();
  const env = { ...process.env } as Record<string, string>;
  undo.push(() => {
    process.chdir(home);
    replaceEnv(env);
  });
  process.chdir(h.cwd);
  replaceEnv(h.env);
  process.umask(h.umask);
  process.argv = h.argv;
  for (const [stream, t, tty] of [
    [process.stdout, 'o', h.tty.stdout],
    [process.stderr, 'e', h.tty.stderr],
  ] as const) {
    const { write, isTTY, columns } = stream;
    undo.push(() => Object.assign(stream, { write, isTTY, columns }));
    const forward = (chunk: unknown, encoding?: unknown, cb?: unknown): boolean => {
      const buf =
        typeof chunk === 'string'
          ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
          : Buffer.from(chunk as Uint8Array);
      send({ t, b: buf.toString('base64') });
      const callback = typeof encoding === 'function' ? encoding : cb;
      if (typeof callback === 'function') process.nextTick(callback as () => void);
      return true;
    };
    stream.write = forward as typeof stream.write;
    Object.assign(stream, {
      isTTY: tty ? true : undefined,
      columns: tty && h.columns !== null ? h.columns : undefined,
    });
  }
  let asked = false;
  const stdin = new Readable({
    read(): void {
      if (!asked) send({ t: 'stdin' });
      asked = true;
    },
  }) as Readable & { isTTY?: boolean };
  if (h.tty.stdin) stdin.isTTY = true;
  const stdinProperty = Object.getOwnPropertyDescriptor(process, 'stdin');
  Object.defineProperty(process, 'stdin', { configurable: true, enumerable: true, get: () => stdin });
  undo.push(() => {
    if (stdinProperty) Object.defineProperty(process, 'stdin', stdinProperty);
  });
  const exit = process.exit;
  process.exit = ((code?: number | string | null) => {
    finish(typeof code === 'number' ? code : Number(code ?? process.exitCode ?? 0) || 0);
    return undefined as never;
  }) as typeof process.exit;
  undo.push(() => {
    process.exit = exit;
  });
  const crash = (e: unknown): void => {
    process.stderr.write(`${e instanceof Error && e.stack ? e.stack : String(e)}\n`);
    finish(1, true);
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  undo.push(() => {
    process.off('uncaughtException', crash);
    process.off('unhandledRejection', crash);
  });
  return { stdin, restore: () => undo.reverse().forEach((f) => f()) };
}

function start(h: RunHeader, finish: (code: number, crashed?: boolean) => void): void {
  main(h.argv).then(finish, (e: unknown) => {
    process.stderr.write(`${String(e instanceof Error && e.stack ? e.stack : e)}\n`);
    finish(1, true);
  });
}

/**
 * Entry of a spare: load, say ready, and run what the server hands over, one run at a time; after
 * a run that left the process as it found it, wait for the next (up to {@link MAX_RUNS}),
 * otherwise exit (the server starts another spare).
 */
export function runSpare(run: SpareMain): void {
  main = run;
  const root = packageRootOf(__dirname);
  loadedBuild = buildStamp(DIST);
  let busy = false;
  let runs = 0;
  process.on('message', (msg: SpareIpcMessage, handle?: unknown) => {
    if (msg.type !== 'run' || !handle) return;
    if (busy) {
      (handle as Socket).end(frameLine({ t: 'decline', why: 'busy' }));
      return;
    }
    busy = true;
    runOn(handle as Socket, root, () => {
      busy = false;
      if (!process.connected || ++runs >= MAX_RUNS) process.exit(0);
      process.send?.({ type: 'free' } satisfies SpareIpcMessage);
    });
  });
  // The server is gone: a spare that runs nothing goes too.
  process.on('disconnect', () => {
    if (!busy) process.exit(0);
  });
  process.send?.({ type: 'ready' } satisfies SpareIpcMessage);
}
