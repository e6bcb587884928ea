/**
 * Which exceptions of a tool run retrying can fix. `runTool` is retried (up to 20 attempts, for
 * minutes) so that a lost host or an unavailable transcript store does not end the turn; an error
 * that the same input will raise again (a NUL byte in a path, a name too long, a directory where
 * a file is expected, a broken `.git/config`, a bug) must not hold the turn that long. Such a
 * fault becomes an `is_error` tool_result and the turn carries on, as in Claude Code.
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MAX_TOOL_FAULT_CHARS, ToolErrorType } from '../common/tools';
import { NETWORK_ERRNO_CODES, isStoreUnreachable } from '../store/outage';

/**
 * errno codes of a condition that may pass: the network, a busy or exhausted resource, a full
 * disk (someone may free space), an I/O error of a device that may come back.
 */
const TRANSIENT_CODES = new Set([
  ...NETWORK_ERRNO_CODES,
  'EAGAIN',
  'EBUSY',
  'EINTR',
  'EMFILE',
  'ENFILE',
  'ENOMEM',
  'ENOSPC',
  'EDQUOT',
  'EIO',
  'ESTALE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** SQLSTATE classes of PostgreSQL errors that may pass: connection, resources, operator action, rollbacks. */
const TRANSIENT_SQLSTATE_CLASSES = new Set(['08', '40', '53', '57', '58']);

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * True when retrying the same call may succeed: a transient errno ({@link TRANSIENT_CODES}), a
 * PostgreSQL error of a transient class or a store that cannot be reached (`StoreUnavailableError`), an error its cause
 * marks so, or a Temporal failure (it carries its own retry decision). Every other error is a
 * fault: Node's `ERR_INVALID_ARG_*` TypeErrors, ENAMETOOLONG, EISDIR, ENOTDIR, ENOENT, EINVAL,
 * ELOOP, a GitError, a bug's TypeError.
 */
export function isTransientToolError(err: unknown): boolean {
  if (err instanceof ApplicationFailure || err instanceof CancelledFailure) return true;
  // The transcript store out of reach (after waiting for it): `TranscriptError.Unavailable`.
  if (isStoreUnreachable(err)) return true;
  const code = codeOf(err);
  if (code !== undefined) {
    if (TRANSIENT_CODES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && TRANSIENT_SQLSTATE_CLASSES.has(code.slice(0, 2))) return true;
  }
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause !== undefined && cause !== err && cause !== null && isTransientToolError(cause);
}

/** The message of a fault as the model sees it: `Error: …`, at most {@link MAX_TOOL_FAULT_CHARS}. */
export function toolFaultMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const text = `Error: ${message}`;
  return text.length > MAX_TOOL_FAULT_CHARS ? `${text.slice(0, MAX_TOOL_FAULT_CHARS - 1)}…` : text;
}

/**
 * The error `runTool` leaves with: a transient error as is (Temporal retries it), a fault as a
 * non-retryable {@link ToolErrorType.Fault} failure, which the turn answers with an `is_error`
 * tool_result.
 */
export function classifyToolError(err: unknown): unknown {
  if (isTransientToolError(err)) return err;
  return ApplicationFailure.create({ type: ToolErrorType.Fault, message: toolFaultMessage(err), nonRetryable: true });
}
