import { createHash } from 'node:crypto';

/**
 * Address of a piece of content in the transcript store: `sha256:` and the 64 hex digits of the
 * SHA-256 of its UTF-8 bytes. Workflow inputs carry refs (71 bytes) instead of the content, so a
 * system prompt part of any size costs the same in history.
 */
export type ContentRef = string;

const REF_RE = /^sha256:[0-9a-f]{64}$/;

/** The ref of `content`. */
export function contentRefOf(content: string): ContentRef {
  return `sha256:${createHash('sha256').update(content, 'utf8').digest('hex')}`;
}

/** True when `ref` is a well-formed {@link ContentRef}. */
export function isContentRef(ref: unknown): ref is ContentRef {
  return typeof ref === 'string' && REF_RE.test(ref);
}

/** Thrown by `getContent` for a string that is not a {@link ContentRef}. */
export class InvalidContentRefError extends Error {
  override readonly name = 'InvalidContentRefError';
  constructor(readonly ref: string) {
    super(`invalid content ref ${JSON.stringify(String(ref).slice(0, 100))}: expected sha256:<64 hex digits>`);
  }
}
