/**
 * The ids every backend accepts: the same rules everywhere, so that a session can be copied
 * between backends (and a JSONL file name is always safe).
 */

/** Thrown when a session id or tool-use id could not be used safely as a file name. */
export class InvalidTranscriptIdError extends Error {
  override readonly name = 'InvalidTranscriptIdError';
  constructor(
    readonly kind: 'session id' | 'tool use id',
    readonly id: string,
  ) {
    super(`invalid ${kind} ${JSON.stringify(id)}: it must be 1-200 characters without "/", "\\", ".." or NUL`);
  }
}

/** @throws InvalidTranscriptIdError unless `id` is 1-200 characters without `/`, `\`, `..` or NUL. */
export function checkId(kind: 'session id' | 'tool use id', id: string): void {
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
