/**
 * Cost and limits of a turn on a real dev server, with exact usage per model call (the fake
 * model's step `usage` override) so every figure can be computed by hand from temporal.yaml's
 * prices: claude-sonnet-5-5 $2 in / $10 out / $2.5 cache write / $0.20 cache read per MTok;
 * claude-haiku-4-5 $1 / $5 / $1.25 / $0.10.
 */
import type { SDKMessage } from '../../src/common/sdk-messages';
import { installRuntimeLogging } from '../../src/worker/logging';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

installRuntimeLogging('WARN');

/** A Glob call costing exactly $0.003 on claude-sonnet-5-5 (1000 in × $2 + 100 out × $10 per MTok). */
const GLOB_CALL = {
  content: [{ tool_use: { name: 'Glob', input: { pattern: '*.txt' } } }],
  usage: { input_tokens: 1000, output_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
};
const CALL_USD = 0.003;

function toolResults(messages: SDKMessage[]): Array<Record<string, unknown>> {
  return messages.flatMap((m) =>
    m.type === 'user' && Array.isArray(m.message.content)
      ? (m.message.content as Array<Record<string, unknown>>).filter((b) => b['type'] === 'tool_result')
      : [],
  );
}

function toolUseIds(messages: SDKMessage[]): string[] {
  return messages.flatMap((m) =>
    m.type === 'assistant'
      ? ((m.message['content'] ?? []) as Array<Record<string, unknown>>)
          .filter((b) => b['type'] === 'tool_use')
          .map((b) => String(b['id']))
      : [],
  );
}

describe('cost', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('cost: modelUsage per model and total_cost_usd match hand-computed figures, cache writes and reads included', async () => {
    env = await startRunnerEnv({
      scenario: {
        steps: [
          {
            content: [{ tool_use: { name: 'Glob', input: { pattern: '*' } } }],
            usage: {
              input_tokens: 1000,
              output_tokens: 200,
              cache_creation_input_tokens: 3000,
              cache_read_input_tokens: 0,
            },
          },
          {
            model: 'claude-haiku-4-5',
            content: [{ tool_use: { name: 'Glob', input: { pattern: '*' } } }],
            usage: {
              input_tokens: 500,
              output_tokens: 100,
              cache_creation_input_tokens: 0,
              cache_read_input_tokens: 4000,
            },
          },
          {
            content: [{ text: 'done' }],
            usage: {
              input_tokens: 10,
              output_tokens: 50,
              cache_creation_input_tokens: 0,
              cache_read_input_tokens: 3000,
            },
          },
        ],
      },
    });
    const engine = env.engine({ cwd: makeRepo({ 'a.txt': 'a' }) });
    const { result } = await env.runTurn(engine, 'count');
    // sonnet call 1: 1000×2 + 200×10 + 3000×2.5 = 11,500 µ$; call 3: 10×2 + 50×10 + 3000×0.2 = 1,120 µ$
    // haiku call 2: 500×1 + 100×5 + 4000×0.1 = 1,400 µ$
    expect(result.subtype).toBe('success');
    expect(result.total_cost_usd_known).toBe(true);
    expect(result.total_cost_usd).toBeCloseTo(0.01402, 12);
    expect(result.usage).toMatchObject({
      input_tokens: 1510,
      output_tokens: 350,
      cache_creation_input_tokens: 3000,
      cache_read_input_tokens: 7000,
    });
    expect(Object.keys(result.modelUsage).sort()).toEqual(['claude-haiku-4-5', 'claude-sonnet-5-5']);
    expect(result.modelUsage['claude-sonnet-5-5']).toMatchObject({
      inputTokens: 1010,
      outputTokens: 250,
      cacheCreationInputTokens: 3000,
      cacheReadInputTokens: 3000,
    });
    expect(result.modelUsage['claude-sonnet-5-5']?.costUSD).toBeCloseTo(0.01262, 12);
    expect(result.modelUsage['claude-haiku-4-5']).toMatchObject({
      inputTokens: 500,
      outputTokens: 100,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 4000,
    });
    expect(result.modelUsage['claude-haiku-4-5']?.costUSD).toBeCloseTo(0.0014, 12);
    const state = await engine.state();
    expect(state.totalCostUsd).toBeCloseTo(0.01402, 12);
    expect(state.costKnown).toBe(true);
  });

  test('cost: a model missing from the price table makes the cost unknown (costUSD null, known false), not 0', async () => {
    env = await startRunnerEnv({
      scenario: {
        steps: [
          { ...GLOB_CALL, model: 'claude-mystery-9' },
          { content: [{ text: 'done' }], usage: GLOB_CALL.usage },
        ],
      },
    });
    const engine = env.engine({ cwd: makeRepo({ 'a.txt': 'a' }) });
    const { result } = await env.runTurn(engine, 'count');
    expect(result.subtype).toBe('success');
    expect(result.modelUsage['claude-mystery-9']).toMatchObject({
      inputTokens: 1000,
      outputTokens: 100,
      costUSD: null,
    });
    expect(result.modelUsage['claude-sonnet-5-5']?.costUSD).toBeCloseTo(CALL_USD, 12);
    expect(result.total_cost_usd_known).toBe(false);
    expect(result.total_cost_usd).toBeCloseTo(CALL_USD, 12); // the priced part only
    const state = await engine.state();
    expect(state.costKnown).toBe(false);
  });
});

describe('limits', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('maxTurns: stops after N model calls with error_max_turns at exactly N calls of cost', async () => {
    env = await startRunnerEnv({ scenario: { steps: Array.from({ length: 8 }, () => GLOB_CALL) } });
    const engine = env.engine({ cwd: makeRepo({ 'a.txt': 'a' }) });
    const { messages, result } = await env.runTurn(engine, 'loop', { limits: { maxTurns: 3 } });
    expect(result).toMatchObject({ subtype: 'error_max_turns', is_error: true, num_turns: 3 });
    expect(result.total_cost_usd).toBeCloseTo(3 * CALL_USD, 12);
    expect(result.errors).toEqual(['Reached maximum number of turns (3)']);
    expect(toolResults(messages).map((b) => b['tool_use_id'])).toEqual(toolUseIds(messages));
    expect(env.fake.completedCalls()).toHaveLength(3);
  });

  test('maxBudgetUsd: stops with error_max_budget_usd, the reached cost in errors, at most one call past the limit', async () => {
    env = await startRunnerEnv({ scenario: { steps: Array.from({ length: 10 }, () => GLOB_CALL) } });
    const engine = env.engine({ cwd: makeRepo({ 'a.txt': 'a' }) });
    const limit = 0.01;
    const { messages, result } = await env.runTurn(engine, 'loop', { limits: { maxBudgetUsd: limit } });
    // Calls 1–3 cost $0.009 < $0.01, so call 4 runs; after it $0.012 >= $0.01: stop.
    expect(result).toMatchObject({ subtype: 'error_max_budget_usd', is_error: true, num_turns: 4 });
    expect(result.total_cost_usd).toBeCloseTo(0.012, 12);
    expect(result.total_cost_usd).toBeGreaterThanOrEqual(limit);
    expect(result.total_cost_usd - limit).toBeLessThan(CALL_USD);
    expect(result.errors).toEqual(['Reached maximum budget ($0.01): spent $0.012000']);
    // The tools of the call that crossed the limit did not run, but have a tool_result.
    const results = toolResults(messages);
    expect(results.map((b) => b['tool_use_id'])).toEqual(toolUseIds(messages));
    expect(String(results[3]?.['content'])).toContain('budget was reached');
    expect(results[3]?.['is_error']).toBe(true);
  });

  test('taskBudget: nudges while under 90% of the budget and stops once progress stalls (3+ continuations under 500 tokens)', async () => {
    const say = (output: number) => ({
      content: [{ text: `worked (${output} tokens)` }],
      usage: { input_tokens: 100, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
    env = await startRunnerEnv({
      scenario: {
        steps: [
          say(1000), // 10% of 10,000 → nudge 1
          { ...say(1000), expect: { messagesCount: 4 } }, // 20% → nudge 2
          say(100), // 21%: 2 continuations so far → nudge 3 (delta 100)
          say(100), // 3 continuations, this delta 100 and the last 100 both < 500 → stop
          say(5000), // never reached
        ],
      },
    });
    const engine = env.engine({ cwd: makeRepo({}) });
    const { messages, result } = await env.runTurn(engine, 'work', { limits: { taskBudget: 10_000 } });
    expect(result).toMatchObject({ subtype: 'success', num_turns: 4, result: 'worked (100 tokens)' });
    expect(result.usage.output_tokens).toBe(2200);
    const nudges = messages.filter((m) => m.type === 'user' && m.isSynthetic);
    expect(nudges).toHaveLength(3);
    expect(JSON.stringify(nudges[0])).toContain('You have used 10% of');
    expect(JSON.stringify(nudges[2])).toContain('You have used 21% of');
  });

  test('taskBudget: stops nudging once 90% of the budget is used', async () => {
    const say = (output: number) => ({
      content: [{ text: `part ${output}` }],
      usage: { input_tokens: 100, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
    env = await startRunnerEnv({ scenario: { steps: [say(1000), say(900), say(5000)] } });
    const engine = env.engine({ cwd: makeRepo({}) });
    const { messages, result } = await env.runTurn(engine, 'work', { limits: { taskBudget: 2000 } });
    // 1000 of 2000 (50%) → nudge; 1900 (95%) ≥ 90% → done.
    expect(result).toMatchObject({ subtype: 'success', num_turns: 2, result: 'part 900' });
    expect(messages.filter((m) => m.type === 'user' && m.isSynthetic)).toHaveLength(1);
  });
});
