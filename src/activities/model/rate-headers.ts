import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import type { ModelErrorDetails } from '../../common/model';
import { ModelErrorType } from '../../common/model';
import type { RateHeaderLimit, RateHeaders } from '../../common/rate-pool';
import { retryAfterMs } from './errors';

/** One limit of the API's headers, `anthropic-ratelimit-<name>-limit/-remaining/-reset`, or undefined when absent. */
function limitOf(headers: Headers, name: string): RateHeaderLimit | undefined {
  const limit = Number(headers.get(`anthropic-ratelimit-${name}-limit`) ?? NaN);
  const remaining = Number(headers.get(`anthropic-ratelimit-${name}-remaining`) ?? NaN);
  if (!Number.isFinite(limit) || !Number.isFinite(remaining)) return undefined;
  const reset = Date.parse(headers.get(`anthropic-ratelimit-${name}-reset`) ?? '');
  return { limit, remaining, ...(Number.isFinite(reset) ? { resetAtMs: reset } : {}) };
}

/**
 * The rate-limit headers of a Messages API response (requests, input tokens, output tokens, and a
 * 429's `retry-after`), or undefined when it has none (a provider without them, a proxy).
 */
export function rateHeadersOf(headers: Headers | undefined, nowMs: number = Date.now()): RateHeaders | undefined {
  if (!headers) return undefined;
  const requests = limitOf(headers, 'requests');
  const inputTokens = limitOf(headers, 'input-tokens');
  const outputTokens = limitOf(headers, 'output-tokens');
  const retry = retryAfterMs(headers, nowMs);
  const rate: RateHeaders = {
    ...(requests ? { requests } : {}),
    ...(inputTokens ? { inputTokens } : {}),
    ...(outputTokens ? { outputTokens } : {}),
    ...(retry !== undefined && retry !== null ? { retryAfterMs: retry } : {}),
  };
  return Object.keys(rate).length > 0 ? rate : undefined;
}

/**
 * A rate pool member's 429 (`CallModelInput.rateLimited`): non-retryable, with the response's
 * rate headers in its details, so that the turn tells its pool and waits for a new lease instead
 * of Temporal retrying past the pool. Any other failure is returned as it is.
 */
export function throttledForPool(f: ApplicationFailure, err: unknown): ApplicationFailure {
  if (f.type !== ModelErrorType.RateLimit) return f;
  const rate = rateHeadersOf(err instanceof Anthropic.APIError ? err.headers : undefined);
  const details = (f.details?.[0] ?? { status: null, requestId: null }) as ModelErrorDetails;
  return ApplicationFailure.create({
    type: f.type,
    message: f.message,
    nonRetryable: true,
    details: [{ ...details, ...(rate ? { rate } : {}) }],
    ...(f.cause ? { cause: f.cause } : {}),
  });
}
