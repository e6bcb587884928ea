import Anthropic from '@anthropic-ai/sdk';
import { classifyModelError, retryAfterMs } from '../../../../src/activities/model/errors';

function apiError(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): InstanceType<typeof Anthropic.APIError> {
  return Anthropic.APIError.generate(
    status,
    { type: 'error', error: { type: 'x', message } },
    message,
    new Headers(headers),
  );
}

describe('model error classification', () => {
  test('retryAfterMs: seconds, milliseconds and HTTP dates', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4_000)).toBe(6000);
    expect(retryAfterMs(new Headers({}))).toBeUndefined();
  });

  test.each([
    [429, 'ModelError.RateLimit', false],
    [529, 'ModelError.Overloaded', false],
    [500, 'ModelError.Server', false],
    [401, 'ModelError.Authentication', true],
    [403, 'ModelError.PermissionDenied', true],
    [404, 'ModelError.NotFound', true],
    [413, 'ModelError.RequestTooLarge', true],
    [400, 'ModelError.InvalidRequest', true],
  ])('classifyModelError: HTTP %i is %s (nonRetryable %s)', (status, type, nonRetryable) => {
    const f = classifyModelError(apiError(status, 'boom'));
    expect(f.type).toBe(type);
    expect(f.nonRetryable).toBe(nonRetryable);
    expect(f.details?.[0]).toMatchObject({ status });
  });

  test('classifyModelError: prompt too long is its own non-retryable type', () => {
    const f = classifyModelError(apiError(400, 'prompt is too long: 250000 tokens > 200000 maximum'));
    expect(f.type).toBe('ModelError.PromptTooLong');
    expect(f.nonRetryable).toBe(true);
  });

  test('classifyModelError: 429 carries the server-requested delay as nextRetryDelay', () => {
    const f = classifyModelError(apiError(429, 'slow down', { 'retry-after': '7' }));
    expect(f.nextRetryDelay).toBe(7000);
  });

  test('classifyModelError: a network error is retryable', () => {
    const f = classifyModelError(new Anthropic.APIConnectionError({ message: 'ECONNRESET' }));
    expect(f).toMatchObject({ type: 'ModelError.Connection', nonRetryable: false });
  });
});

describe('retry-after of zero', () => {
  test('classifyModelError: a 429 with retry-after 0 is retried with the normal backoff, not given up', () => {
    const f = classifyModelError(apiError(429, 'slow down', { 'retry-after': '0' }));
    expect(f.nonRetryable).toBe(false);
    expect(f.nextRetryDelay).toBeUndefined();
  });
});
