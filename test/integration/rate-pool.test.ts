/**
 * Rate pools on a real dev server: 20 concurrent turns against a fake model that enforces a
 * requests-per-period limit. With the pool the limit is learned from the `anthropic-ratelimit-*`
 * headers and the fake answers (almost) no 429; a pool told a limit above the real one learns the
 * real one from the 429s, each of which it hears of (none is retried past it by Temporal).
 * A "minute" of 2 s (`periodMs`, on both sides) keeps the test short.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { ensureRatePool, ratePoolState } from '../../src/client/rate-pool';
import type { RatePoolView } from '../../src/common/rate-pool';
import type { StepSpec } from '../../src/fake-model';
import { installRuntimeLogging } from '../../src/worker/logging';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

installRuntimeLogging('WARN');

const PERIOD_MS = 2000;
const LIMIT = 10; // requests per period: 5 per second
const CALLS_PER_TURN = 3;
const TURNS = 20;
const USAGE = { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const glob: StepSpec = { content: [{ tool_use: { name: 'Glob', input: { pattern: '*.txt' } } }], usage: USAGE };

async function waitForPool(client: Client, poolId: string, pred: (s: RatePoolView) => boolean): Promise<RatePoolView> {
  const end = Date.now() + 30_000;
  for (;;) {
    const s = await ratePoolState(client, poolId);
    if (pred(s)) return s;
    if (Date.now() > end) throw new Error(`rate pool never matched; last state ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function runAll(env: RunnerEnv, ratePoolId: string): Promise<{ subtypes: string[]; elapsedMs: number }> {
  const repo = makeRepo({ 'a.txt': 'a' });
  const t0 = Date.now();
  const results = await Promise.all(
    Array.from({ length: TURNS }, (_, i) =>
      env.runTurn(env.engine({ cwd: repo }), `member ${i}`, { ratePoolId, rateFairnessKey: `batch-${i % 2}` }),
    ),
  );
  return { subtypes: results.map((r) => r.result.subtype), elapsedMs: Date.now() - t0 };
}

describe('rate pools', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('rate pool: 20 concurrent turns learn the limit from headers; the fake answers (almost) no 429 and the rate never exceeds the limit', async () => {
    env = await startRunnerEnv({
      rateLimits: { requestsPerMinute: LIMIT, periodMs: PERIOD_MS },
      responder: (_req, ctx) => (ctx.step < CALLS_PER_TURN - 1 ? glob : { content: [{ text: 'done' }], usage: USAGE }),
    });
    const poolId = `rp-${randomUUID().slice(0, 8)}`;
    const workflowId = await ensureRatePool(env.client, { taskQueue: env.taskQueue, poolId, periodMs: PERIOD_MS });
    const { subtypes, elapsedMs } = await runAll(env, workflowId);
    expect(subtypes).toEqual(Array(TURNS).fill('success'));
    const calls = TURNS * CALLS_PER_TURN;
    const completed = env.fake.completedCalls().length;
    expect(completed).toBe(calls);
    const state = await waitForPool(env.client, poolId, (s) => s.outstanding === 0 && s.waiting === 0);
    expect(state.requestsPerMinute).toBeCloseTo(LIMIT, 0);
    expect(state.granted).toBe(calls + state.throttled);
    // The first lease probes (no limit known), then the bucket the headers describe. A grant
    // reaches the API a workflow task or two later, which a loaded machine stretches unevenly:
    // a rare 429 is answered by a new lease.
    expect(env.fake.rateLimited()).toBeLessThanOrEqual(3);
    // Beyond the first period's burst, the calls come at the limit's rate: never faster.
    const minMs = ((calls - LIMIT) / LIMIT) * PERIOD_MS;
    console.log(
      `rate pool: ${calls} calls in ${elapsedMs} ms (at least ${minMs} ms at the limit), ` +
        `${env.fake.rateLimited()} 429s, pool ${JSON.stringify(state)}`,
    );
    expect(elapsedMs).toBeGreaterThanOrEqual(minMs * 0.9);
  });

  test('rate pool: told a limit above the real one, the pool hears of every 429 (none retried past it) and shrinks to the real limit', async () => {
    env = await startRunnerEnv({
      rateLimits: { requestsPerMinute: LIMIT, periodMs: PERIOD_MS },
      responder: (_req, ctx) => (ctx.step < CALLS_PER_TURN - 1 ? glob : { content: [{ text: 'done' }], usage: USAGE }),
    });
    const poolId = `rp-${randomUUID().slice(0, 8)}`;
    const workflowId = await ensureRatePool(env.client, {
      taskQueue: env.taskQueue,
      poolId,
      limits: { requestsPerMinute: 100 },
      periodMs: PERIOD_MS,
    });
    const { subtypes } = await runAll(env, workflowId);
    expect(subtypes).toEqual(Array(TURNS).fill('success'));
    const state = await waitForPool(env.client, poolId, (s) => s.outstanding === 0 && s.waiting === 0);
    const refused = env.fake.rateLimited();
    expect(refused).toBeGreaterThan(0);
    expect(state.throttled).toBe(refused); // every 429 reached the pool, once
    expect(state.granted).toBe(TURNS * CALLS_PER_TURN + refused);
    expect(state.requestsPerMinute).toBeLessThanOrEqual(LIMIT);
    // The turns' own transcripts hold no failed call: each 429 was answered by a new lease.
    expect(env.fake.completedCalls()).toHaveLength(TURNS * CALLS_PER_TURN);
  });
  test('rate pool: a turn that continues as new keeps its lease protocol (every call leased once, the last report counted)', async () => {
    const calls = 7;
    env = await startRunnerEnv({
      rateLimits: { requestsPerMinute: 100, periodMs: PERIOD_MS },
      responder: (_req, ctx) => (ctx.step < calls - 1 ? glob : { content: [{ text: 'done' }], usage: USAGE }),
    });
    const poolId = `rp-${randomUUID().slice(0, 8)}`;
    const ratePoolId = await ensureRatePool(env.client, { taskQueue: env.taskQueue, poolId, periodMs: PERIOD_MS });
    const { result } = await env.runTurn(env.engine({ cwd: makeRepo({ 'a.txt': 'a' }) }), 'long', {
      ratePoolId,
      maxStepsPerRun: 2,
    });
    expect(result.subtype).toBe('success');
    expect(result.num_turns).toBe(calls);
    const state = await waitForPool(env.client, poolId, (s) => s.outstanding === 0 && s.waiting === 0);
    expect(state.granted).toBe(calls);
    expect(state.throttled).toBe(0);
    expect(env.fake.completedCalls()).toHaveLength(calls);
  });
});
