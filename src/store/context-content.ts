/**
 * Where a session's context text lives in the transcript store's content blobs, so that workflow
 * inputs carry a key (about 90 bytes) instead of the text: the system prompt parts and the user's
 * memory files. Keys are content-addressed (`context/<kind>/<sha256 hex>`): storing the same text
 * twice is a no-op, and a key always means the same text.
 */
import { createHash } from 'node:crypto';
import type { TranscriptStore } from './transcript-store';

/** Kinds of context text stored by reference. */
export type ContextContentKind =
  'system-prompt' | 'append-system-prompt' | 'user-memory' | 'definitions' | 'agent-system-prompt';

/** The content key of `text` of a kind. */
export function contextContentKey(kind: ContextContentKind, text: string): string {
  return `context/${kind}/${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/** Stores `text` in the session's content blobs (a no-op when it is there) and returns its key. */
export async function putContextContent(
  store: TranscriptStore,
  sessionId: string,
  kind: ContextContentKind,
  text: string,
): Promise<string> {
  const key = contextContentKey(kind, text);
  await store.putContent(sessionId, key, text);
  return key;
}

/** Thrown when a key a workflow input names is not in the store (the store was reset or copied in part). */
export class MissingContextContentError extends Error {
  override readonly name = 'MissingContextContentError';
  constructor(
    readonly sessionId: string,
    readonly key: string,
  ) {
    super(`session ${sessionId}: the transcript store has no content ${key}`);
  }
}

/**
 * The text stored under `key`.
 * @throws MissingContextContentError when nothing is stored under it.
 */
export async function getContextContent(store: TranscriptStore, sessionId: string, key: string): Promise<string> {
  const body = await store.getContent(sessionId, key);
  if (body === undefined) throw new MissingContextContentError(sessionId, key);
  return body.toString('utf8');
}
