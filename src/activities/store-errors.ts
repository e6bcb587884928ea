import { ApplicationFailure } from '@temporalio/common';
import { ModelErrorType } from '../common/model';

/**
 * errno codes of a transcript store that stays unwritable until someone acts: the disk or quota
 * is full, a file size limit is reached, the file system is read-only, or permissions forbid it.
 */
const STORAGE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EROFS', 'EACCES', 'EPERM', 'EISDIR', 'ENOTDIR']);

/**
 * The non-retryable `TranscriptError.Storage` failure for an error of the transcript store that
 * retrying cannot fix soon, or undefined for any other error. Retrying such an error would only
 * hold the turn for minutes (and repeat a model call already paid for) before failing anyway;
 * the session can be resumed once the data directory is writable again.
 */
export function storageFailure(err: unknown): ApplicationFailure | undefined {
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
