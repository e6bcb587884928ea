/**
 * The ids every backend accepts: the same rules everywhere, so that a session can be copied
 * between backends (and a JSONL file name is always safe).
 */
import { AgentRunnerError } from '../common/errors';

/** What an id names. */
export type IdKind = 'session id' | 'tool use id' | 'call uuid';

/** Thrown when a session id or tool-use id could not be used safely as a file name. */
export class InvalidTranscriptIdError extends AgentRunnerError {
  override readonly name = 'InvalidTranscriptIdError';
  readonly kind = 'usage';
  constructor(
    /** What the id names. */
    readonly idKind: IdKind,
    readonly id: string,
  ) {
    super(`invalid ${idKind} ${JSON.stringify(id)}: it must be 1-200 characters without "/", "\\", ".." or NUL`);
  }
}

/** @throws InvalidTranscriptIdError unless `id` is 1-200 characters without `/`, `\`, `..` or NUL. */
export function checkId(kind: IdKind, id: string): void {
  if (
    typeof id !== 'string' ||
    id.length === 0 ||
    id.length > 200 ||
    id.includes('/') ||
    id.includes('\\') ||
    id.includes('\0') ||
    id.includes('..') ||
    id === '.'
  ) {
    throw new InvalidTranscriptIdError(kind, String(id));
  }
}
