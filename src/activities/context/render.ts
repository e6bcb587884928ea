/**
 * How stored context reaches the model, following Claude Code 2.1.328's requests (read from the
 * conformance harness): memory files and the git status as `<system-reminder>` text blocks
 * before the prompt in the first user message, nested memory after the tool results of the call
 * that read the file, and the environment as a `system` message after the first user message.
 * Pure functions of the stored data, so a session's requests render byte-identically.
 */
import type { ContextAttachment, EnvironmentSnapshot, MemoryFile, MemoryType } from '../../common/context';

/** What each kind of memory file is, as the model is told. */
const DESCRIPTIONS: Record<MemoryType, string> = {
  User: "user's private global instructions for all projects",
  Project: 'project instructions, checked into the codebase',
  Local: "user's private project instructions, not checked in",
};

const INSTRUCTIONS_HEADER =
  'Codebase and user instructions are shown below. Be sure to adhere to these instructions. ' +
  'IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.';

function reminder(text: string): string {
  return `<system-reminder>\n${text}\n</system-reminder>`;
}

/** The memory files of a session, as one text block. */
export function renderInstructions(files: readonly MemoryFile[]): string {
  const parts = files.map((f) => `Contents of ${f.path} (${DESCRIPTIONS[f.type]}):\n\n${f.content.trim()}`);
  return reminder([INSTRUCTIONS_HEADER, ...parts].join('\n\n'));
}

/** The git status snapshot, as one text block. */
export function renderSessionContext(gitStatus: string): string {
  return reminder(
    "As you answer the user's questions, you can use the following context:\n" +
      `# gitStatus\n${gitStatus}\n\n` +
      "The runner attached this context automatically; it isn't part of the user's message.",
  );
}

/** A memory file found next to a file the model read or changed. */
export function renderNestedMemory(file: MemoryFile): string {
  return reminder(`Contents of ${file.path}:\n\n${file.content}`);
}

/** The environment, as the text of a `system` message. */
export function renderEnvironment(env: EnvironmentSnapshot): string {
  return [
    '# Environment\nYou have been invoked in the following environment: ',
    ` - Primary working directory: ${env.workingDirectory}`,
    ` - Is a git repository: ${env.isGitRepo}`,
    ` - Platform: ${env.platform}`,
    ` - Shell: ${env.shell}`,
    ` - OS Version: ${env.osVersion}`,
  ]
    .join('\n')
    .concat(`\n\nYou are powered by the model ${env.model}.`, `\n\nToday's date is ${env.date}.`);
}

/**
 * The note after a Bash call that moved the shell to another directory, as the text of a
 * `system` message (Claude Code 2.1.328 sends it after that call's tool results).
 */
export function renderEnvironmentUpdate(dir: string, was: string): string {
  return `# Environment update\n - Primary working directory: ${dir} (was ${was})`;
}

/** Where a rendered attachment goes: beside the user's text, or into a `system` message. */
export interface RenderedAttachment {
  role: 'user' | 'system';
  text: string;
}

/** Renders one stored attachment. */
export function renderAttachment(a: ContextAttachment): RenderedAttachment {
  switch (a.type) {
    case 'instructions':
      return { role: 'user', text: renderInstructions(a.files) };
    case 'session_context':
      return { role: 'user', text: renderSessionContext(a.context.gitStatus) };
    case 'environment':
      return { role: 'system', text: renderEnvironment(a.environment) };
    case 'nested_memory':
      return { role: 'user', text: renderNestedMemory(a.file) };
  }
}
