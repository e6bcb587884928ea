/**
 * Shared budget pools on a real dev server: many sessions spending from one USD limit, the
 * overshoot bound, refilling by raising the limit, and continue-as-new with thousands of members.
 * Every model call costs exactly $0.003 (1000 input + 100 output tokens on claude-sonnet-5-5).
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { budgetPoolState, ensureBudgetPool } from '../../src/client/budget-pool';
import { runLimits } from '../../src/cli/commands/limits';
import { runPoolCreate, runPoolShow } from '../../src/cli/commands/pool';
import type { SDKResultMessage } from '../../src/common/sdk-messages';
import { loadConfig } from '../../src/config';
import type { Config } from '../../src/config';
import type { StepSpec } from '../../src/fake-model';
import { budgetPoolWorkflowId } from '../../src/common/ids';
import { joinPoolSignal, leavePoolSignal, reportSpendSignal } from '../../src/workflows/messages';
import type { PoolStateView } from '../../src/workflows/messages';
import { installRuntimeLogging } from '../../src/worker/logging';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

installRuntimeLogging('WARN');

const USAGE = { input_tokens: 1000, output_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const CALL_USD = 0.003;
const glob: StepSpec = { content: [{ tool_use: { name: 'Glob', input: { pattern: '*.txt' } } }], usage: USAGE };

function firstUserText(content: unknown): string {
  if (typeof content === 'string') return content;
  return ((content ?? []) as Array<{ type: string; text?: string }>)
    .filter((b) => b.type === 'text')
    .map((b) => b.text ?? '')
    .join('');
}

function captureIo(): { stdout: (s: string) => void; stderr: (s: string) => void; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { stdout: (l) => out.push(l), stderr: (l) => err.push(l), out, err };
}

async function waitForPool(
  client: Client,
  poolId: string,
  pred: (s: PoolStateView) => boolean,
  timeoutMs = 30_000,
): Promise<PoolStateView> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = await budgetPoolState(client, poolId);
    if (pred(s)) return s;
    if (Date.now() > end) throw new Error(`pool ${poolId} never matched; last state ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('budget pools', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('pool: 20 concurrent sessions all stop once the pool limit is reached; none starts more than one call after it', async () => {
    /** Arrival times (ms) of each session's model calls, by session id. */
    const arrivals = new Map<string, number[]>();
    env = await startRunnerEnv({
      responder: (req, ctx) => {
        const list = arrivals.get(ctx.conversationKey) ?? [];
        list.push(Date.now());
        arrivals.set(ctx.conversationKey, list);
        if (!firstUserText(req.messages[0]?.content).startsWith('member')) throw new Error('unexpected conversation');
        return { ...glob, delay_ms: 5 + (ctx.step % 3) * 10 }; // a tool call after another, forever
      },
    });
    const limitUsd = 0.6; // 200 calls: about 10 per member
    const pool = await ensureBudgetPool(env.client, {
      taskQueue: env.taskQueue,
      poolId: `p20-${randomUUID()}`,
      limitUsd,
    });
    expect(pool.created).toBe(true);
    const repo = makeRepo({ 'a.txt': 'a' });
    const engines = Array.from({ length: 20 }, () => env.engine({ cwd: repo }));
    const t0 = Date.now();
    const results: SDKResultMessage[] = (
      await Promise.all(
        engines.map((e, i) =>
          env.runTurn(e, `member ${i}: glob until told to stop`, { budgetPoolId: pool.workflowId }),
        ),
      )
    ).map((r) => r.result);
    const elapsedMs = Date.now() - t0;

    for (const r of results) {
      expect(r.subtype).toBe('error_max_budget_usd');
      expect(r.errors?.[0]).toMatch(/^Budget pool exhausted \(\$0\.6\): this turn spent \$/);
      expect(r.total_cost_usd).toBeCloseTo(r.num_turns * CALL_USD, 12);
    }
    const state = await waitForPool(env.client, pool.poolId, (s) => s.members === 0);
    const spent = results.reduce((a, r) => a + r.total_cost_usd, 0);
    expect(state.exhausted).toBe(true);
    expect(state.spentUsd).toBeCloseTo(spent, 9); // every call was reported, once
    expect(state.reports).toBe(results.reduce((a, r) => a + r.num_turns, 0));
    expect(state.spentUsd).toBeGreaterThanOrEqual(limitUsd);

    // Per member: model calls that reached the model after the pool was exhausted.
    const exhaustedAtMs = Date.parse(state.exhaustedAt ?? '');
    const late = engines.map((e) => (arrivals.get(e.sessionId) ?? []).filter((t) => t > exhaustedAtMs).length);
    const overshootUsd = state.spentUsd - limitUsd;
    console.log(
      `pool of 20: limit $${limitUsd}, spent $${state.spentUsd.toFixed(4)} (${state.reports} calls), ` +
        `overshoot $${overshootUsd.toFixed(4)} = ${(overshootUsd / CALL_USD).toFixed(1)} calls in total; ` +
        `calls per member after exhaustion: max ${Math.max(...late)}, total ${late.reduce((a, b) => a + b, 0)}; ` +
        `calls per member ${Math.min(...results.map((r) => r.num_turns))}–${Math.max(...results.map((r) => r.num_turns))}; ${elapsedMs} ms`,
    );
    expect(Math.max(...late)).toBeLessThanOrEqual(1);
    expect(overshootUsd).toBeLessThan(20 * CALL_USD); // at most one call per member
  });

  test('pool: a turn joining an exhausted pool stops before spending; raising the limit (agent-runner limits --pool) lets a new turn run', async () => {
    env = await startRunnerEnv({
      responder: (req, ctx) => {
        const prompt = firstUserText(req.messages[0]?.content);
        if (prompt.startsWith('finisher') && ctx.step >= 2) return { content: [{ text: 'finished' }], usage: USAGE };
        return glob;
      },
    });
    const config: Config = loadConfig({ env: env.workerEnv });
    const poolId = `refill-${randomUUID().slice(0, 8)}`;
    const create = captureIo();
    expect(await runPoolCreate(config, poolId, { maxBudgetUsd: '0.005' }, create)).toBe(0);
    expect(create.out[0]).toBe(
      `budget pool "${poolId}" created: limit $0.0050 (workflow ${budgetPoolWorkflowId(poolId)})`,
    );
    const again = captureIo();
    expect(await runPoolCreate(config, poolId, { maxBudgetUsd: '9' }, again)).toBe(0);
    expect(again.out[0]).toContain('already exists: limit $0.0050');

    const repo = makeRepo({ 'a.txt': 'a' });
    const opts = { budgetPoolId: budgetPoolWorkflowId(poolId) };
    // $0.003 < $0.005, so a second call runs; $0.006 exhausts the pool.
    const spender = await env.runTurn(env.engine({ cwd: repo }), 'spender: glob', opts);
    expect(spender.result).toMatchObject({ subtype: 'error_max_budget_usd', num_turns: 2 });
    const latecomer = await env.runTurn(env.engine({ cwd: repo }), 'latecomer: glob', opts);
    expect(latecomer.result).toMatchObject({ subtype: 'error_max_budget_usd', num_turns: 0, total_cost_usd: 0 });
    expect(latecomer.result.errors?.[0]).toBe('Budget pool exhausted ($0.005): this turn spent $0.000000');

    const show = captureIo();
    expect(await runPoolShow(config, poolId, {}, show)).toBe(0);
    expect(show.out[0]).toMatch(/status\s+EXHAUSTED since /);
    expect(show.out[0]).toMatch(/spent\s+\$0\.0060 \(120%\)/);

    const raise = captureIo();
    expect(await runLimits(config, poolId, { pool: true, maxBudgetUsd: '0.05', json: true }, raise)).toBe(0);
    expect(JSON.parse(raise.out[0] ?? '')).toMatchObject({ pool_id: poolId, limit_usd: 0.05, exhausted: false });

    const finisher = await env.runTurn(env.engine({ cwd: repo }), 'finisher: glob twice then answer', opts);
    expect(finisher.result).toMatchObject({ subtype: 'success', num_turns: 3, result: 'finished' });
    const state = await waitForPool(env.client, poolId, (s) => s.members === 0);
    expect(state.spentUsd).toBeCloseTo(0.015, 12);
    expect(state.exhausted).toBe(false);

    const missing = captureIo();
    expect(await runPoolShow(config, 'no-such-pool', {}, missing)).toBe(1);
    expect(missing.err[0]).toContain('no budget pool "no-such-pool"');
    const nothing = captureIo();
    expect(await runLimits(config, 'nothing-here', { maxBudgetUsd: '1' }, nothing)).toBe(1);
    expect(nothing.err[0]).toContain('no running session or budget pool "nothing-here"');
  });

  test('pool: the tools of the call that exhausted the pool do not run (each gets a "Not run" result), as for a turn budget', async () => {
    env = await startRunnerEnv({
      responder: (req) => {
        const step = req.messages.filter((m) => m.role === 'assistant').length;
        return {
          content: [{ tool_use: { name: 'Bash', input: { command: `echo ${step + 1} >> ran.txt` } } }],
          usage: USAGE,
        };
      },
    });
    const pool = await ensureBudgetPool(env.client, {
      taskQueue: env.taskQueue,
      poolId: `bash-${randomUUID().slice(0, 8)}`,
      limitUsd: 0.005,
    });
    const repo = makeRepo({});
    const engine = env.engine({ cwd: repo });
    // Call 1 costs $0.003 (its Bash runs); call 2 brings the pool to $0.006: its Bash must not run.
    const { result } = await env.runTurn(engine, 'spend with Bash', { budgetPoolId: pool.workflowId });
    expect(result).toMatchObject({ subtype: 'error_max_budget_usd', num_turns: 2 });
    expect(result.errors?.[0]).toMatch(/^Budget pool exhausted \(\$0\.005\)/);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(`${repo}/ran.txt`, 'utf8')).toBe('1\n');
    const lines = await env.store.load(engine.sessionId);
    const results = lines.flatMap((l) =>
      Array.isArray(l.message?.content)
        ? (l.message.content as Array<{ type: string; content?: unknown }>).filter((b) => b.type === 'tool_result')
        : [],
    );
    expect(results).toHaveLength(2);
    expect(results[1]?.content).toBe(
      '<tool_use_error>Not run: the turn stopped because its budget was reached.</tool_use_error>',
    );
  });

  test('pool: continue-as-new carries the limit, the spend and 2,000 members', async () => {
    env = await startRunnerEnv({
      responder: (_req, ctx) => (ctx.step < 3 ? glob : { content: [{ text: 'done' }], usage: USAGE }),
    });
    const pool = await ensureBudgetPool(env.client, {
      taskQueue: env.taskQueue,
      poolId: `can-${randomUUID()}`,
      limitUsd: 100,
      maxSignalsPerRun: 400,
    });
    const handle = env.client.workflow.getHandle(pool.workflowId);
    const members = Array.from({ length: 2000 }, (_, i) => `fake-member-${i}`);
    const inChunks = async (ids: string[], send: (id: string, i: number) => Promise<void>) => {
      for (let i = 0; i < ids.length; i += 100)
        await Promise.all(ids.slice(i, i + 100).map((id, j) => send(id, i + j)));
    };
    // Members that do not number their messages get no acknowledgement (there is no workflow to signal).
    // While signals stream in without a gap the server defers the continue-as-new (the run's
    // completion is rejected until it has handled them all), so each burst is followed by a pause.
    await inChunks(members, (id) => handle.signal(joinPoolSignal, { memberWorkflowId: id }));
    let state = await waitForPool(env.client, pool.poolId, (s) => s.runs >= 2 && s.members === 2000);
    expect(state).toMatchObject({ limitUsd: 100, exhausted: false, reports: 0 });
    await inChunks(members.slice(0, 500), (id) =>
      handle.signal(reportSpendSignal, { memberWorkflowId: id, usd: 0.001 }),
    );
    state = await waitForPool(env.client, pool.poolId, (s) => s.reports === 500 && s.runs >= 3);
    expect(state).toMatchObject({ members: 2000, limitUsd: 100, exhausted: false });
    expect(state.spentUsd).toBeCloseTo(0.5, 9);

    const repo = makeRepo({ 'a.txt': 'a' });
    const turns = await Promise.all(
      // maxStepsPerRun 2: the member turns continue as new too, carrying their place in the pool protocol.
      [0, 1, 2].map((i) =>
        env.runTurn(env.engine({ cwd: repo }), `real ${i}`, { budgetPoolId: pool.workflowId, maxStepsPerRun: 2 }),
      ),
    );
    for (const t of turns) expect(t.result).toMatchObject({ subtype: 'success', num_turns: 4 });
    state = await waitForPool(env.client, pool.poolId, (s) => s.reports === 512 && s.members === 2000);
    expect(state.spentUsd).toBeCloseTo(0.5 + 12 * CALL_USD, 9);

    await inChunks(members, (id) => handle.signal(leavePoolSignal, { memberWorkflowId: id }));
    state = await waitForPool(env.client, pool.poolId, (s) => s.members === 0 && s.runs >= 4);
    expect(state.spentUsd).toBeCloseTo(0.536, 9);
    expect(state.reports).toBe(512);
    const runs: string[] = [];
    for await (const w of env.client.workflow.list({ query: `WorkflowId = '${pool.workflowId}'` })) runs.push(w.runId);
    expect(runs.length).toBeGreaterThanOrEqual(state.runs);
  });
});
