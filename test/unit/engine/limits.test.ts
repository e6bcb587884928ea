import { applyLimitPatch, checkLimits } from '../../../src/engine/limits';

describe('limits', () => {
  test('checkLimits: maxTurns stops the call after the N-th', () => {
    expect(checkLimits({ maxTurns: 2 }, { modelCalls: 1, costUsd: 0 }).stop).toBe(false);
    expect(checkLimits({ maxTurns: 2 }, { modelCalls: 2, costUsd: 0 })).toMatchObject({
      stop: true,
      subtype: 'error_max_turns',
    });
  });
  test('checkLimits: budget reached stops with the spent amount in errors', () => {
    const v = checkLimits({ maxBudgetUsd: 0.5 }, { modelCalls: 3, costUsd: 0.5 });
    expect(v).toMatchObject({ stop: true, subtype: 'error_max_budget_usd' });
    expect(v.stop && v.errors[0]).toContain('$0.5');
  });
  test('checkLimits: budget wins over turns when both are reached', () => {
    expect(checkLimits({ maxBudgetUsd: 1, maxTurns: 1 }, { modelCalls: 1, costUsd: 2 })).toMatchObject({
      subtype: 'error_max_budget_usd',
    });
  });
  test('checkLimits: an exhausted pool stops with error_max_budget_usd', () => {
    expect(checkLimits({}, { modelCalls: 0, costUsd: 0, poolExhausted: true, poolLimitUsd: 3 })).toMatchObject({
      subtype: 'error_max_budget_usd',
    });
  });
  test('checkLimits: a USD limit stops a turn whose calls have unknown cost (a model without a price)', () => {
    const unpriced = { modelCalls: 1, costUsd: 0, unpricedModels: ['claude-mystery-9'] };
    const v = checkLimits({ maxBudgetUsd: 5 }, unpriced);
    expect(v).toMatchObject({ stop: true, subtype: 'error_max_budget_usd' });
    expect(v.stop && v.errors[0]).toContain('"claude-mystery-9" has no price');
    expect(checkLimits({}, { ...unpriced, inBudgetPool: true })).toMatchObject({ subtype: 'error_max_budget_usd' });
    // No USD limit: an unknown cost stops nothing.
    expect(checkLimits({ maxTurns: 5 }, unpriced).stop).toBe(false);
  });
  test('applyLimitPatch: number sets, null removes, absent keeps', () => {
    expect(applyLimitPatch({ maxTurns: 3, maxBudgetUsd: 1 }, { maxTurns: 5, maxBudgetUsd: null })).toEqual({
      maxTurns: 5,
    });
  });
});
