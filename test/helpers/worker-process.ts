import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const BIN = join(__dirname, '..', '..', 'bin', 'agent-runner.js');

export interface WorkerProcess {
  proc: ChildProcess;
  /** Everything the process printed on stderr so far. */
  stderr(): string;
  /** kill -9, and wait for the exit. */
  kill9(): Promise<void>;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<void>;
}

/** Starts `agent-runner worker` (the built CLI) as a separate process; resolves once it polls. */
export async function startWorkerProcess(env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<WorkerProcess> {
  const proc = spawn(process.execPath, [BIN, 'worker'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr?.on('data', (c: Buffer) => {
    err += c.toString();
  });
  proc.stdout?.resume();
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start in ${timeoutMs} ms:\n${err}`)), timeoutMs);
    const check = (): void => {
      if (err.includes('worker polling')) {
        clearTimeout(timer);
        resolve();
      }
    };
    proc.stderr?.on('data', check);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} before polling:\n${err}`));
    });
  });
  return {
    proc,
    stderr: () => err,
    async kill9() {
      proc.kill('SIGKILL');
      await exited;
    },
    async stop() {
      proc.kill('SIGTERM');
      await exited;
    },
  };
}
