/**
 * Prompts that are commands of the runner rather than messages to the model (`/compact`,
 * `/clear`): parsed by the client (to tell the session) and by the turn workflow. Pure.
 */

/**
 * A prompt that is a command of the runner (`parseSlashCommand`), as the workflow needs it: the
 * command, and whether `/compact` came with instructions (read from the prompt line, not sent).
 */
export type PromptCommand = { name: 'clear' } | { name: 'compact'; withInstructions: boolean };

/** A prompt that is a command of the runner rather than a message to the model. */
export type SlashCommand = { name: 'compact'; instructions: string | null } | { name: 'clear' };

/**
 * `/compact [instructions]` (summarize the conversation now) and `/clear` (start a fresh
 * conversation, no model call): the seeds' `processUserInput` commands with `shouldQuery: false`.
 * Any other prompt, including other words starting with `/`, is a message to the model.
 */
export function parseSlashCommand(prompt: string): SlashCommand | null {
  const m = /^\s*\/(compact|clear)(?:\s+([\s\S]*))?$/.exec(prompt);
  if (!m) return null;
  if (m[1] === 'clear') return m[2]?.trim() ? null : { name: 'clear' };
  const instructions = m[2]?.trim() ?? '';
  return { name: 'compact', instructions: instructions === '' ? null : instructions };
}

/** The {@link PromptCommand} of a prompt (its instructions stay in the prompt line), or null. */
export function promptCommandOf(prompt: string): PromptCommand | null {
  const c = parseSlashCommand(prompt);
  if (!c) return null;
  return c.name === 'clear' ? { name: 'clear' } : { name: 'compact', withInstructions: c.instructions !== null };
}
