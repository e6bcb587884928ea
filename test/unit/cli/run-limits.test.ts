import { RunLimits } from '../../../src/cli/run-limits';
import type { SDKResultMessage } from '../../../src/common/sdk-messages';

const result = (numTurns: number, totalCostUsd: number, extra: Partial<SDKResultMessage> = {}): SDKResultMessage =>
  ({
    type: 'result',
    subtype: 'success',
    is_error: false,
    num_turns: numTurns,
    total_cost_usd: totalCostUsd,
    result: 'ok',
    ...extra,
  }) as SDKResultMessage;

describe('RunLimits: a -p run bounded over all its turns', () => {
  test('turns add up over the run; the limit is reported once, when reached', () => {
    const l = new RunLimits({ maxTurns: 3 }, 0);
    expect(l.observe(result(2, 0.01))).toBeNull();
    expect(l.observe(result(1, 0.02))).toBe('error_max_turns');
    expect(l.observe(result(1, 0.03))).toBeNull();
    expect(l.reached).toBe('error_max_turns');
  });

  test("spend is the session's total less what it had before the run (a resumed session)", () => {
    const l = new RunLimits({ maxBudgetUsd: 0.1 }, 5);
    expect(l.observe(result(1, 5.06))).toBeNull();
    expect(l.observe(result(1, 5.11))).toBe('error_max_budget_usd');
  });

  test('no limits: nothing is reached', () => {
    const l = new RunLimits({}, 0);
    expect(l.observe(result(100, 100))).toBeNull();
  });

  test('the last result becomes the limit error only when reaching it stopped background tasks', () => {
    const l = new RunLimits({ maxTurns: 2 }, 0);
    l.observe(result(2, 0.01));
    // Nothing was stopped: a run that ended at its limit keeps its success.
    expect(l.finalResult(result(2, 0.01))).toMatchObject({ subtype: 'success', is_error: false });
    l.markStopped();
    const r = l.finalResult(result(1, 0.02));
    expect(r).toMatchObject({ subtype: 'error_max_turns', is_error: true, terminal_reason: 'run_limit' });
    expect(r.errors?.[0]).toContain('--max-turns 2');
    // A notification turn the stop interrupted says why the run stopped.
    const interrupted = result(0, 0.02, {
      subtype: 'error_during_execution',
      is_error: true,
      errors: ['[interrupted]'],
    });
    expect(l.finalResult(interrupted)).toMatchObject({
      subtype: 'error_max_turns',
      errors: ['[interrupted]', expect.stringContaining('--max-turns 2')],
    });
    // A turn that ended at the same limit by itself is kept as it is.
    const own = result(1, 0.02, { subtype: 'error_max_turns', is_error: true });
    expect(l.finalResult(own)).toBe(own);
  });

  test('the live spend (running agents included) reaches the budget before any result says so', () => {
    const l = new RunLimits({ maxBudgetUsd: 0.5 }, 0.2);
    expect(l.observeSpend(0.6)).toBeNull();
    expect(l.observeSpend(0.75)).toBe('error_max_budget_usd');
    expect(l.observeSpend(0.9)).toBeNull();
    // A result line then adds nothing new.
    expect(l.observe(result(1, 0.9))).toBeNull();
    expect(new RunLimits({ maxTurns: 2 }, 0).observeSpend(100)).toBeNull();
  });
});
