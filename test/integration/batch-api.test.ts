import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SEARCH_ATTRIBUTES } from '../../src/common/search-attributes';
import type { SDKResultMessage } from '../../src/common/sdk-messages';
import { findTemporalCli, startDevServer } from '../../src/host/dev-server';
import type { DevServer } from '../../src/host/dev-server';
import { findPrice } from '../../src/config/schema';
import { costOfUsage } from '../../src/engine/cost';
import { totalCost } from '../../src/engine/cost';
import { createLoadSession } from '../../src/activities/transcript';
import { BATCH_PRICE_FACTOR } from '../../src/common/batch';
import type { QueryEngine } from '../../src/client/query-engine';
import type { BatchApiOptions } from '../../src/common/batch';
import { makeRepo, startRunnerEnv, testTurnOptions } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { startWorkerProcess } from '../helpers/worker-process';
import type { WorkerProcess } from '../helpers/worker-process';

async function waitFor(what: string, cond: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Fast settings for tests: a short window and quick polls. */
const FAST: BatchApiOptions = { maxWaitMs: 60_000, windowMs: 300, pollIntervalMs: 200, maxPollIntervalMs: 1000 };

const steps = [
  { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } }] },
  { content: [{ text: 'The file says hello.' }], usage: { output_tokens: 40 } },
];

describe('batch api: model calls through the Message Batches API', () => {
  let env: RunnerEnv;
  const workers: WorkerProcess[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop().catch(() => undefined);
    await env?.close();
  });

  test('batch api: a worker killed (kill -9) while a batch is pending; a new worker resumes polling and never resubmits', async () => {
    env = await startRunnerEnv({ worker: false, scenario: { steps }, batchProcessingMs: 4000 });
    workers.push(await startWorkerProcess(env.workerEnv));
    const engine = env.engine({
      cwd: makeRepo({ 'a.txt': 'hello\n' }),
      defaults: testTurnOptions({ batchApi: { ...FAST, maxWaitMs: 120_000 } }),
    });
    const turn = env.runTurn(engine, 'read a.txt');
    await waitFor('the first batch', () => env.fake.batches().length === 1).catch((e: unknown) => {
      throw new Error(`${String(e)}\n${workers[0]!.stderr().slice(-3000)}`);
    });
    // The batch id is in the collector's history (its create activity has completed): the batch is pending.
    await new Promise((r) => setTimeout(r, 1000));
    await workers[0]!.kill9();
    workers.push(await startWorkerProcess(env.workerEnv));
    const { result } = await turn;
    expect(result).toMatchObject({ subtype: 'success', num_turns: 2, result: 'The file says hello.' });
    const batches = env.fake.batches();
    expect(batches).toHaveLength(2);
    const ids = batches.flatMap((b) => b.custom_ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(env.fake.requests().filter((e) => e.outcome === 'completed')).toHaveLength(2);
  }, 180_000);

  test('batch api: the Temporal server restarted while a batch is pending; the turn completes, nothing sent twice, at batch rates', async () => {
    // A dev server of this test's own, on a db file and a fixed port, so it can stop and come back.
    const dataDir = mkdtempSync(join(tmpdir(), 'dar-temporal-restart-'));
    const serverOpts = {
      cliPath: findTemporalCli(),
      dataDir,
      dbFilename: 'temporal.db',
      searchAttributes: { ...SEARCH_ATTRIBUTES },
      logLevel: 'error' as const,
    };
    let server: DevServer = await startDevServer(serverOpts);
    const shared = process.env['TEST_TEMPORAL_ADDRESS'];
    process.env['TEST_TEMPORAL_ADDRESS'] = server.address;
    const port = Number(server.address.split(':').pop());
    try {
      env = await startRunnerEnv({ worker: false, scenario: { steps }, batchProcessingMs: 5000 });
      workers.push(await startWorkerProcess(env.workerEnv));
      const engine = env.engine({
        cwd: makeRepo({ 'a.txt': 'hello\n' }),
        defaults: testTurnOptions({ batchApi: { ...FAST, maxWaitMs: 120_000 } }),
      });
      const turn = env.runTurn(engine, 'read a.txt');
      await waitFor('the first batch', () => env.fake.batches().length === 1);
      await new Promise((r) => setTimeout(r, 1000));
      // The batch is pending (its id in the collector's history) when the server goes down.
      expect(env.fake.batches()[0]?.processing_status).toBe('in_progress');
      await server.stop();
      await new Promise((r) => setTimeout(r, 2000));
      server = await startDevServer({ ...serverOpts, port });
      const { result } = await turn;
      expect(result).toMatchObject({ subtype: 'success', num_turns: 2, result: 'The file says hello.' });
      const batches = env.fake.batches();
      expect(batches).toHaveLength(2);
      const ids = batches.flatMap((b) => b.custom_ids);
      expect(new Set(ids).size).toBe(ids.length);
      expect(env.fake.requests().filter((e) => e.outcome === 'completed')).toHaveLength(2);
      expect(env.fake.requests().filter((e) => e.batch === undefined)).toHaveLength(0);
      const standard = costOfUsage(result.usage, findPrice(env.config.prices, 'claude-sonnet-5-5') ?? null) ?? NaN;
      expect(result.total_cost_usd).toBeCloseTo(standard / 2, 10);
      expect(result.batch_api).toMatchObject({ batched_calls: 2, fallbacks: 0 });
    } finally {
      for (const w of workers.splice(0)) await w.stop().catch(() => undefined);
      await env?.close();
      process.env['TEST_TEMPORAL_ADDRESS'] = shared;
      await server.stop();
    }
  }, 240_000);

  test('batch api: concurrent turns share batches; the turn ends as after synchronous calls, at half the cost', async () => {
    env = await startRunnerEnv({ scenario: { steps }, batchProcessingMs: 300 });
    const run = async (batchApi: BatchApiOptions | undefined): Promise<SDKResultMessage> => {
      const repo = makeRepo({ 'a.txt': 'hello\n' });
      const engine = env.engine({ cwd: repo, defaults: testTurnOptions(batchApi ? { batchApi } : {}) });
      return (await env.runTurn(engine, 'read a.txt')).result;
    };
    const sync = await run(undefined);
    const batched = await Promise.all([run(FAST), run(FAST), run(FAST)]);
    for (const r of batched) {
      expect(r).toMatchObject({
        subtype: 'success',
        num_turns: 2,
        result: 'The file says hello.',
        stop_reason: 'end_turn',
      });
      expect(r.usage.output_tokens).toBe(sync.usage.output_tokens);
      // The same tokens (cache reads included) at half the standard price.
      const standard = costOfUsage(r.usage, findPrice(env.config.prices, 'claude-sonnet-5-5') ?? null) ?? NaN;
      expect(r.usage.cache_read_input_tokens + r.usage.cache_creation_input_tokens).toBeGreaterThan(0);
      expect(r.total_cost_usd).toBeCloseTo(standard / 2, 10);
      const m = Object.values(r.modelUsage)[0];
      expect(m?.costUSD).toBeCloseTo(standard / 2, 10);
      expect(r.batch_api).toMatchObject({ batched_calls: 2, fallbacks: 0 });
      expect(r.batch_api?.saved_usd).toBeCloseTo(standard / 2, 10);
    }
    // 6 calls of 3 turns, due at about the same time: grouped into few batches.
    const batches = env.fake.batches();
    expect(batches.flatMap((b) => b.custom_ids)).toHaveLength(6);
    expect(batches.length).toBeLessThanOrEqual(3);
    expect(batches.every((b) => b.processing_status === 'ended')).toBe(true);
    // No call went to the synchronous API but the sync turn's two.
    expect(env.fake.requests().filter((e) => e.batch === undefined)).toHaveLength(2);
    // The assistant lines are the synchronous path's, marked with their batch.
    const lines = await env.store.load(batched[0]!.session_id);
    const assistant = lines.filter((l) => l.type === 'assistant');
    expect(assistant).toHaveLength(2);
    expect(assistant.every((l) => l.messageBatch?.id.startsWith('msgbatch_'))).toBe(true);
  });

  test('batch api: an expired request is sent again in a new batch', async () => {
    env = await startRunnerEnv({
      batchProcessingMs: 100,
      scenario: { steps: [{ content: [{ text: 'done' }], errors: [{ batch_result: 'expired' }] }] },
    });
    const engine = env.engine({ cwd: makeRepo({}), defaults: testTurnOptions({ batchApi: FAST }) });
    const { result } = await env.runTurn(engine, 'hi');
    expect(result).toMatchObject({ subtype: 'success', result: 'done' });
    expect(env.fake.batches().map((b) => b.request_counts)).toEqual([
      expect.objectContaining({ expired: 1 }),
      expect.objectContaining({ succeeded: 1 }),
    ]);
  });

  test('batch api: past maxWaitMs the call falls back to the synchronous API', async () => {
    env = await startRunnerEnv({
      batchProcessingMs: 60_000,
      scenario: { steps: [{ content: [{ text: 'sync answer' }] }] },
    });
    const engine = env.engine({
      cwd: makeRepo({}),
      defaults: testTurnOptions({ batchApi: { ...FAST, maxWaitMs: 1500 } }),
    });
    const { result } = await env.runTurn(engine, 'hi');
    expect(result).toMatchObject({ subtype: 'success', result: 'sync answer' });
    expect(result.batch_api).toMatchObject({ batched_calls: 0, fallbacks: 1, saved_usd: 0 });
    expect(result.batch_api?.fallback_reasons[0]).toMatch(/maxWaitMs/);
    expect(env.fake.batches()).toHaveLength(1);
    expect(env.fake.requests().filter((e) => e.batch === undefined && e.outcome === 'completed')).toHaveLength(1);
    const lines = await env.store.load(result.session_id);
    expect(lines.find((l) => l.type === 'assistant')?.messageBatch).toBeUndefined();
  });

  /**
   * The rule: the API bills every batch response, so the session's live totals always equal
   * what the store says was billed (what a resume counts), also for a response no turn took.
   */
  async function expectLiveTotalsMatchStore(engine: QueryEngine, sessionId: string, above: number): Promise<number> {
    const load = createLoadSession(env.store, (m) => findPrice(env.config.prices, m) ?? null);
    const end = Date.now() + 60_000;
    let live = 0;
    for (;;) {
      live = (await engine.state()).totalCostUsd;
      if (live > above) break;
      if (Date.now() > end) throw new Error(`session total stayed at ${live} (not above ${above})`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const stored = totalCost((await load(sessionId)).modelUsage).usd;
    expect(live).toBeCloseTo(stored, 10);
    return live;
  }

  test('batch api: a batch answer after the synchronous fallback answered is billed: it counts in the session and on resume, at batch rates', async () => {
    env = await startRunnerEnv({
      batchProcessingMs: 4000,
      scenario: { steps: [{ content: [{ text: 'answer' }] }, { content: [{ text: 'answer' }] }] },
    });
    const engine = env.engine({
      cwd: makeRepo({}),
      defaults: testTurnOptions({ batchApi: { ...FAST, maxWaitMs: 1000 } }),
    });
    const { result } = await env.runTurn(engine, 'hi');
    expect(result).toMatchObject({ subtype: 'success' });
    expect(result.batch_api).toMatchObject({ batched_calls: 0, fallbacks: 1 });
    await waitFor('the batch to end', () => env.fake.batches()[0]?.processing_status === 'ended', 30_000);
    const live = await expectLiveTotalsMatchStore(engine, result.session_id, result.total_cost_usd);
    // The extra is the batch response's own usage, recorded in the store, at half price.
    const records = (await env.store.modelAttemptUsage(result.session_id)).filter((r) => r.messageBatchId);
    expect(records).toHaveLength(1);
    const standard = costOfUsage(records[0]!.usage, findPrice(env.config.prices, records[0]!.model) ?? null) ?? NaN;
    expect(live - result.total_cost_usd).toBeCloseTo(standard * BATCH_PRICE_FACTOR, 10);
  }, 120_000);

  test('batch api: an interrupt while a call waits on a batch; the batch answer still counts in the session totals', async () => {
    env = await startRunnerEnv({ batchProcessingMs: 3000, scenario: { steps: [{ content: [{ text: 'late' }] }] } });
    const engine = env.engine({ cwd: makeRepo({}), defaults: testTurnOptions({ batchApi: FAST }) });
    const turn = env.runTurn(engine, 'hi');
    await waitFor('the batch', () => env.fake.batches().length === 1);
    await engine.interrupt();
    const { result } = await turn;
    expect(env.fake.batches()[0]?.processing_status).toBe('in_progress');
    await waitFor('the batch to end', () => env.fake.batches()[0]?.processing_status === 'ended', 30_000);
    await expectLiveTotalsMatchStore(engine, result.session_id, result.total_cost_usd);
    const lines = await env.store.load(result.session_id);
    expect(lines.some((l) => l.type === 'assistant' && l.messageBatch !== undefined)).toBe(true);
  }, 120_000);
});
