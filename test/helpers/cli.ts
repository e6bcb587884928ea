import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const BIN = join(__dirname, '..', '..', 'bin', 'agent-runner.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `agent-runner` with args; stdin is closed unless `input` is given. */
export function runCli(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string; timeoutMs?: number } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: opts.env ?? process.env,
      cwd: opts.cwd ?? process.cwd(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`agent-runner ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 120_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}

/** A running `agent-runner` started by {@link startCli}. */
export interface StartedCli {
  child: ChildProcess;
  /** Output so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when the process exits: its code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts the built `agent-runner` with args and collects its output, for tests that act on the
 * process while it runs (signals, kills). stdin is ignored unless `stdin: 'pipe'`.
 */
export function startCli(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; stdin?: 'pipe' | 'ignore' } = {},
): StartedCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: opts.env ?? process.env,
    cwd: opts.cwd ?? process.cwd(),
    stdio: [opts.stdin ?? 'ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}
