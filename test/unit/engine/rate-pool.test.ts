import { RateLedger, newRatePoolSnapshot } from '../../../src/engine/rate-pool';
import type { LeaseRequest } from '../../../src/common/rate-pool';

const req = (member: string, seq: number, extra: Partial<LeaseRequest> = {}): LeaseRequest => ({
  memberWorkflowId: member,
  seq,
  inputTokens: 0,
  outputTokens: 0,
  ...extra,
});

describe('RateLedger', () => {
  test('grants a full bucket at once but its reserve (a tenth), then one request per 60000/limit ms', () => {
    const l = new RateLedger(newRatePoolSnapshot({ requestsPerMinute: 60 }, 0));
    for (let i = 0; i < 56; i++) l.request(req(`m${i}`, 0), 0);
    expect(l.grants(0)).toHaveLength(54);
    expect(l.nextGrantInMs(0)).toBe(1000);
    expect(l.grants(999)).toHaveLength(0);
    expect(l.grants(1000).map(([m]) => m)).toEqual(['m54']);
    expect(l.grants(2000).map(([m]) => m)).toEqual(['m55']);
  });

  test('a limit unknown until headers: one call at a time, then the stated limit and remaining', () => {
    const l = new RateLedger(newRatePoolSnapshot({}, 0));
    l.request(req('a', 0), 0);
    l.request(req('b', 0), 0);
    expect(l.grants(0).map(([m]) => m)).toEqual(['a']);
    expect(l.nextGrantInMs(10)).toBeNull(); // waits for a's report
    l.request(
      req('a', 1, {
        report: { seq: 0, inputTokens: 5, outputTokens: 5, rate: { requests: { limit: 60, remaining: 10 } } },
      }),
      10,
    );
    expect(l.effectiveLimit('requests')).toBe(60);
    expect(l.grants(10).map(([m]) => m)).toEqual(['b', 'a']); // 10 remaining, 6 kept in reserve
  });

  test('a configured limit is a ceiling for what headers say', () => {
    const l = new RateLedger(newRatePoolSnapshot({ requestsPerMinute: 30 }, 0));
    l.request(req('a', 0), 0);
    l.grants(0);
    l.leave('a', { seq: 0, inputTokens: 1, outputTokens: 1, rate: { requests: { limit: 100, remaining: 99 } } }, 0);
    expect(l.effectiveLimit('requests')).toBe(30);
  });

  test('a 429 pauses the pool for retry-after, empties the buckets and shrinks the rate; clean calls grow it back', () => {
    const l = new RateLedger(newRatePoolSnapshot({ requestsPerMinute: 600 }, 0));
    l.request(req('a', 0), 0);
    l.grants(0);
    l.request(
      req('a', 1, {
        report: { seq: 0, inputTokens: 0, outputTokens: 0, throttled: true, rate: { retryAfterMs: 2000 } },
      }),
      100,
    );
    expect(l.effectiveLimit('requests')).toBeCloseTo(510);
    // Paused 2 s, but the empty bucket must first refill its reserve (51) and the lease (1).
    const wait = Math.ceil((52 * 60_000) / 510);
    expect(l.nextGrantInMs(100)).toBe(wait);
    expect(l.grants(99 + wait)).toHaveLength(0);
    expect(l.grants(100 + wait)).toHaveLength(1);
    l.leave('a', { seq: 1, inputTokens: 0, outputTokens: 0 }, 200 + wait);
    expect(l.effectiveLimit('requests')).toBeCloseTo(600 * 0.87);
    expect(l.snapshot().throttled).toBe(1);
  });

  test('tokens: a lease takes its estimate; the report corrects the bucket by what was billed', () => {
    const l = new RateLedger(newRatePoolSnapshot({ inputTokensPerMinute: 1000, requestsPerMinute: 1000 }, 0));
    l.request(req('a', 0, { inputTokens: 600 }), 0);
    l.request(req('b', 0, { inputTokens: 600 }), 0);
    expect(l.grants(0).map(([m]) => m)).toEqual(['a']);
    expect(l.nextGrantInMs(0)).toBe(18_000); // 600 + 100 of reserve: 300 missing at 1000/min
    // a was billed 100 only: 500 come back, b fits.
    l.leave('a', { seq: 0, inputTokens: 100, outputTokens: 0 }, 0);
    expect(l.grants(0).map(([m]) => m)).toEqual(['b']);
  });

  test('priority first; within a priority the fairness key served least, then arrival', () => {
    const l = new RateLedger(newRatePoolSnapshot({ requestsPerMinute: 60 }, 0));
    const s = l.snapshot();
    s.requests.level = 0;
    l.request(req('low', 0, { priority: 5 }), 0);
    l.request(req('x1', 0, { fairnessKey: 'X' }), 0);
    l.request(req('x2', 0, { fairnessKey: 'X' }), 0);
    l.request(req('y1', 0, { fairnessKey: 'Y' }), 0);
    l.request(req('high', 0, { priority: 1 }), 0);
    const order: string[] = [];
    for (let t = 1000; order.length < 5; t += 1000) order.push(...l.grants(t).map(([m]) => m));
    expect(order).toEqual(['high', 'x1', 'y1', 'x2', 'low']);
  });

  test('a repeated request is granted once; a newer one replaces a waiting one', () => {
    const l = new RateLedger(newRatePoolSnapshot({ requestsPerMinute: 60 }, 0));
    l.request(req('a', 0), 0);
    expect(l.grants(0)).toHaveLength(1);
    l.request(req('a', 0), 0);
    expect(l.waiting).toBe(0);
    l.snapshot().requests.level = 0;
    l.request(req('a', 1), 0);
    l.request(req('a', 2), 0);
    expect(l.waiting).toBe(1);
    expect(l.grants(7000)).toEqual([['a', { seq: 2, waitedMs: 7000 }]]); // 1 + 6 of reserve
  });

  test('headers lower a level the API says is lower (other users of the key), refilled since', () => {
    const l = new RateLedger(newRatePoolSnapshot({ requestsPerMinute: 60 }, 0));
    l.request(req('a', 0), 0);
    l.grants(0); // level 59
    // At t=0 the API had 10 left: full again at 50 s. At t=5 s that is 15, 6 of them reserve.
    l.leave(
      'a',
      { seq: 0, inputTokens: 0, outputTokens: 0, rate: { requests: { limit: 60, remaining: 10, resetAtMs: 50_000 } } },
      5000,
    );
    for (let i = 0; i < 20; i++) l.request(req(`m${i}`, 0), 5000);
    expect(l.grants(5000)).toHaveLength(9);
  });
});
