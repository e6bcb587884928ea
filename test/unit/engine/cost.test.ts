import { addModelUsage, costOfUsage, mergeModelUsage, totalCost } from '../../../src/engine/cost';

const SONNET = { input: 3, output: 15, cacheWrite5m: 3.75, cacheWrite1h: 6, cacheRead: 0.3 };
const usage = {
  input_tokens: 1_000_000,
  output_tokens: 100_000,
  cache_creation_input_tokens: 200_000,
  cache_read_input_tokens: 2_000_000,
};
const limits = { contextWindow: 200_000, maxOutputTokens: 8192 };

describe('cost', () => {
  test('costOfUsage: prices each token kind at its rate (USD per million)', () => {
    // 3 + 1.5 + 0.75 + 0.6
    expect(costOfUsage(usage, SONNET)).toBeCloseTo(5.85, 10);
  });
  test('costOfUsage: an unknown model has an unknown cost, never 0', () => {
    expect(costOfUsage(usage, null)).toBeNull();
  });
  test('addModelUsage: accumulates per model', () => {
    let m = addModelUsage({}, 'a', usage, 1, limits);
    m = addModelUsage(m, 'a', usage, 2, limits);
    m = addModelUsage(m, 'b', usage, 0.5, limits);
    expect(m['a']).toMatchObject({ inputTokens: 2_000_000, outputTokens: 200_000, costUSD: 3 });
    expect(totalCost(m)).toEqual({ usd: 3.5, known: true });
  });
  test('addModelUsage: one unpriced call makes the model cost unknown for good', () => {
    let m = addModelUsage({}, 'x', usage, null, limits);
    m = addModelUsage(m, 'x', usage, 1, limits);
    expect(m['x']?.costUSD).toBeNull();
    expect(totalCost(m)).toEqual({ usd: 0, known: false });
  });
  test('mergeModelUsage: sums two maps', () => {
    const a = addModelUsage({}, 'a', usage, 1, limits);
    const merged = mergeModelUsage(a, a);
    expect(merged['a']?.costUSD).toBe(2);
    expect(merged['a']?.inputTokens).toBe(2_000_000);
  });
});
