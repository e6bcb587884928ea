import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import type { ModelErrorDetails } from '../../common/model';
import { ModelErrorType } from '../../common/model';
import { AttemptDeadlineError, StreamIdleTimeoutError } from './stream-watchdog';

const PROMPT_TOO_LONG = /prompt is too long/i;

/** Thrown by the stream reader when the SSE stream ends before `message_stop`. */
export class StreamInterruptedError extends Error {
  override readonly name = 'StreamInterruptedError';
}

/**
 * Delay the server asked for, in ms: `retry-after-ms`, else `retry-after` (seconds or an HTTP
 * date). Undefined when absent or unparsable.
 */
export function retryAfterMs(headers: Headers | undefined, nowMs: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = headers.get('retry-after');
  if (!ra) return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(ra);
  return Number.isFinite(date) ? Math.max(0, date - nowMs) : undefined;
}

function failure(
  type: string,
  message: string,
  nonRetryable: boolean,
  details: ModelErrorDetails,
  cause: unknown,
  nextRetryDelayMs?: number,
): ApplicationFailure {
  return ApplicationFailure.create({
    type,
    message,
    nonRetryable,
    details: [details],
    // A zero (or absent) delay falls back to the retry policy's backoff: Temporal treats a zero
    // `nextRetryDelay` as "no retry".
    ...(nextRetryDelayMs !== undefined && nextRetryDelayMs > 0 ? { nextRetryDelay: nextRetryDelayMs } : {}),
    ...(cause instanceof Error ? { cause } : {}),
  });
}

/**
 * The message of a provider client's failure to find any credential (which no retry can fix), or
 * undefined for a connection error worth retrying (a token endpoint or metadata server that did
 * not answer). Bedrock's SDK wraps the AWS chain's `CredentialsProviderError`, Vertex's SDK
 * google-auth-library's "Could not load the default credentials"; both as `APIConnectionError`.
 */
function missingCredentials(err: Error): string | undefined {
  const cause = (err as { cause?: unknown }).cause as { name?: unknown; message?: unknown } | undefined;
  const text = typeof cause?.message === 'string' ? cause.message : '';
  if (cause?.name === 'CredentialsProviderError' && /could not load credentials/i.test(text)) {
    return `${err.message} ${text} (set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE or AWS_BEARER_TOKEN_BEDROCK for the worker)`;
  }
  if (/could not load the default credentials/i.test(text)) {
    return `${err.message} ${text} (set GOOGLE_APPLICATION_CREDENTIALS for the worker, or run it where application default credentials exist)`;
  }
  return undefined;
}

/**
 * The API's own word on retrying an HTTP error, its `x-should-retry` header: `true` or `false`,
 * undefined when absent (or anything else). The Anthropic SDK obeys it before the status
 * (`shouldRetry` in its `src/client.ts`), and so does {@link classifyModelError}.
 */
export function shouldRetryHeader(headers: Headers | undefined): boolean | undefined {
  const v = headers?.get('x-should-retry');
  return v === 'true' ? true : v === 'false' ? false : undefined;
}

/**
 * Maps an error from a Messages API call to a typed `ApplicationFailure` (Temporal alone
 * retries; the SDK's own retries are off). An HTTP error's `x-should-retry` header decides
 * whether it is retried, as in the SDK: `true` forces a retry, `false` forbids one; otherwise:
 * 429 → `ModelError.RateLimit` (next retry after `retry-after`), 529 → `ModelError.Overloaded`,
 * other 5xx / 408 / 409 → `ModelError.Server`, network → `ModelError.Connection` (but a Bedrock or
 * Vertex client that finds no credential at all → `ModelError.Authentication`), a stream cut or
 * malformed → `ModelError.StreamInterrupted`, a stream that went quiet →
 * `ModelError.StreamIdleTimeout`, an attempt out of time → `ModelError.Timeout` (all retryable); 400 "prompt is too long" →
 * `ModelError.PromptTooLong`, other 400 → `ModelError.InvalidRequest`, 401, 403, 404, 413 →
 * their types (non-retryable).
 */
export function classifyModelError(err: unknown): ApplicationFailure {
  const f = classifyByStatus(err);
  const headers = err instanceof Anthropic.APIError && typeof err.status === 'number' ? err.headers : undefined;
  const said = shouldRetryHeader(headers);
  if (said === undefined || said === !f.nonRetryable) return f;
  // A forced retry waits as long as the server asked (`retry-after`), as the SDK does.
  const delay = f.nextRetryDelay ?? (said ? retryAfterMs(headers) : undefined);
  return ApplicationFailure.create({
    ...(f.type ? { type: f.type } : {}),
    message: f.message,
    nonRetryable: !said,
    details: f.details ? [...f.details] : [],
    ...(said && delay !== undefined && delay !== null && delay !== 0 ? { nextRetryDelay: delay } : {}),
    ...(f.cause ? { cause: f.cause } : {}),
  });
}

function classifyByStatus(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof StreamIdleTimeoutError) {
    return failure(ModelErrorType.StreamIdleTimeout, err.message, false, { status: null, requestId: null }, err);
  }
  if (err instanceof AttemptDeadlineError) {
    return failure(ModelErrorType.Timeout, err.message, false, { status: null, requestId: null }, err);
  }
  if (err instanceof Anthropic.APIConnectionError) {
    const missing = missingCredentials(err);
    if (missing !== undefined) {
      return failure(ModelErrorType.Authentication, missing, true, { status: null, requestId: null }, err);
    }
    return failure(ModelErrorType.Connection, err.message, false, { status: null, requestId: null }, err);
  }
  if (err instanceof Anthropic.APIError) {
    const status = typeof err.status === 'number' ? err.status : null;
    const details: ModelErrorDetails = { status, requestId: err.requestID ?? null };
    const msg = err.apiMessage ?? err.message;
    if (status === null) {
      // An `event: error` inside a 200 stream.
      const t = err.type ?? '';
      if (t === 'overloaded_error') return failure(ModelErrorType.Overloaded, msg, false, details, err);
      if (t === 'rate_limit_error') return failure(ModelErrorType.RateLimit, msg, false, details, err);
      if (t === 'invalid_request_error') return failure(ModelErrorType.InvalidRequest, msg, true, details, err);
      return failure(ModelErrorType.Server, msg, false, details, err);
    }
    if (status === 429) {
      return failure(ModelErrorType.RateLimit, msg, false, details, err, retryAfterMs(err.headers));
    }
    if (status === 529) return failure(ModelErrorType.Overloaded, msg, false, details, err, retryAfterMs(err.headers));
    if (status >= 500 || status === 408 || status === 409) {
      return failure(ModelErrorType.Server, msg, false, details, err, retryAfterMs(err.headers));
    }
    if (status === 400 && PROMPT_TOO_LONG.test(msg))
      return failure(ModelErrorType.PromptTooLong, msg, true, details, err);
    if (status === 401) return failure(ModelErrorType.Authentication, msg, true, details, err);
    if (status === 403) return failure(ModelErrorType.PermissionDenied, msg, true, details, err);
    if (status === 404) return failure(ModelErrorType.NotFound, msg, true, details, err);
    if (status === 413) return failure(ModelErrorType.RequestTooLarge, msg, true, details, err);
    return failure(ModelErrorType.InvalidRequest, msg, true, details, err);
  }
  const message = err instanceof Error ? err.message : String(err);
  return failure(ModelErrorType.StreamInterrupted, message, false, { status: null, requestId: null }, err);
}
