/**
 * Turn options on their way to Temporal: the system prompt parts and the user's own memory files
 * go into the session's content blobs in the transcript store, and the options carry their keys
 * (workflow history never holds the text, whatever its size).
 */
import type { MemoryFile } from '../common/context';
import type { TurnOptions } from '../common/turn';
import { putContextContent } from '../store/context-content';
import type { TranscriptStore } from '../store/transcript-store';

/**
 * `options` with `systemPrompt` and `appendSystemPrompt` replaced by `systemPromptKey` and
 * `appendSystemPromptKey`, and `userMemoryKey` set when the user's memory is wanted (the
 * `user` setting source, on by default) and there is some.
 * @param userMemory loads the user's memory files (called at most when needed)
 */
export async function storeContextOptions<T extends Partial<TurnOptions>>(
  store: TranscriptStore,
  sessionId: string,
  options: T,
  userMemory: () => Promise<readonly MemoryFile[]>,
): Promise<T> {
  const { systemPrompt, appendSystemPrompt, ...rest } = options;
  const out = { ...rest } as T;
  if (systemPrompt !== undefined) {
    out.systemPromptKey = await putContextContent(store, sessionId, 'system-prompt', systemPrompt);
  }
  if (appendSystemPrompt !== undefined) {
    out.appendSystemPromptKey = await putContextContent(store, sessionId, 'append-system-prompt', appendSystemPrompt);
  }
  if (options.userMemoryKey === undefined && (options.settingSources ?? ['user']).includes('user')) {
    const files = await userMemory();
    if (files.length > 0) {
      out.userMemoryKey = await putContextContent(store, sessionId, 'user-memory', JSON.stringify(files));
    }
  }
  return out;
}
