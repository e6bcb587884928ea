/**
 * How stored context reaches the model, following Claude Code 2.1.328's requests (read from the
 * conformance harness): memory files and the git status as `<system-reminder>` text blocks
 * before the prompt in the first user message, nested memory after the tool results of the call
 * that read the file, and the environment as a `system` message after the first user message.
 * Pure functions of the stored data, so a session's requests render byte-identically.
 */
import type { ContextAttachment, EnvironmentSnapshot, MemoryFile, MemoryType } from '../../common/context';
import { fileReadCallText, fileReadResultText, unknownCommandText } from '../../common/command-text';
import { renderPlanMode } from './plan-mode';

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

/** What an agent in its own worktree is told of it (Claude Code 2.1.328's words). */
const WORKTREE_LINES =
  ' - This is a git worktree — an isolated copy of the repository. Run all commands from this directory. Do NOT `cd` to the original repository root.\n' +
  " - The git stash stack is shared with the main checkout and all other worktrees, and other Claude sessions may push or pop it concurrently. Never use bare `git stash` / `git stash pop` — you could pop another session's changes. Prefer a temporary WIP commit to set work aside; if you must stash, use `git stash push -u -m \"<unique-tag>\"`, immediately capture your entry's SHA via `git stash list --format='%H %gs'`, restore with `git stash apply <sha>` (not pop), and afterwards drop the entry, re-finding its current `stash@{n}` by tag first.";

/**
 * The environment, as the text of a `system` message; `paragraphs` (the deferred tools, the
 * skills) come between the model line and the date, as in Claude Code 2.1.328.
 */
export function renderEnvironment(env: EnvironmentSnapshot, paragraphs: readonly string[] = []): string {
  return [
    '# Environment\nYou have been invoked in the following environment: ',
    ` - Primary working directory: ${env.workingDirectory}`,
    ...(env.isWorktree ? [WORKTREE_LINES] : []),
    ` - Is a git repository: ${env.isGitRepo}`,
    ...(env.additionalWorkingDirectories?.length
      ? [` - Additional working directories:\n${env.additionalWorkingDirectories.map((d) => `  - ${d}`).join('\n')}`]
      : []),
    ` - Platform: ${env.platform}`,
    ` - Shell: ${env.shell}`,
    ` - OS Version: ${env.osVersion}`,
  ]
    .join('\n')
    .concat(
      `\n\nYou are powered by the model ${env.model}.`,
      ...paragraphs.map((p) => `\n\n${p}`),
      `\n\nToday's date is ${env.date}.`,
    );
}

/** The paragraph naming the deferred tools the model loads through ToolSearch (one name a line). */
export function renderDeferredTools(names: readonly string[]): string {
  return (
    'The following deferred tools are now available via ToolSearch. Their schemas are NOT loaded — calling them ' +
    'directly will fail with InputValidationError. Use ToolSearch with query "select:<name>[,<name>...]" to load ' +
    `tool schemas before calling them:\n${names.join('\n')}`
  );
}

/** The paragraph listing the skills the model may load with the Skill tool. */
export function renderSkillListing(skills: ReadonlyArray<{ name: string; description: string }>): string {
  return `The following skills are available for use with the Skill tool:\n\n${skills
    .map((s) => `- ${s.name}: ${s.description}`)
    .join('\n')}`;
}

/**
 * The note after a Bash call that moved the shell to another directory, as the text of a
 * `system` message (Claude Code 2.1.328 sends it after that call's tool results).
 */
export function renderEnvironmentUpdate(dir: string, was: string): string {
  return `# Environment update\n - Primary working directory: ${dir} (was ${was})`;
}

/**
 * Where a rendered attachment goes: beside the user's text, or into a `system` message;
 * `standalone` parts are a user message of their own (before the message the rest joins).
 */
export interface RenderedAttachment {
  role: 'user' | 'system';
  text: string;
  standalone?: boolean;
}

/** What the environment's `system` message also names (from the line and the request). */
export interface RenderExtras {
  /** The skill listing stored with the environment (the session's context line). */
  skills?: ReadonlyArray<{ name: string; description: string }>;
  /** The tools this request defers. */
  deferredTools?: readonly string[];
  /** The agent types' listing (after the deferred tools, before the skills, as in Claude Code 2.1.328). */
  agentListing?: string;
}

/** Renders one stored attachment (none, one or two parts). */
export function renderAttachment(a: ContextAttachment, extras: RenderExtras = {}): RenderedAttachment[] {
  switch (a.type) {
    case 'instructions':
      return [{ role: 'user', text: renderInstructions(a.files) }];
    case 'session_context':
      return [{ role: 'user', text: renderSessionContext(a.context.gitStatus) }];
    case 'environment': {
      const paragraphs = [
        ...(extras.deferredTools?.length ? [renderDeferredTools(extras.deferredTools)] : []),
        ...(extras.agentListing ? [extras.agentListing] : []),
        ...(extras.skills?.length ? [renderSkillListing(extras.skills)] : []),
        ...(a.planFile !== undefined ? [renderPlanMode(a.planFile)] : []),
      ];
      return [{ role: 'system', text: renderEnvironment(a.environment, paragraphs) }];
    }
    case 'nested_memory':
      return [{ role: 'user', text: renderNestedMemory(a.file) }];
    case 'skill_listing':
      return []; // part of the environment's message
    case 'file_read':
      return [
        {
          role: 'user',
          text: fileReadCallText(a.path, a.style),
          ...(a.style === 'command' ? { standalone: true } : {}),
        },
        { role: 'user', text: fileReadResultText(a.content, a.style) },
      ];
    case 'unknown_command':
      return [{ role: 'user', text: unknownCommandText(a.command, a.available) }];
  }
}
