import type { BudgetPoolInput } from '../../../src/common/budget-pool';
import { PoolState } from '../../../src/workflows/budget-pool-state';

const input: BudgetPoolInput = { poolId: 'p', limitUsd: 1, maxSignalsPerRun: 5 };
const sent = (s: PoolState) => s.takeMessages(100).map(([id, st]) => ({ id, ack: st.ack, exhausted: st.exhausted }));

describe('PoolState', () => {
  test('PoolState: a numbered join is acknowledged; an unnumbered one is told only of an exhausted pool', () => {
    const s = new PoolState(input);
    s.join({ memberWorkflowId: 'a', seq: 0 });
    s.join({ memberWorkflowId: 'b' });
    expect(sent(s)).toEqual([{ id: 'a', ack: 0, exhausted: false }]);
    const empty = new PoolState({ ...input, limitUsd: 0 });
    empty.join({ memberWorkflowId: 'c' });
    expect(sent(empty)).toEqual([{ id: 'c', ack: undefined, exhausted: true }]);
  });

  test('PoolState: the report that exhausts the pool is told to every member, acks merge per member', () => {
    const s = new PoolState(input);
    s.join({ memberWorkflowId: 'a', seq: 0 });
    s.join({ memberWorkflowId: 'b', seq: 0 });
    sent(s);
    s.spend({ memberWorkflowId: 'a', usd: 0.4, seq: 1 }, 1000);
    s.spend({ memberWorkflowId: 'a', usd: 0.7, seq: 2 }, 2000);
    expect(sent(s)).toEqual([
      { id: 'a', ack: 2, exhausted: true },
      { id: 'b', ack: undefined, exhausted: true },
    ]);
    expect(s.view()).toMatchObject({
      spentUsd: 1.1,
      exhausted: true,
      exhaustedAt: new Date(2000).toISOString(),
      reports: 2,
    });
  });

  test('PoolState: a member that left is owed nothing; a refill reaches the members still in', () => {
    const s = new PoolState({ ...input, limitUsd: 0.1 });
    s.join({ memberWorkflowId: 'a', seq: 0 });
    s.join({ memberWorkflowId: 'b', seq: 0 });
    s.spend({ memberWorkflowId: 'a', usd: 0.2, seq: 1 }, 1);
    s.leave({ memberWorkflowId: 'a' });
    expect(sent(s).map((m) => m.id)).toEqual(['b']);
    s.setLimit(-1, 2); // ignored
    s.setLimit(5, 3);
    expect(sent(s)).toEqual([{ id: 'b', ack: undefined, exhausted: false }]);
  });

  test('PoolState: closing is refused while turns are in the pool, unless forced; closed once nothing is owed', () => {
    const s = new PoolState(input);
    s.join({ memberWorkflowId: 'a', seq: 0 });
    expect(() => s.checkClose(false)).toThrow(/1 running turn/);
    expect(() => s.checkClose(true)).not.toThrow();
    s.close();
    expect(s.closed).toBe(false);
    sent(s);
    expect(s.closed).toBe(true);
    expect(s.continueAsNewDue(true)).toBe(false);
  });

  test('PoolState: after maxSignalsPerRun signals continue-as-new is due, carrying the books and what is owed', () => {
    const s = new PoolState(input);
    for (let i = 0; i < 4; i++) s.join({ memberWorkflowId: `m${i}`, seq: 0 });
    expect(s.continueAsNewDue(false)).toBe(false);
    s.spend({ memberWorkflowId: 'm0', usd: 0.5, seq: 1 }, 1);
    expect(s.continueAsNewDue(false)).toBe(true);
    const next = new PoolState({ ...input, ...s.carry() });
    expect(next.runs).toBe(2);
    expect(next.view()).toMatchObject({ members: 4, spentUsd: 0.5, signalsThisRun: 0 });
    expect(sent(next).map((m) => [m.id, m.ack])).toEqual([
      ['m0', 1],
      ['m1', 0],
      ['m2', 0],
      ['m3', 0],
    ]);
  });
});
