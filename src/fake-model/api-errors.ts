/**
 * Messages API error shapes: `{"type":"error","error":{"type","message"},"request_id"}` and the
 * error type that goes with each HTTP status.
 */

/** The API's error body. */
export interface ApiErrorBody {
  type: 'error';
  error: { type: string; message: string };
  request_id: string;
}

const TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const DEFAULT_MESSAGE_BY_TYPE: Readonly<Record<string, string>> = {
  invalid_request_error: 'Invalid request (fake-model)',
  authentication_error: 'invalid x-api-key',
  billing_error: 'Your credit balance is too low (fake-model)',
  permission_error: 'Your API key does not have permission to use the specified resource.',
  not_found_error: 'Not found',
  timeout_error: 'Request timed out (fake-model)',
  request_too_large: 'Request exceeds the maximum allowed number of bytes.',
  rate_limit_error: 'Number of request tokens has exceeded your per-minute rate limit (fake-model)',
  api_error: 'Internal server error',
  overloaded_error: 'Overloaded',
};

/** The error `type` for an HTTP status (other 4xx → `invalid_request_error`, other 5xx → `api_error`). */
export function errorTypeForStatus(status: number): string {
  return TYPE_BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** The HTTP status that usually carries an error type (used for `sse_error` on non-streaming requests). */
export function statusForErrorType(type: string): number {
  for (const [status, t] of Object.entries(TYPE_BY_STATUS)) {
    if (t === type) return Number(status);
  }
  return 500;
}

/** A default human message for an error type. */
export function defaultErrorMessage(type: string): string {
  return DEFAULT_MESSAGE_BY_TYPE[type] ?? `${type} (fake-model)`;
}

/** Builds the API error body. */
export function apiErrorBody(type: string, message: string, requestId: string): ApiErrorBody {
  return { type: 'error', error: { type, message }, request_id: requestId };
}
