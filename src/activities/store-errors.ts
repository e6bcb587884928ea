import { ApplicationFailure } from '@temporalio/common';
import { ModelErrorType } from '../common/model';
import { StoreUnavailableError } from '../store/outage';

/**
 * errno codes of a transcript store that stays unwritable until someone acts: the disk or quota
 * is full, a file size limit is reached, the file system is read-only, or permissions forbid it.
 */
const STORAGE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EROFS', 'EACCES', 'EPERM', 'EISDIR', 'ENOTDIR']);

/** Delay before the next attempt of an activity that could not reach the store, ms. */
const UNAVAILABLE_RETRY_DELAY_MS = 1000;

/**
 * The typed failure of an error of the transcript store, or undefined for any other error:
 * - `TranscriptError.Storage` (non-retryable) for a store that retrying cannot fix soon (disk
 *   full, read-only, permissions): retrying would only hold the turn for minutes (and repeat a
 *   model call already paid for) before failing anyway; the session can be resumed once the data
 *   directory is writable again.
 * - `TranscriptError.Unavailable` for a store that cannot be reached ({@link StoreUnavailableError}):
 *   retried (after 1 s) while the outage is shorter than `store.outageTimeoutMs` (the attempt
 *   gave up because its own time ran out), non-retryable once the outage has lasted longer.
 *   Its message names the store.
 */
export function storageFailure(err: unknown): ApplicationFailure | undefined {
  if (err instanceof StoreUnavailableError) {
    const exceeded = err.exceededLimitMs !== null;
    return ApplicationFailure.create({
      type: ModelErrorType.TranscriptUnavailable,
      nonRetryable: exceeded,
      message: err.message,
      ...(exceeded ? {} : { nextRetryDelay: UNAVAILABLE_RETRY_DELAY_MS }),
    });
  }
  // Duck-typed: errors of node:fs may come from another realm (jest), failing `instanceof Error`.
  const e = err as Partial<NodeJS.ErrnoException> | null;
  if (typeof e?.code !== 'string' || !STORAGE_CODES.has(e.code) || typeof e.message !== 'string') return undefined;
  return ApplicationFailure.create({
    type: ModelErrorType.TranscriptStorage,
    nonRetryable: true,
    message: `${e.message} (make the data directory writable, then resume the session)`,
  });
}

/** Wraps an activity so that {@link storageFailure} errors leave it as that failure. */
export function withStorageErrors<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A): Promise<R> => {
    try {
      return await fn(...args);
    } catch (err) {
      throw storageFailure(err) ?? err;
    }
  };
}
