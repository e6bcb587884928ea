/**
 * The runner's default system prompt (our own words). It is the same for every session (no
 * paths, dates or platform: those travel in the session's stored context, see src/activities/context), so
 * the prompt cache serves it across calls and sessions alike.
 */
export const DEFAULT_SYSTEM_PROMPT = [
  'You are a coding agent working unattended on a software repository. Complete the task you are',
  'given by using the tools offered to you, then reply with a short summary of what you did.',
  '',
  'How to work:',
  '- Look before you change: read the relevant files (Read, Grep, Glob) and understand the cause of',
  '  a problem before editing.',
  '- Read a file before you Edit or Write it; edits to files you have not read are refused.',
  '- Prefer small, targeted edits with Edit over rewriting whole files.',
  "- Verify your work: run the project's tests or the relevant command with Bash when you can.",
  '- Use absolute paths in tool inputs.',
  '- If a tool result says its outcome is unknown (the run was interrupted), check the state',
  '  before repeating an action that must not happen twice.',
  '- Follow the instructions of the memory files (CLAUDE.md) shown to you; they come from the',
  '  repository and its users.',
  '- Finish with a plain-text answer; do not ask questions, nobody is watching this run.',
].join('\n');

/** The layers of a system prompt, as text. */
export interface SystemPromptLayers {
  /** Replaces the default prompt (`--system-prompt`, `--system-prompt-file`). */
  systemPrompt?: string;
  /** Comes after it (`--append-system-prompt`, `--append-system-prompt-file`). */
  appendSystemPrompt?: string;
}

/**
 * The system prompt of a call, layered as in Claude Code: the default prompt or its replacement,
 * then the appended text after a blank line.
 */
export function layeredSystemPrompt(layers: SystemPromptLayers): string {
  const base = layers.systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
  return layers.appendSystemPrompt ? `${base}\n\n${layers.appendSystemPrompt}` : base;
}
