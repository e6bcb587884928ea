/**
 * Prompts that are commands rather than plain messages to the model: the runner's own
 * (`/compact`, `/clear`), parsed by the client (to tell the session) and by the turn workflow,
 * and custom commands and skills (`/name args`), recognized by the client from the session's
 * definitions and expanded in the turn. Pure.
 */

/**
 * A prompt that is a command of the runner (`parseSlashCommand`), as the workflow needs it: the
 * command, and whether `/compact` came with instructions (read from the prompt line, not sent).
 */
export type PromptCommand =
  | { name: 'clear' }
  | { name: 'compact'; withInstructions: boolean }
  /**
   * A custom command or skill typed as `/name args`: expanded by the `prepareCommand` activity,
   * then the model is called. `command` is the name (at most `MAX_COMMAND_NAME_CHARS`).
   */
  | { name: 'custom'; command: string }
  /** A `/name` no command of the session has: the model gets the prompt with a note saying so. */
  | { name: 'unknown'; command: string }
  /** A skill typed under `--bare` (which loads none): answered without a model call. */
  | { name: 'unavailable'; command: string };

/** A command of the runner itself (`/compact`, `/clear`): it does not call the model. */
export type RunnerCommand = Extract<PromptCommand, { name: 'clear' | 'compact' }>;

/** Whether a command is one of the runner's own. */
export function isRunnerCommand(c: PromptCommand): c is RunnerCommand {
  return c.name === 'clear' || c.name === 'compact';
}

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

/** The {@link RunnerCommand} of a prompt (its instructions stay in the prompt line), or null. */
export function promptCommandOf(prompt: string): RunnerCommand | null {
  const c = parseSlashCommand(prompt);
  if (!c) return null;
  return c.name === 'clear' ? { name: 'clear' } : { name: 'compact', withInstructions: c.instructions !== null };
}

/**
 * A prompt that starts like a slash command: `/name` (letters, digits, `-`, `_`, `.`, `:`) then
 * whitespace or the end, as Claude Code tells them apart from paths (`/usr/bin/env is a path` is
 * not one). Returns the name and the argument text, or null.
 */
export function slashCommandOf(prompt: string): { name: string; args: string } | null {
  const m = /^\/([A-Za-z0-9][A-Za-z0-9._:-]*)(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  if (!m?.[1]) return null;
  return { name: m[1], args: (m[2] ?? '').trim() };
}
