/**
 * The first thing `bin/agent-runner` tries for `-p`: hand the run to a spare client process of the
 * shared server (`src/worker/spare-pool.ts`, `src/cli/spare-client.ts`) instead of loading the
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
import type { ClientFrame, RunHeader } from '../client/spare-protocol';
import { SPARE_PROTOCOL_VERSION, frameLine, frameReader, spareSocketPath } from '../client/spare-protocol';

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

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
    const st = fs.lstatSync(p);
    return st.isSocket() && (process.getuid === undefined || st.uid === process.getuid());
  } catch {
    return false;
  }
}

function packageRoot(): string {
  return fs.realpathSync(path.join(__dirname, '..', '..', '..'));
}

function envRecord(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * Runs `argv` on a spare client process, when one takes it.
 * @returns the run's exit code (its output already written to this process's stdout and stderr),
 *   or null when no spare took it (the caller then runs the command itself)
 */
export function runOnSpare(argv: readonly string[]): Promise<number | null> {
  if (!spareEligible(argv, process.env)) return Promise.resolve(null);
  const socketPath = spareSocketPath(spareDataDir(process.env, process.cwd()));
  if (socketPath === null || !ownSocket(socketPath)) return Promise.resolve(null);
  return new Promise((resolve) => {
    let started = false;
    let settled = false;
    let readingStdin = false;
    const socket = net.createConnection(socketPath);
    const send = (f: ClientFrame): void => {
      if (!socket.destroyed) socket.write(frameLine(f));
    };
    const forward: Array<[NodeJS.Signals, () => void]> = FORWARDED_SIGNALS.map((s) => [s, () => send({ t: 'sig', s })]);
    const settle = (code: number | null): void => {
      if (settled) return;
      settled = true;
      for (const [s, f] of forward) process.off(s, f);
      if (readingStdin) process.stdin.pause();
      socket.destroy();
      resolve(code);
    };
    socket.on('error', () => {
      if (started) process.stderr.write('agent-runner: lost the connection to the process running this command\n');
      settle(started ? 1 : null);
    });
    socket.on('close', () => {
      if (started && !settled) process.stderr.write('agent-runner: the process running this command ended early\n');
      settle(started ? 1 : null);
    });
    socket.on(
      'data',
      frameReader(
        (f) => {
          const frame = f as { t?: string; b?: string; code?: number };
          switch (frame.t) {
            case 'start':
              started = true;
              if ((process.env['AGENT_RUNNER_DEBUG'] ?? '').split(',').includes('spare')) {
                process.stderr.write(
                  `agent-runner: debug: running in spare client process ${String((f as { pid?: number }).pid)}\n`,
                );
              }
              for (const [s, fn] of forward) process.on(s, fn);
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
              settle(typeof frame.code === 'number' ? frame.code : 1);
              break;
          }
        },
        () => settle(started ? 1 : null),
      ),
    );
    socket.on('connect', () => {
      const header: RunHeader = {
        t: 'run',
        v: SPARE_PROTOCOL_VERSION,
        version: RUNNER_VERSION,
        root: packageRoot(),
        argv: [...argv],
        cwd: process.cwd(),
        env: envRecord(process.env),
        umask: process.umask(),
        tty: {
          stdin: tty.isatty(0),
          stdout: tty.isatty(1),
          stderr: tty.isatty(2),
        },
        columns: tty.isatty(1) ? (process.stdout.columns ?? null) : null,
      };
      send(header);
    });
  });
}
