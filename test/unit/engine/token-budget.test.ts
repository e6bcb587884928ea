import { checkTokenBudget, newTokenBudgetTracker } from '../../../src/engine/token-budget';

describe('token budget', () => {
  test('checkTokenBudget: nudges while under 90% of the budget', () => {
    const d = checkTokenBudget(newTokenBudgetTracker(), 10_000, 2_000);
    expect(d.action).toBe('continue');
    expect(d.action === 'continue' && d.nudge).toContain('20%');
  });
  test('checkTokenBudget: stops at 90%', () => {
    expect(checkTokenBudget(newTokenBudgetTracker(), 10_000, 9_000)).toMatchObject({
      action: 'stop',
      reason: 'completed',
    });
  });
  test('checkTokenBudget: stops when three continuations made little progress', () => {
    let t = newTokenBudgetTracker();
    let tokens = 1000;
    for (let i = 0; i < 3; i++) {
      const d = checkTokenBudget(t, 100_000, tokens);
      if (d.action !== 'continue') throw new Error('expected continue');
      t = d.tracker;
      tokens += 100;
    }
    expect(checkTokenBudget(t, 100_000, tokens)).toMatchObject({ action: 'stop', reason: 'diminishing' });
  });
  test('checkTokenBudget: no budget means no nudge', () => {
    expect(checkTokenBudget(newTokenBudgetTracker(), undefined, 5)).toMatchObject({
      action: 'stop',
      reason: 'no_budget',
    });
  });
});
