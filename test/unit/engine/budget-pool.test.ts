import { PoolLedger, newPoolSnapshot } from '../../../src/engine/budget-pool';

describe('PoolLedger', () => {
  test('spend: totals add up per member and for the pool; reaching the limit is reported once', () => {
    const p = new PoolLedger(newPoolSnapshot(1));
    p.join('a');
    expect(p.spend('a', 0.4, 10)).toBeNull();
    expect(p.spend('b', 0.5, 20)).toBeNull(); // a report joins its sender
    expect(p.members).toBe(2);
    expect(p.spend('a', 0.1, 30)).toBe('exhausted'); // 1.0 >= 1
    expect(p.spend('b', 0.2, 40)).toBeNull(); // already exhausted
    const s = p.snapshot();
    expect(s.spentUsd).toBeCloseTo(1.2, 12);
    expect(s.members).toEqual({ a: 0.5, b: 0.7 });
    expect(s).toMatchObject({ exhausted: true, exhaustedAtMs: 30, reports: 4, rev: 1 });
    expect(p.status(7)).toEqual({ exhausted: true, limitUsd: 1, spentUsd: s.spentUsd, rev: 1, ack: 7 });
    expect(p.status()).not.toHaveProperty('ack');
  });

  test('setLimit: raising above the spend refills, lowering below exhausts; each change bumps rev', () => {
    const p = new PoolLedger(newPoolSnapshot(1));
    p.spend('a', 1.5, 1);
    expect(p.exhausted).toBe(true);
    expect(p.setLimit(1.4, 2)).toBeNull(); // still below the spend
    expect(p.setLimit(2, 3)).toBe('refilled');
    expect(p.status()).toMatchObject({ exhausted: false, limitUsd: 2, rev: 2 });
    expect(p.setLimit(1, 4)).toBe('exhausted');
    expect(p.snapshot()).toMatchObject({ exhausted: true, rev: 3, exhaustedAtMs: 4 });
  });

  test('leave: a member is dropped but its spend stays in the pool; leaving twice is harmless', () => {
    const p = new PoolLedger(newPoolSnapshot(10));
    p.spend('a', 2, 1);
    p.join('b');
    p.leave('a');
    p.leave('a');
    expect(p.members).toBe(1);
    expect(p.memberIds()).toEqual(['b']);
    expect(p.snapshot().spentUsd).toBe(2);
    expect(p.isMember('a')).toBe(false);
  });

  test('spend: negative, NaN or infinite amounts count as 0', () => {
    const p = new PoolLedger(newPoolSnapshot(1));
    p.spend('a', -5, 1);
    p.spend('a', Number.NaN, 1);
    p.spend('a', Number.POSITIVE_INFINITY, 1);
    expect(p.snapshot().spentUsd).toBe(0);
    expect(p.snapshot().reports).toBe(3);
  });

  test('snapshot: a ledger rebuilt from its snapshot (continue-as-new) has the same state and member count', () => {
    const p = new PoolLedger(newPoolSnapshot(5));
    for (let i = 0; i < 3000; i++) p.spend(`turn-${i}`, 0.001, i);
    const json = JSON.parse(JSON.stringify(p.snapshot()));
    const q = new PoolLedger(json);
    expect(q.members).toBe(3000);
    expect(q.snapshot().spentUsd).toBeCloseTo(3, 9);
    expect(q.snapshot().reports).toBe(3000);
    expect(JSON.stringify(json).length).toBeLessThan(100_000); // compact: id → USD
  });

  test('newPoolSnapshot: a pool with a zero limit starts exhausted', () => {
    expect(new PoolLedger(newPoolSnapshot(0)).exhausted).toBe(true);
  });
});
