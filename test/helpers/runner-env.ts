import { randomUUID } from 'node:crypto';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Worker } from '@temporalio/worker';
import { loadConfig } from '../../src/config';
import type { Config } from '../../src/config';
import { QueryEngine } from '../../src/client/query-engine';
import type { QueryEngineOptions, SubmitOptions } from '../../src/client/query-engine';
import type { SDKMessage, SDKResultMessage } from '../../src/common/sdk-messages';
import type { TurnOptions } from '../../src/common/turn';
import { startFakeModelServer } from '../../src/fake-model';
import type { FakeModelServer, FakeModelServerOptions } from '../../src/fake-model';
import { JsonlTranscriptStore } from '../../src/store/jsonl-store';
import { createRunnerWorker } from '../../src/worker/worker';
import { clientInterceptors } from '../../src/connection/closed-channel';

/** Address of the dev server started by the global setup. */
export function temporalAddress(): string {
  const a = process.env['TEST_TEMPORAL_ADDRESS'];
  if (!a) throw new Error('TEST_TEMPORAL_ADDRESS is not set: run tests through jest (global setup starts the server)');
  return a;
}

/** A temporary repository with the given files (path → content). */
export function makeRepo(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dar-repo-'));
  for (const [rel, content] of Object.entries(files)) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
  return dir;
}

/** Turn options for tests: fast heartbeats, all tools allowed. */
export function testTurnOptions(overrides: Partial<TurnOptions> = {}): TurnOptions {
  return {
    model: 'claude-sonnet-5-5',
    maxTokens: 1024,
    limits: {},
    permissionMode: 'bypassPermissions',
    timeouts: { modelHeartbeatMs: 5000, toolHeartbeatMs: 5000, modelMaxAttempts: 6 },
    ...overrides,
  };
}

export interface RunnerEnv {
  fake: FakeModelServer;
  client: Client;
  store: JsonlTranscriptStore;
  config: Config;
  dataDir: string;
  taskQueue: string;
  /** Env for a worker process of this environment (`agent-runner worker`). */
  workerEnv: NodeJS.ProcessEnv;
  engine(opts: Partial<QueryEngineOptions> & { cwd: string }): QueryEngine;
  /** Runs one turn and collects its messages. */
  runTurn(
    engine: QueryEngine,
    prompt: string,
    options?: SubmitOptions,
  ): Promise<{ messages: SDKMessage[]; result: SDKResultMessage }>;
  /**
   * Starts an in-process worker (one is started by default unless `worker: false`); `config`
   * changes its config after `workerConfig` (e.g. another build id), `identity` names it.
   */
  startWorker(opts?: { config?: (config: Config) => Config; identity?: string }): Promise<Worker>;
  close(): Promise<void>;
}

/**
 * A fake model server, a temp data directory and store, a Temporal client on the shared dev
 * server, and (by default) an in-process worker on a fresh task queue.
 */
export async function startRunnerEnv(
  opts: FakeModelServerOptions & {
    worker?: boolean;
    /** More environment for the workers (a provider's variables; `undefined` removes one). */
    extraEnv?: Record<string, string | undefined>;
    /** Changes the config the in-process workers run with (e.g. a short stream idle limit). */
    workerConfig?: (config: Config) => Config;
  } = {},
): Promise<RunnerEnv> {
  const { worker: wantWorker = true, extraEnv = {}, workerConfig, ...fakeOpts } = opts;
  const fake = await startFakeModelServer(fakeOpts);
  const dataDir = mkdtempSync(join(tmpdir(), 'dar-data-'));
  const store = new JsonlTranscriptStore(dataDir);
  const address = temporalAddress();
  const env: Record<string, string> = {
    AGENT_RUNNER_DATA_DIR: dataDir,
    ANTHROPIC_BASE_URL: fake.baseUrl,
    ANTHROPIC_API_KEY: 'test-key',
    TEMPORAL_ADDRESS: address,
  };
  for (const [k, v] of Object.entries(extraEnv)) {
    if (v === undefined) delete env[k];
    else env[k] = v.split('{{base}}').join(fake.baseUrl);
  }
  const config = loadConfig({ env });
  const taskQueue = `test-${randomUUID()}`;
  const connection = await Connection.connect({ address, interceptors: clientInterceptors() });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const workers: Array<{ worker: Worker; run: Promise<void>; conn: NativeConnection }> = [];
  async function startWorker(o: Parameters<RunnerEnv['startWorker']>[0] = {}): Promise<Worker> {
    const conn = await NativeConnection.connect({ address });
    const base = workerConfig ? workerConfig(config) : config;
    const worker = await createRunnerWorker({
      connection: conn,
      config: o.config ? o.config(base) : base,
      store,
      taskQueue,
      env,
      stickyQueueScheduleToStartTimeoutMs: 1000,
      ...(o.identity ? { identity: o.identity } : {}),
    });
    workers.push({ worker, run: worker.run(), conn });
    return worker;
  }
  if (wantWorker) await startWorker();
  const env_: RunnerEnv = {
    fake,
    client,
    store,
    config,
    dataDir,
    taskQueue,
    workerEnv: { ...process.env, ...env, AGENT_RUNNER_TASK_QUEUE: taskQueue },
    engine: (o) =>
      // userConfigDir false: the machine's own ~/.claude/CLAUDE.md never leaks into a test.
      new QueryEngine({
        client,
        store,
        taskQueue,
        defaults: testTurnOptions(),
        idleTimeoutMs: 60_000,
        userConfigDir: false,
        ...o,
      }),
    async runTurn(engine, prompt, options) {
      const messages: SDKMessage[] = [];
      for await (const m of engine.submitMessage(prompt, options)) messages.push(m);
      const result = messages[messages.length - 1];
      if (!result || result.type !== 'result') throw new Error('turn ended without a result message');
      return { messages, result };
    },
    startWorker,
    async close() {
      for (const w of workers) {
        if (w.worker.getState() === 'RUNNING') w.worker.shutdown();
        await w.run.catch(() => undefined);
        await w.conn.close().catch(() => undefined);
      }
      await connection.close();
      await fake.close();
    },
  };
  return env_;
}
