import { ApplicationFailure } from '@temporalio/common';
import type { CallModelInput } from '../../common/model';
import { ModelErrorType } from '../../common/model';

/**
 * An overloaded failure on an attempt at or past `input.overloadedAttemptsBeforeFallback`, made
 * non-retryable so that the turn sees it at once and switches to its fallback model; any other
 * failure as it is.
 * @param attempt the activity attempt (1 for the first)
 */
export function failFastForFallback(
  failure: ApplicationFailure,
  input: Pick<CallModelInput, 'overloadedAttemptsBeforeFallback'>,
  attempt: number,
): ApplicationFailure {
  const after = input.overloadedAttemptsBeforeFallback;
  if (after === undefined || failure.type !== ModelErrorType.Overloaded || failure.nonRetryable || attempt < after) {
    return failure;
  }
  return ApplicationFailure.create({
    type: failure.type,
    message: failure.message,
    nonRetryable: true,
    details: failure.details ? [...failure.details] : [],
    ...(failure.cause ? { cause: failure.cause } : {}),
  });
}
