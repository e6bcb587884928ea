import { createHash } from 'node:crypto';
import type { ContentRef } from '../common/content-ref';
import { PROMPT_BLOCKS_KEY_PREFIX, PROMPT_KEY_PREFIX } from '../common/content-ref';
import type { UserPrompt } from '../common/user-prompt';
import type { TranscriptStore } from './transcript-store';

/**
 * Stores a prompt in the session's content (`prompt/<sha256>` for text, `prompt-blocks/<sha256>`
 * for content blocks as JSON; storing the same prompt again is a no-op) and returns its ref: what
 * the `submitMessage` Update and the turn carry instead of the prompt, so that a prompt of any
 * size, images included, never enters workflow history. Used by the client (a typed prompt) and
 * by activities (a subagent's prompt, a task notification).
 * @throws ContentTooLargeError when the prompt is larger than the store's content limit.
 */
export async function storePrompt(store: TranscriptStore, sessionId: string, prompt: UserPrompt): Promise<ContentRef> {
  const bytes = Buffer.from(typeof prompt === 'string' ? prompt : JSON.stringify(prompt), 'utf8');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const key = `${typeof prompt === 'string' ? PROMPT_KEY_PREFIX : PROMPT_BLOCKS_KEY_PREFIX}${sha256}`;
  const stored = await store.putContent(sessionId, key, bytes);
  return { key, bytes: stored.size, sha256: stored.sha256 };
}
