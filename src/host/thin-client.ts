/**
 * The first thing `bin/agent-runner` tries for `-p`: hand the run to a spare client process of the
 * shared server (`src/host/spare-pool.ts`, `src/host/spare-client.ts`) instead of loading the
 * client code here. Only Node built-ins and the protocol load before that answer: when no spare
 * takes the run (no server, none ready, another version), the caller runs the command itself,
 * exactly as before, having lost a millisecond or two.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tty from 'node:tty';
import { RUNNER_VERSION } from '../common/version';
import type { ClientFrame, RunHeader } from './spare-protocol';
import { SPARE_PROTOCOL_VERSION, frameLine, frameReader, spareSocketPath } from './spare-protocol';

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const LONG_RUNNING = new Set(['server', 'worker', 'batch', 'store', 'workspace']);

/** Commands that only talk to a running server: quick, and on a spare even quicker. */
const CONTROL_COMMANDS = new Set(['status', 'list', 'interrupt', 'limits', 'approvals', 'pool']);

/**
 * Whether a command line may run on a spare: a `-p`/`--print` run that uses the shared server
 * (not `--no-daemon`, not env `AGENT_RUNNER_NO_DAEMON`), or a control command (`status`, `list`,
 * `interrupt`, `limits`, `approvals`, `pool`); never `--help` or `--version`.
 */
export function spareEligible(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  const args = argv.slice(2);
  const end = args.indexOf('--');
  const flags = end >= 0 ? args.slice(0, end) : args;
  if (flags.some((a) => ['--no-daemon', '--help', '-h', '--version', '-V'].includes(a))) return false;
  // Never a command that runs on (a server, a worker, a batch); a prompt with such a word runs here.
  if (flags.some((a) => LONG_RUNNING.has(a))) return false;
  if (CONTROL_COMMANDS.has(args[0] ?? '')) return true;
  if (!flags.includes('-p') && !flags.includes('--print')) return false;
  const off = env['AGENT_RUNNER_NO_DAEMON'];
  return off === undefined || off === '' || off === '0' || off.toLowerCase() === 'false';
}

/**
 * The data directory whose server to ask: env `AGENT_RUNNER_DATA_DIR` or `~/.agent-runner`. A
 * config file may name another; that is harmless: the spare runs the command with this process's
 * arguments, environment and cwd, so it reads the same config and reaches the same server.
 */
export function spareDataDir(env: NodeJS.ProcessEnv, cwd: string): string {
  const raw = env['AGENT_RUNNER_DATA_DIR'] || '~/.agent-runner';
  const home = env['HOME'] || os.homedir();
  const expanded = raw === '~' ? home : raw.startsWith('~/') ? path.join(home, raw.slice(2)) : raw;
  return path.resolve(cwd, expanded);
}

/**
 * Whether `p` is a socket this user owns: the run's environment (API keys included) goes there,
 * so a socket another user placed (in a shared data directory) is never used.
 */
export function ownSocket(p: string): boolean {
  try {
    const uid = process.getuid?.();
    const st = fs.lstatSync(p);
    if (!st.isSocket() || (uid !== undefined && st.uid !== uid)) return false;
    // Nobody else may replace it between this check and the connect: the directory is this
    // user's and not writable by others, or sticky (others cannot rename or remove our entries).
    const dir = fs.statSync(path.dirname(p));
    const othersMayWrite = (dir.mode & 0o022) !== 0 && (dir.mode & 0o1000) === 0;
    return !othersMayWrite && (uid === undefined || dir.uid === uid || (dir.mode & 0o1000) !== 0);
  } catch {
    return false;
  }
}

/**
 * What a caller whose spare died mid-command is told besides that: a `-p` run's turn runs in the
 * server's worker, not in the spare, so it goes on and can be found and followed.
 */
export function lostRunHint(argv: readonly string[]): string {
  return argv.includes('-p') || argv.includes('--print')
    ? '; a turn it started goes on in the server: `agent-runner list` shows it, `agent-runner attach <session>` follows it'
    : '';
}

function packageRoot(): string {
  return fs.realpathSync(path.join(__dirname, '..', '..', '..'));
}

function envRecord(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/** How long the client waits for a spare's first answer before it runs the command itself, in ms. */
const ANSWER_TIMEOUT_MS = 2000;

/** How a run on a spare ended: its exit code, or the signal that ended it (to raise on oneself). */
export type SpareOutcome = {
  code: number;
  signal?: NodeJS.Signals;
  /** Our stdout or stderr was closed by its reader: nothing more can be written, exit at once. */
  closedOutput?: boolean;
};

/**
 * Runs `argv` on a spare client process, when one takes it.
 * @returns how the run ended (its output already written to this process's stdout and stderr),
 *   or null when no spare took it (the caller then runs the command itself); never rejects
 */
export function runOnSpare(argv: readonly string[]): Promise<SpareOutcome | null> {
  let cwd: string;
  let socketPath: string | null;
  try {
    if (!spareEligible(argv, process.env)) return Promise.resolve(null);
    cwd = process.cwd(); // throws when the directory was removed: the command itself reports it
    socketPath = spareSocketPath(spareDataDir(process.env, cwd));
    if (socketPath === null || !ownSocket(socketPath)) return Promise.resolve(null);
  } catch {
    return Promise.resolve(null);
  }
  const path_ = socketPath;
  return new Promise((resolve) => {
    let started = false;
    let settled = false;
    let readingStdin = false;
    const socket = net.createConnection(path_);
    const send = (f: ClientFrame): void => {
      if (!socket.destroyed) socket.write(frameLine(f));
    };
    const forward: Array<[NodeJS.Signals, () => void]> = FORWARDED_SIGNALS.map((s) => [s, () => send({ t: 'sig', s })]);
    // No answer in time (a stopped or wedged spare): run it here; the spare has not started it.
    const answerTimer = setTimeout(() => settle(null), ANSWER_TIMEOUT_MS);
    // A reader that closed our output early (`| head`): end quietly, as a run in its own process.
    const onPipeError = (e: NodeJS.ErrnoException): void => {
      if (e.code === 'EPIPE') settle({ code: 0, closedOutput: true });
    };
    const settle = (outcome: SpareOutcome | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(answerTimer);
      for (const [s, f] of forward) process.off(s, f);
      if (readingStdin) process.stdin.pause();
      socket.destroy();
      resolve(outcome);
    };
    socket.on('error', () => {
      if (started) process.stderr.write('agent-runner: lost the connection to the process running this command\n');
      settle(started ? { code: 1 } : null);
    });
    socket.on('close', () => {
      if (started && !settled)
        process.stderr.write(`agent-runner: the process running this command ended early${lostRunHint(argv)}\n`);
      settle(started ? { code: 1 } : null);
    });
    socket.on(
      'data',
      frameReader(
        (f) => {
          const frame = f as { t?: string; b?: string; code?: number; signal?: NodeJS.Signals; pid?: number };
          switch (frame.t) {
            case 'start':
              if (settled) break;
              clearTimeout(answerTimer);
              started = true;
              if ((process.env['AGENT_RUNNER_DEBUG'] ?? '').split(',').includes('spare')) {
                process.stderr.write(`agent-runner: debug: running in spare client process ${String(frame.pid)}\n`);
              }
              for (const [s, fn] of forward) process.on(s, fn);
              process.stdout.on('error', onPipeError);
              process.stderr.on('error', onPipeError);
              send({ t: 'go' });
              break;
            case 'decline':
              settle(null);
              break;
            case 'o':
            case 'e':
              (frame.t === 'o' ? process.stdout : process.stderr).write(Buffer.from(frame.b ?? '', 'base64'));
              break;
            case 'stdin':
              if (readingStdin) break;
              readingStdin = true;
              process.stdin.on('data', (c: Buffer) => send({ t: 'in', b: c.toString('base64') }));
              process.stdin.on('end', () => send({ t: 'eof' }));
              process.stdin.on('error', () => send({ t: 'eof' }));
              process.stdin.resume();
              break;
            case 'exit':
              settle({
                code: typeof frame.code === 'number' ? frame.code : 1,
                ...(frame.signal ? { signal: frame.signal } : {}),
              });
              break;
          }
        },
        () => settle(started ? { code: 1 } : null),
      ),
    );
    socket.on('connect', () => {
      const header: RunHeader = {
        t: 'run',
        v: SPARE_PROTOCOL_VERSION,
        version: RUNNER_VERSION,
        root: packageRoot(),
        argv: [...argv],
        cwd,
        env: envRecord(process.env),
        umask: process.umask(),
        tty: { stdin: tty.isatty(0), stdout: tty.isatty(1), stderr: tty.isatty(2) },
        columns: tty.isatty(1) ? (process.stdout.columns ?? null) : null,
      };
      send(header);
    });
  });
}
