import { batchDue, COMPACTABLE_TOOLS, planMicrocompact, type ToolResultFacts } from '../../../src/engine/microcompact';
import { autoCompactThreshold } from '../../../src/engine/compaction';

const read = (id: string, file: string, tokens = 3_000): ToolResultFacts => ({
  toolUseId: id,
  tool: 'Read',
  wholeFileRead: file,
  tokens,
});
const bash = (id: string, tokens: number): ToolResultFacts => ({ toolUseId: id, tool: 'Bash', tokens });

describe('planMicrocompact', () => {
  test('planMicrocompact: a Read superseded by a later Read of the same file is cleared, the last kept', () => {
    const results = Array.from({ length: 10 }, (_, i) => read(`r${i}`, '/w/a.ts', 3_000));
    const plan = planMicrocompact(results, new Set(), { minFreedTokens: 20_000 });
    expect(plan.newlyCleared).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8']);
    expect(plan.cleared.has('r9')).toBe(false);
    expect(plan.freedTokens).toBe(27_000);
  });

  test('planMicrocompact: large stale results older than keepRecent are cleared, small ones and recent ones kept', () => {
    const results = [bash('fact', 50), ...Array.from({ length: 8 }, (_, i) => bash(`log${i}`, 5_000))];
    const plan = planMicrocompact(results, new Set(), { keepRecent: 3, minFreedTokens: 20_000 });
    expect(plan.newlyCleared).toEqual(['log0', 'log1', 'log2', 'log3', 'log4']);
    expect(plan.cleared.has('fact')).toBe(false);
    expect(plan.cleared.has('log7')).toBe(false);
  });

  test('planMicrocompact: a batch that frees less than minFreedTokens clears nothing new (the cached view stays)', () => {
    const results = [bash('a', 5_000), bash('b', 5_000), ...Array.from({ length: 5 }, (_, i) => bash(`n${i}`, 10))];
    const plan = planMicrocompact(results, new Set(['old']), { minFreedTokens: 20_000 });
    expect(plan.newlyCleared).toEqual([]);
    expect([...plan.cleared]).toEqual(['old']);
    expect(plan.freedTokens).toBe(0);
  });

  test('planMicrocompact: recorded clearings stay cleared and are not counted again', () => {
    const results = Array.from({ length: 12 }, (_, i) => bash(`l${i}`, 5_000));
    const first = planMicrocompact(results, new Set(), { minFreedTokens: 20_000 });
    expect(first.newlyCleared).toHaveLength(7);
    const again = planMicrocompact(results, first.cleared, { minFreedTokens: 20_000 });
    expect(again.newlyCleared).toEqual([]);
    expect(again.cleared).toEqual(first.cleared);
  });

  test('planMicrocompact: by default a batch must free 60,000 tokens', () => {
    const results = Array.from({ length: 17 }, (_, i) => bash(`l${i}`, 5_000));
    // 16 results: 11 stale ones free 55,000 tokens, too few; 17: 12 free 60,000.
    expect(planMicrocompact(results.slice(0, 16), new Set()).newlyCleared).toEqual([]);
    const plan = planMicrocompact(results, new Set());
    expect(plan.newlyCleared).toHaveLength(12);
    expect(plan.freedTokens).toBe(60_000);
  });

  test('planMicrocompact: enabled false clears nothing new but keeps what was recorded', () => {
    const results = Array.from({ length: 12 }, (_, i) => bash(`l${i}`, 5_000));
    const plan = planMicrocompact(results, new Set(['l0']), { enabled: false });
    expect(plan.newlyCleared).toEqual([]);
    expect([...plan.cleared]).toEqual(['l0']);
  });

  test('planMicrocompact: results of tools outside the compactable set are never cleared', () => {
    expect(COMPACTABLE_TOOLS.has('StructuredOutput')).toBe(false);
    const results = Array.from({ length: 12 }, (_, i) => ({ toolUseId: `m${i}`, tool: 'mcp__x__y', tokens: 9_000 }));
    expect(planMicrocompact(results, new Set(), {}).newlyCleared).toEqual([]);
  });
});

describe('a new batch waits until the context has grown to its trigger (the cache serves the view in between)', () => {
  test('autoCompactThreshold: the window (or contextWindowTokens) times autoCompactRatio; undefined when it is off', () => {
    expect(autoCompactThreshold(200_000, { autoCompactRatio: 0.8 })).toBe(160_000);
    expect(autoCompactThreshold(1_000_000, { autoCompactRatio: 0.5, contextWindowTokens: 200_000 })).toBe(100_000);
    expect(autoCompactThreshold(200_000, undefined)).toBe(160_000);
    expect(autoCompactThreshold(200_000, { autoCompactRatio: 0 })).toBeUndefined();
  });

  test('batchDue: below triggerFill of the threshold no batch; at or past it a batch may be made', () => {
    expect(batchDue(100_000, 160_000, undefined)).toBe(false);
    expect(batchDue(152_000, 160_000, undefined)).toBe(true);
    expect(batchDue(127_000, 160_000, { triggerFill: 0.8 })).toBe(false);
    expect(batchDue(128_000, 160_000, { triggerFill: 0.8 })).toBe(true);
  });

  test('batchDue: with the trigger 0, no call yet, or auto-compaction off, batches at any size', () => {
    expect(batchDue(1_000, 160_000, { triggerFill: 0 })).toBe(true);
    expect(batchDue(undefined, 160_000, { triggerFill: 0.9 })).toBe(true);
    expect(batchDue(1_000, undefined, undefined)).toBe(true);
  });
});
