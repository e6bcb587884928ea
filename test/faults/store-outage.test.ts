/**
 * The PostgreSQL transcript store goes away mid-turn: the real embedded PostgreSQL server is
 * stopped (a fast shutdown: open sessions are terminated) and started again on the same port
 * and data, while a model response streams or a Bash command runs.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Worker } from '@temporalio/worker';
import { loadConfig } from '../../src/config';
import type { Config } from '../../src/config';
import { clientStore } from '../../src/connection/connect';
import { QueryEngine } from '../../src/client/query-engine';
import type { SDKResultMessage } from '../../src/common/sdk-messages';
import type { TurnOptions } from '../../src/common/turn';
import { billedUsage, repeatedCompletedCalls, startFakeModelServer } from '../../src/fake-model';
import type { FakeModelServer, Responder } from '../../src/fake-model';
import { PostgresTranscriptStore } from '../../src/store/postgres/postgres-store';
import { installRuntimeLogging } from '../../src/worker/logging';
import { createRunnerWorker } from '../../src/worker/worker';
import { makeRepo, temporalAddress, testTurnOptions } from '../helpers/runner-env';
import { startPostgresProcess } from '../helpers/postgres-process';
import type { PostgresProcess } from '../helpers/postgres-process';
import { waitFor } from './helpers/fault-env';
import { clientInterceptors } from '../../src/connection/closed-channel';

installRuntimeLogging('ERROR');

jest.setTimeout(240_000);

describe('faults: the PostgreSQL transcript store is down mid-turn', () => {
  let pg: PostgresProcess;
  let connection: Connection;
  let client: Client;
  const cleanup: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    pg = await startPostgresProcess();
    connection = await Connection.connect({ address: temporalAddress(), interceptors: clientInterceptors() });
    client = new Client({ connection });
  });
  afterEach(async () => {
    await pg.restart().catch(() => undefined);
    for (const f of cleanup.splice(0).reverse()) await f().catch(() => undefined);
  });
  afterAll(async () => {
    await connection?.close();
    await pg?.stop();
  });

  /** A database, a fake model, a worker with its own store, and a client with another (two processes' worth). */
  async function setup(
    responder: Responder,
    workerOutageMs: number,
  ): Promise<{ fake: FakeModelServer; engine: QueryEngine; config: Config; notices: string[]; repo: string }> {
    const url = await pg.createDatabase(`outage_${randomUUID().slice(0, 8)}`);
    const fake = await startFakeModelServer({ responder });
    cleanup.push(() => fake.close());
    const env = {
      AGENT_RUNNER_DATA_DIR: makeRepo({}),
      AGENT_RUNNER_STORE_URL: url,
      ANTHROPIC_BASE_URL: fake.baseUrl,
      ANTHROPIC_API_KEY: 'test-key',
      TEMPORAL_ADDRESS: temporalAddress(),
    };
    const config = loadConfig({ env });
    const taskQueue = `outage-${randomUUID()}`;
    const workerStore = await PostgresTranscriptStore.open(url, { schema: 'migrate', onWarning: () => undefined });
    cleanup.push(() => workerStore.close());
    const conn = await NativeConnection.connect({ address: temporalAddress() });
    cleanup.push(() => conn.close());
    const worker: Worker = await createRunnerWorker({
      connection: conn,
      config: { ...config, store: { ...config.store, outageTimeoutMs: workerOutageMs } },
      store: workerStore,
      taskQueue,
      env,
      stickyQueueScheduleToStartTimeoutMs: 1000,
    });
    const run = worker.run();
    cleanup.push(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await run;
    });
    const raw = await PostgresTranscriptStore.open(url, { onWarning: () => undefined });
    cleanup.push(() => raw.close());
    const notices: string[] = [];
    const repo = makeRepo({});
    const engine = new QueryEngine({
      client,
      store: clientStore(config, raw, (l) => notices.push(l)),
      taskQueue,
      cwd: repo,
      defaults: testTurnOptions(),
      idleTimeoutMs: 60_000,
      userConfigDir: false,
    });
    cleanup.push(() => engine.end());
    return { fake, engine, config, notices, repo };
  }

  async function runTurn(
    engine: QueryEngine,
    prompt: string,
    opts: Partial<TurnOptions> = {},
  ): Promise<SDKResultMessage> {
    let result: SDKResultMessage | undefined;
    for await (const m of engine.submitMessage(prompt, opts)) if (m.type === 'result') result = m;
    if (!result) throw new Error('no result');
    return result;
  }

  const TIMEOUTS = { modelHeartbeatMs: 5000, toolHeartbeatMs: 5000, modelMaxAttempts: 4 };

  /** Step 0 a quick Bash, step 1 a slow response (its attempt 1 calls `onStep1`) asking for a Bash, step 2 the answer. */
  function script(onStep1: () => void, step1Bash = 'echo step1 >> log.txt'): Responder {
    return (req, { step, attempt }) => {
      if (step === 0) return { content: [{ tool_use: { name: 'Bash', input: { command: 'echo step0 >> log.txt' } } }] };
      if (step === 1) {
        if (attempt === 1) onStep1();
        return {
          delay_ms: 1500,
          chunk_delay_ms: 20,
          content: [
            { text: 'Now the second step. '.repeat(8) },
            { tool_use: { name: 'Bash', input: { command: step1Bash } } },
          ],
        };
      }
      void req;
      return { content: [{ text: 'done' }] };
    };
  }

  test('store outage: PostgreSQL down for 30 s while a response completes, then for 10 s while its Bash runs: nothing is made twice, every billed token is counted, the turn succeeds', async () => {
    let outage: Promise<void> | null = null;
    const bashOutage: { mark?: string; done?: Promise<void> } = {};
    const { fake, engine, repo } = await setup(
      script(
        () => {
          outage = (async () => {
            await pg.halt(); // stopped before the response (1.5 s away) begins
            await new Promise((r) => setTimeout(r, 30_000));
            await pg.restart();
          })();
        },
        // The Bash of step 1 says when it runs; the store goes down while it does.
        `touch started.mark; sleep 3; echo step1 >> log.txt`,
      ),
      600_000,
    );
    bashOutage.mark = path.join(repo, 'started.mark');
    bashOutage.done = (async () => {
      await waitFor('the Bash of step 1', () => fs.existsSync(bashOutage.mark as string), 120_000);
      await pg.halt();
      await new Promise((r) => setTimeout(r, 10_000));
      await pg.restart();
    })();
    const started = Date.now();
    const result = await runTurn(engine, 'two steps through two outages', { timeouts: TIMEOUTS });
    const elapsed = Date.now() - started;
    await outage;
    await bashOutage.done;
    expect(result).toMatchObject({ subtype: 'success', result: 'done', num_turns: 3 });
    expect(JSON.stringify(result)).not.toMatch(/API Error/);
    // One request per step: no call was made again, and none was cut.
    const log = fake.requests();
    expect(log.map((r) => [r.step, r.attempt, r.outcome])).toEqual([
      [0, 1, 'completed'],
      [1, 1, 'completed'],
      [2, 1, 'completed'],
    ]);
    expect(repeatedCompletedCalls(log)).toEqual([]);
    expect(result.usage).toMatchObject(billedUsage(log));
    // The Bash ran once, and its result is the model's (not "outcome unknown").
    expect(fs.readFileSync(path.join(repo, 'log.txt'), 'utf8')).toBe('step0\nstep1\n');
    const last = log[2];
    expect(JSON.stringify(last)).not.toMatch(/outcome is unknown/);
    expect(elapsed).toBeGreaterThan(40_000);
    console.log(`store outage 30 s + 10 s: success after ${elapsed} ms, ${log.length} model requests`);
  });

  test('store outage: an attempt whose time runs out while the store is down keeps the response; the next attempt writes it instead of calling again', async () => {
    let outage: Promise<void> | null = null;
    const { fake, engine } = await setup(
      script(() => {
        outage = (async () => {
          await pg.halt();
          await new Promise((r) => setTimeout(r, 20_000));
          await pg.restart();
        })();
      }),
      600_000,
    );
    // 12 s per attempt: attempt 1 gives up after about 9 s while the store is still down.
    const result = await runTurn(engine, 'one outage longer than an attempt', {
      timeouts: { ...TIMEOUTS, modelStartToCloseMs: 12_000 },
    });
    await outage;
    expect(result).toMatchObject({ subtype: 'success', result: 'done', num_turns: 3 });
    const log = fake.requests();
    expect(log.filter((r) => r.step === 1).map((r) => [r.attempt, r.outcome])).toEqual([[1, 'completed']]);
    expect(repeatedCompletedCalls(log)).toEqual([]);
    expect(result.usage).toMatchObject(billedUsage(log));
  });

  test('store outage: a store down longer than store.outageTimeoutMs ends the turn with a store error naming the store (not an API error), the billed usage counted', async () => {
    let halted: Promise<void> | null = null;
    const { fake, engine } = await setup(
      script(() => {
        halted = pg.halt();
      }),
      8000,
    );
    const turn = runTurn(engine, 'an outage past the limit', { timeouts: TIMEOUTS });
    // The store comes back only once the turn has ended (the client waits to read the result).
    const closed = (async () => {
      await waitFor('the outage', () => halted !== null, 60_000);
      await halted;
      await waitFor(
        'the turn to end',
        async () => {
          const d = await client.workflow.getHandle(`agent-session-${engine.sessionId}-turn-1`).describe();
          return d.status.name !== 'RUNNING';
        },
        120_000,
      );
      await pg.restart();
    })();
    const result = await turn;
    await closed;
    expect(result).toMatchObject({ subtype: 'error_during_execution', is_error: true });
    const errors = ((result as { errors?: string[] }).errors ?? []).join('\n');
    expect(errors).toMatch(
      /Transcript store error: the PostgreSQL transcript store at postgres:\/\/postgres:\*+@127\.0\.0\.1:\d+\/outage_\w+ is unreachable: .*longer than store\.outageTimeoutMs 8000/,
    );
    expect(errors).not.toMatch(/API Error/);
    const log = fake.requests();
    expect(log.filter((r) => r.step === 1)).toHaveLength(1);
    expect(result.usage).toMatchObject(billedUsage(log));
  });
});
