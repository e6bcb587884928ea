/**
 * Shared pieces of the fault suite: worker child processes, waiting, a seeded random source and
 * the transcript assertion.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SDKMessage } from '../../../src/common/sdk-messages';
import { checkTranscript } from './transcript-check';
import type { CheckOptions, TranscriptReport } from './transcript-check';

const CHILD = join(__dirname, 'worker-child.js');

/** A worker child process (see worker-child.js). */
export interface ChildWorker {
  proc: ChildProcess;
  pid: number;
  /** What it printed on stderr so far. */
  stderr(): string;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  /** kill -9, and wait for the exit. */
  kill9(): Promise<void>;
  /** SIGTERM (graceful), and wait for the exit. */
  stop(): Promise<void>;
}

/** Options of {@link startChildWorker}. */
export interface ChildWorkerOptions {
  /** Sticky-queue schedule-to-start timeout of the worker, ms. @default 1000 */
  stickyMs?: number;
  /** RLIMIT_FSIZE of the process, in KiB (`ulimit -f`): writes past it fail with EFBIG. */
  fileSizeLimitKb?: number;
  timeoutMs?: number;
}

/** Starts the runner's worker as a child process; resolves once it polls. */
export async function startChildWorker(env: NodeJS.ProcessEnv, opts: ChildWorkerOptions = {}): Promise<ChildWorker> {
  const childEnv = { ...env, FAULT_STICKY_MS: String(opts.stickyMs ?? 1000) };
  const proc =
    opts.fileSizeLimitKb === undefined
      ? spawn(process.execPath, [CHILD], { env: childEnv, stdio: ['ignore', 'ignore', 'pipe'] })
      : spawn('bash', ['-c', `ulimit -f ${opts.fileSizeLimitKb} && exec "$0" "$1"`, process.execPath, CHILD], {
          env: childEnv,
          stdio: ['ignore', 'ignore', 'pipe'],
        });
  let err = '';
  proc.stderr?.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const timeoutMs = opts.timeoutMs ?? 60_000;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start in ${timeoutMs} ms:\n${err}`)), timeoutMs);
    const check = (): void => {
      if (err.includes('worker polling')) {
        clearTimeout(timer);
        resolve();
      }
    };
    proc.stderr?.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} before polling:\n${err}`));
    });
  });
  return {
    proc,
    pid: proc.pid ?? -1,
    stderr: () => err,
    exited,
    async kill9() {
      proc.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** Polls `cond` every 25 ms until it holds. */
export async function waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/** Drains a message stream. */
export async function collect(gen: AsyncGenerator<SDKMessage>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const m of gen) out.push(m);
  return out;
}

/** mulberry32: a small seeded PRNG returning floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Checks the session's transcript file and fails the test with every problem found. */
export function expectIntactTranscript(dataDir: string, sessionId: string, opts: CheckOptions = {}): TranscriptReport {
  const report = checkTranscript(dataDir, sessionId, opts);
  if (report.problems.length > 0) {
    throw new Error(`transcript of ${sessionId} is not intact:\n  - ${report.problems.join('\n  - ')}`);
  }
  return report;
}
