/**
 * A user prompt: text, or Messages API content blocks (`text`, `image`, `document`) as a
 * stream-json user message or the Agent SDK gives them. Either way the client stores it and the
 * workflow carries only its ref (src/client/prompt-ref.ts).
 */
import type { ContentBlock } from './transcript';

/** A prompt: plain text, or content blocks. */
export type UserPrompt = string | ContentBlock[];

/** Block types a prompt may carry (what the Messages API takes in a user message from a person). */
export const PROMPT_BLOCK_TYPES: ReadonlySet<string> = new Set(['text', 'image', 'document']);

/** The text of a prompt: the string, or its text blocks joined by newlines. */
export function promptText(prompt: UserPrompt): string {
  if (typeof prompt === 'string') return prompt;
  return prompt
    .filter((b) => b.type === 'text' && typeof b['text'] === 'string')
    .map((b) => String(b['text']))
    .join('\n');
}

/** True when the prompt has nothing for the model: no text (blank) and no image or document. */
export function isEmptyPrompt(prompt: UserPrompt): boolean {
  if (typeof prompt === 'string') return prompt.trim() === '';
  return promptText(prompt).trim() === '' && !prompt.some((b) => b.type !== 'text');
}
