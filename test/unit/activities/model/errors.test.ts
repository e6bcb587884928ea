import Anthropic from '@anthropic-ai/sdk';
import { classifyModelError, retryAfterMs, shouldRetryHeader } from '../../../../src/activities/model/errors';

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

describe('x-should-retry', () => {
  test.each([
    [400, 'true', 'ModelError.InvalidRequest', false],
    [401, 'true', 'ModelError.Authentication', false],
    [429, 'false', 'ModelError.RateLimit', true],
    [529, 'false', 'ModelError.Overloaded', true],
    [500, 'false', 'ModelError.Server', true],
    [500, 'maybe', 'ModelError.Server', false],
    [400, 'TRUE', 'ModelError.InvalidRequest', true],
  ])(
    'classifyModelError: HTTP %i with x-should-retry %s keeps its type %s (nonRetryable %s)',
    (status, h, type, nr) => {
      const f = classifyModelError(apiError(status, 'boom', { 'x-should-retry': h }));
      expect(f.type).toBe(type);
      expect(f.nonRetryable).toBe(nr);
      expect(f.details?.[0]).toMatchObject({ status });
      expect(f.cause).toBeInstanceOf(Anthropic.APIError);
    },
  );

  test('classifyModelError: a retry the header forces waits for retry-after; one it forbids has no delay', () => {
    expect(
      classifyModelError(apiError(400, 'x', { 'x-should-retry': 'true', 'retry-after': '3' })).nextRetryDelay,
    ).toBe(3000);
    expect(
      classifyModelError(apiError(429, 'x', { 'x-should-retry': 'false', 'retry-after': '3' })).nextRetryDelay,
    ).toBeUndefined();
  });

  test('shouldRetryHeader: exactly "true" or "false", as the SDK reads it', () => {
    expect(shouldRetryHeader(new Headers({ 'x-should-retry': 'true' }))).toBe(true);
    expect(shouldRetryHeader(new Headers({ 'x-should-retry': 'false' }))).toBe(false);
    expect(shouldRetryHeader(new Headers({ 'x-should-retry': '1' }))).toBeUndefined();
    expect(shouldRetryHeader(new Headers())).toBeUndefined();
    expect(shouldRetryHeader(undefined)).toBeUndefined();
  });
});
