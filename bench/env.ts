/**
 * What the benchmarks share: one tuned, file-backed Temporal dev server per run, runner set-ups (fake
 * model server, data directory, store, client, worker in this process or as `agent-runner worker`
 * child processes) and turn helpers.
 */
import { turnOutcome } from '../src/client/turn-outcome';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Worker } from '@temporalio/worker';
import { QueryEngine } from '../src/client/query-engine';
import { SEARCH_ATTRIBUTES } from '../src/common/search-attributes';
import type { TurnOptions, TurnOutcome } from '../src/common/turn';
import { loadConfig } from '../src/config';
import type { Config } from '../src/config';
import { startFakeModelServer } from '../src/fake-model';
import type { FakeModelServer, FakeModelServerOptions } from '../src/fake-model';
import { JsonlTranscriptStore } from '../src/store/jsonl-store';
import { PostgresTranscriptStore } from '../src/store/postgres/postgres-store';
import type { TranscriptStore } from '../src/store/transcript-store';
import { findTemporalCli, startDevServer } from '../src/host/dev-server';
import type { DevServer } from '../src/host/dev-server';
import { installRuntimeLogging } from '../src/worker/logging';
import { createRunnerWorker } from '../src/worker/worker';

/** The project root (bench/ compiles to dist/bench/). */
export const PROJECT_ROOT = join(__dirname, '..', '..');

/** Progress lines go to stderr: stdout carries only tables and the JSON line. */
export function progress(line: string): void {
  process.stderr.write(`[bench] ${line}\n`);
}

/**
 * Server settings of a benchmark dev server: `tuned` is what every dev server of the project gets
 * (`DEV_SERVER_DYNAMIC_CONFIG`, `DEV_SERVER_SQLITE_PRAGMAS`); `default` is the Temporal CLI's own
 * defaults (transfer-queue poll rate 20/s, SQLite rollback journal with full sync), for comparison.
 */
export type BenchServerTuning = 'tuned' | 'default';

/**
 * Starts a dev server for the benchmarks, on a SQLite file like the embedded server's (the
 * database is part of every step's cost).
 */
export async function startBenchServer(tuning: BenchServerTuning = 'tuned'): Promise<DevServer> {
  installRuntimeLogging('ERROR');
  return startDevServer({
    cliPath: findTemporalCli(),
    dataDir: mkdtempSync(join(tmpdir(), 'dar-bench-temporal-')),
    dbFilename: 'temporal.db',
    searchAttributes: { ...SEARCH_ATTRIBUTES },
    logLevel: 'error',
    ...(tuning === 'default'
      ? {
          dynamicConfig: { 'history.transferProcessorMaxPollRPS': 20 },
          sqlitePragmas: { journal_mode: 'delete', synchronous: 'full' },
        }
      : {}),
  });
}

/** Turn options of the benchmarks: all tools allowed, the given activity timeouts. */
export function benchTurnOptions(overrides: Partial<TurnOptions> = {}): TurnOptions {
  return {
    model: 'claude-sonnet-5-5',
    maxTokens: 1024,
    limits: {},
    permissionMode: 'bypassPermissions',
    timeouts: { modelHeartbeatMs: 5000, toolHeartbeatMs: 5000 },
    ...overrides,
  };
}

/** A temporary directory with the given files (path → content). */
export function makeRepo(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dar-bench-repo-'));
  for (const [rel, content] of Object.entries(files)) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
  return dir;
}

/** A runner against the run's dev server. */
export interface BenchRunner {
  fake: FakeModelServer;
  client: Client;
  store: TranscriptStore;
  config: Config;
  dataDir: string;
  taskQueue: string;
  /** Environment of an `agent-runner worker` process for this runner. */
  workerEnv: NodeJS.ProcessEnv;
  /** The in-process worker, when one was asked for. */
  worker: Worker | null;
  engine(cwd: string): QueryEngine;
  /** Starts a turn in a new session and resolves with its outcome (no streaming). */
  runTurn(
    cwd: string,
    prompt: string,
    options?: Partial<TurnOptions>,
  ): Promise<{ outcome: TurnOutcome; engine: QueryEngine; turnWorkflowId: string }>;
  close(): Promise<void>;
}

/** Options of {@link startRunner}. */
export interface BenchRunnerOptions {
  address: string;
  fake: FakeModelServerOptions;
  /** Run a worker in this process. @default true */
  inProcessWorker?: boolean;
  /** Overrides of `config.worker`. */
  workerTuning?: Partial<Config['worker']>;
  /** Claude config directory whose CLAUDE.md is the user's memory. @default none read */
  userConfigDir?: string;
  /** A PostgreSQL store URL (also given to worker processes); default: JSONL files in a temp dir. */
  storeUrl?: string;
}

/** A fake model server, a data directory, a client and (by default) an in-process worker. */
export async function startRunner(opts: BenchRunnerOptions): Promise<BenchRunner> {
  const fake = await startFakeModelServer(opts.fake);
  const dataDir = mkdtempSync(join(tmpdir(), 'dar-bench-data-'));
  const store: TranscriptStore = opts.storeUrl
    ? await PostgresTranscriptStore.open(opts.storeUrl, { schema: 'migrate' })
    : new JsonlTranscriptStore(dataDir, { onWarning: (m) => progress(`store warning: ${m}`) });
  const env: NodeJS.ProcessEnv = {
    ...(opts.storeUrl ? { AGENT_RUNNER_STORE_URL: opts.storeUrl } : {}),
    AGENT_RUNNER_DATA_DIR: dataDir,
    ANTHROPIC_BASE_URL: fake.baseUrl,
    ANTHROPIC_API_KEY: 'bench-key',
    TEMPORAL_ADDRESS: opts.address,
  };
  const loaded = loadConfig({ env, cwd: PROJECT_ROOT });
  const config: Config = { ...loaded, worker: { ...loaded.worker, ...(opts.workerTuning ?? {}) } };
  const taskQueue = `bench-${randomUUID()}`;
  const connection = await Connection.connect({ address: opts.address });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  let worker: Worker | null = null;
  let run: Promise<void> | null = null;
  let native: NativeConnection | null = null;
  if (opts.inProcessWorker ?? true) {
    native = await NativeConnection.connect({ address: opts.address });
    worker = await createRunnerWorker({ connection: native, config, store, taskQueue, env });
    run = worker.run();
  }
  const engine = (cwd: string): QueryEngine =>
    new QueryEngine({
      client,
      store,
      taskQueue,
      cwd,
      defaults: benchTurnOptions(),
      idleTimeoutMs: 60_000,
      userConfigDir: opts.userConfigDir ?? false,
    });
  return {
    fake,
    client,
    store,
    config,
    dataDir,
    taskQueue,
    workerEnv: { ...process.env, ...env, AGENT_RUNNER_TASK_QUEUE: taskQueue },
    worker,
    engine,
    async runTurn(cwd, prompt, options) {
      const e = engine(cwd);
      const started = await e.start(prompt, options);
      const outcome = await turnOutcome(client, started.turnWorkflowId);
      await e.end().catch(() => undefined);
      return { outcome, engine: e, turnWorkflowId: started.turnWorkflowId };
    },
    async close() {
      if (worker && worker.getState() === 'RUNNING') worker.shutdown();
      await run?.catch(() => undefined);
      await native?.close().catch(() => undefined);
      await connection.close();
      await fake.close();
      await store.close();
    },
  };
}

/** An `agent-runner worker` child process. */
export interface WorkerProcess {
  proc: ChildProcess;
  pid: number;
  /** Peak resident set size so far (VmHWM), in bytes. */
  peakRss(): number;
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `node bin/agent-runner.js worker` with `env`; resolves once it polls. */
export async function startWorkerProcess(env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<WorkerProcess> {
  const bin = join(PROJECT_ROOT, 'bin', 'agent-runner.js');
  const proc = spawn(process.execPath, [bin, 'worker'], {
    env,
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr?.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start in ${timeoutMs} ms:\n${err}`)), timeoutMs);
    proc.stderr?.on('data', () => {
      if (err.includes('worker polling')) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} before polling:\n${err}`));
    });
  });
  const pid = proc.pid ?? -1;
  return {
    proc,
    pid,
    peakRss: () => {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return m ? Number(m[1]) * 1024 : Number.NaN;
    },
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

/** CPU time (user + system) a process has used so far, in seconds, from /proc (Linux; NaN elsewhere). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat(5), utime and stime, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
