import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { ModelErrorType } from '../../../../src/common/model';
import type { ModelErrorDetails } from '../../../../src/common/model';
import { classifyModelError } from '../../../../src/activities/model/errors';
import { rateHeadersOf, throttledForPool } from '../../../../src/activities/model/rate-headers';

const headers = new Headers({
  'anthropic-ratelimit-requests-limit': '50',
  'anthropic-ratelimit-requests-remaining': '0',
  'anthropic-ratelimit-requests-reset': '2026-12-03T10:00:30Z',
  'anthropic-ratelimit-input-tokens-limit': '30000',
  'anthropic-ratelimit-input-tokens-remaining': '29000',
  'anthropic-ratelimit-output-tokens-limit': '8000',
  'anthropic-ratelimit-output-tokens-remaining': 'n/a',
  'retry-after': '7',
});

describe('rate-limit headers', () => {
  test('parsed per limit (a limit without both numbers is left out), with retry-after', () => {
    expect(rateHeadersOf(headers)).toEqual({
      requests: { limit: 50, remaining: 0, resetAtMs: Date.parse('2026-12-03T10:00:30Z') },
      inputTokens: { limit: 30000, remaining: 29000 },
      retryAfterMs: 7000,
    });
    expect(rateHeadersOf(new Headers({ 'content-type': 'text/event-stream' }))).toBeUndefined();
    expect(rateHeadersOf(undefined)).toBeUndefined();
  });

  test("a pool member's 429 is non-retryable and carries the headers; other failures are unchanged", () => {
    const err = Anthropic.APIError.generate(
      429,
      { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
      undefined,
      headers,
    );
    const classified = classifyModelError(err);
    expect(classified.nonRetryable).toBe(false);
    const f = throttledForPool(classified, err);
    expect(f.type).toBe(ModelErrorType.RateLimit);
    expect(f.nonRetryable).toBe(true);
    const d = f.details?.[0] as ModelErrorDetails;
    expect(d.status).toBe(429);
    expect(d.rate?.requests?.remaining).toBe(0);
    expect(d.rate?.retryAfterMs).toBe(7000);
    const other = ApplicationFailure.create({ type: ModelErrorType.Overloaded, message: 'x' });
    expect(throttledForPool(other, err)).toBe(other);
  });
});
