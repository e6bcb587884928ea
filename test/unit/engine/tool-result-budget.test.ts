import {
  PER_MESSAGE_TOOL_RESULT_CHARS,
  planToolResultBudget,
  type BudgetedMessage,
} from '../../../src/engine/tool-result-budget';

const msg = (sent: boolean, ...results: Array<[string, string, number, boolean?]>): BudgetedMessage => ({
  sent,
  results: results.map(([toolUseId, tool, chars, fixed]) => ({ toolUseId, tool, chars, ...(fixed ? { fixed } : {}) })),
});

describe('planToolResultBudget', () => {
  test('planToolResultBudget: a fresh message within the budget (Claude Code: 200,000 characters) is sent whole', () => {
    expect(PER_MESSAGE_TOOL_RESULT_CHARS).toBe(200_000);
    const plan = planToolResultBudget([msg(false, ['a', 'Bash', 100_000], ['b', 'Grep', 100_000])], new Set());
    expect(plan).toEqual({ newlyReplaced: [], replacedChars: 0, messagesOverBudget: 0 });
  });

  test('planToolResultBudget: over the budget, the largest results are replaced first until the rest fits', () => {
    const plan = planToolResultBudget(
      [msg(false, ['a', 'Bash', 90_000], ['b', 'Grep', 120_000], ['c', 'Bash', 60_000], ['d', 'Glob', 5_000])],
      new Set(),
    );
    expect(plan).toEqual({ newlyReplaced: ['b'], replacedChars: 120_000, messagesOverBudget: 1 });
    const tight = planToolResultBudget([msg(false, ['a', 'Bash', 90_000], ['b', 'Grep', 120_000])], new Set(), {
      perMessageChars: 50_000,
    });
    expect(tight.newlyReplaced).toEqual(['b', 'a']);
  });

  test('planToolResultBudget: a message sent before is never rewritten (the cached prefix stays), however large', () => {
    const plan = planToolResultBudget([msg(true, ['a', 'Bash', 300_000]), msg(false, ['b', 'Bash', 10])], new Set());
    expect(plan.newlyReplaced).toEqual([]);
  });

  test('planToolResultBudget: Read and WebFetch opt out (maxResultSizeChars Infinity, skipAggregateToolResultBudget), as do references and images', () => {
    const plan = planToolResultBudget(
      [
        msg(
          false,
          ['r', 'Read', 250_000],
          ['w', 'WebFetch', 250_000],
          ['p', 'Bash', 250_000, true],
          ['x', 'Bash', 150_000],
        ),
      ],
      new Set(),
    );
    expect(plan.newlyReplaced).toEqual([]);
    const extra = planToolResultBudget([msg(false, ['m', 'mcp__s__big', 250_000])], new Set(), {
      exemptTools: ['mcp__s__big'],
    });
    expect(extra.newlyReplaced).toEqual([]);
  });

  test('planToolResultBudget: recorded replacements are not counted again; enabled false replaces nothing new', () => {
    const messages = [msg(false, ['a', 'Bash', 150_000], ['b', 'Bash', 150_000])];
    expect(planToolResultBudget(messages, new Set(['a'])).newlyReplaced).toEqual([]);
    expect(planToolResultBudget(messages, new Set(), { enabled: false }).newlyReplaced).toEqual([]);
  });
});
