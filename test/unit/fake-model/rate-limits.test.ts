import { RateLimiter } from '../../../src/fake-model/rate-limits';

describe('fake model rate limits', () => {
  test('requests per minute: a full bucket, then refills; 429 verdicts say how long to wait', () => {
    let now = 0;
    const r = new RateLimiter({ requestsPerMinute: 2 }, () => now);
    expect(r.admit(10)).toEqual({ ok: true });
    expect(r.admit(10)).toEqual({ ok: true });
    expect(r.admit(10)).toEqual({ ok: false, retryAfterMs: 30_000, limit: 'requests' });
    expect(r.refused).toBe(1);
    now = 30_000;
    expect(r.admit(10)).toEqual({ ok: true });
    expect(r.headers()).toEqual({
      'anthropic-ratelimit-requests-limit': '2',
      'anthropic-ratelimit-requests-remaining': '0',
      'anthropic-ratelimit-requests-reset': new Date(90_000).toISOString(),
    });
  });

  test('input tokens at admission, output tokens at completion; tokens-* is the tighter of the two', () => {
    let now = 0;
    const r = new RateLimiter({ inputTokensPerMinute: 1000, outputTokensPerMinute: 100, periodMs: 1000 }, () => now);
    expect(r.admit(900).ok).toBe(true);
    expect(r.admit(200)).toEqual({ ok: false, retryAfterMs: 100, limit: 'input' });
    r.completed(150); // output bucket now -50
    now = 100; // input +100 → 200; output +10 → -40
    expect(r.admit(200)).toEqual({ ok: false, retryAfterMs: 410, limit: 'output' });
    const h = r.headers();
    expect(h['anthropic-ratelimit-output-tokens-remaining']).toBe('0');
    expect(h['anthropic-ratelimit-tokens-limit']).toBe('100');
    expect(h['anthropic-ratelimit-input-tokens-remaining']).toBe('200');
  });
});
