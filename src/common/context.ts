/**
 * What a session's context holds besides the conversation, as stored on transcript lines
 * (`attachment` lines and the `attachments` field of tool-result lines): the memory files
 * (CLAUDE.md), a git status snapshot and the environment. JSON-safe; the request builder renders
 * them into the request the way Claude Code does (src/activities/context/render.ts).
 */

/** Where a memory file comes from, as Claude Code names it. */
export type MemoryType = 'User' | 'Project' | 'Local';

/**
 * Sources of settings and memory files (`--setting-sources`): `user` (the Claude config
 * directory's settings.json and CLAUDE.md), `project` (.claude/settings.json, CLAUDE.md,
 * .claude/CLAUDE.md), `local` (.claude/settings.local.json, CLAUDE.local.md).
 */
export const SETTING_SOURCES = ['user', 'project', 'local'] as const;
export type SettingSource = (typeof SETTING_SOURCES)[number];

/** One memory file as sent to the model. */
export interface MemoryFile {
  /** Absolute path (as resolved, symlinks not followed in the name). */
  path: string;
  type: MemoryType;
  /** Text sent to the model: the file, or its beginning and a note when it was cut. */
  content: string;
  /** Size of the file in bytes, when it was cut to fit the limits. */
  truncatedFromBytes?: number;
}

/** The environment of a session, taken on the worker when the session starts. */
export interface EnvironmentSnapshot {
  workingDirectory: string;
  /** The working directory is an agent's git worktree (`<repo>/.claude/worktrees/…`, a linked worktree). */
  isWorktree?: true;
  isGitRepo: boolean;
  /** Directories the model may work in besides the working directory (an agent's worktree names itself, as Claude Code 2.1.328 does). */
  additionalWorkingDirectories?: string[];
  /** `process.platform` of the worker. */
  platform: string;
  /** Shell Bash commands run in, e.g. `bash`. */
  shell: string;
  /** e.g. `Linux 6.8.0-40-generic`. */
  osVersion: string;
  /** Model of the first call. */
  model: string;
  /** Local date of the worker when the session started, `YYYY-MM-DD`. */
  date: string;
}

/** A piece of context stored in the transcript. */
export type ContextAttachment =
  | { type: 'instructions'; files: MemoryFile[] }
  | { type: 'session_context'; context: { gitStatus: string } }
  /** `planFile`: the session started in plan mode; its plan file (plan mode's paragraph names it). */
  | { type: 'environment'; environment: EnvironmentSnapshot; planFile?: string }
  | { type: 'nested_memory'; file: MemoryFile }
  /** The skills the model may load with the Skill tool, listed once in the session's context. */
  | { type: 'skill_listing'; skills: Array<{ name: string; description: string }> }
  /**
   * A file an `@path` reference of a command or skill named, read when it ran. `style`:
   * `command` for a typed command (Claude Code sends the call as a message of its own),
   * `skill` for one loaded with the Skill tool (both parts end in a newline).
   */
  | { type: 'file_read'; path: string; content: string; style: 'command' | 'skill' }
  /** A typed `/name` that no command of the session has: the model is told so before the prompt. */
  | { type: 'unknown_command'; command: string; available: string[] };

/** Input of the `loadContext` activity (refs and flags only; the content goes to the store). */
export interface LoadContextInput {
  sessionId: string;
  cwd: string;
  /** Uuid of the `attachment` line it writes (from the workflow; stable across retries). */
  uuid: string;
  /** The line it follows: the session's first prompt. */
  parentUuid: string;
  /** Model of the first call (named in the environment). */
  model: string;
  /** Memory sources (`--setting-sources`). @default every source */
  settingSources?: SettingSource[];
  /** Content key of the user's own memory files (JSON of `MemoryFile[]`, stored by the client). */
  userMemoryKey?: string;
  /** Take a git status snapshot; false under a custom system prompt, as in Claude Code. */
  gitStatus: boolean;
  /** Content key of the session's definitions: the skills the model may load are listed in the context. */
  definitionsKey?: string;
  /** The session starts in plan mode (`--permission-mode plan`): the context names its plan file. */
  planMode?: boolean;
}

/** Output of `loadContext`: a small summary; the context itself is on the line it wrote. */
export interface LoadContextSummary {
  uuid: string;
  /** Memory files sent to the model. */
  memoryFiles: number;
  /** Warnings about the memory files (cut to the limits, imports not followed); logged by the worker. */
  warnings: number;
  /** True when the line already existed (an earlier attempt wrote it). */
  replayed: boolean;
  /** Plan mode: the session's plan file (absolute path). */
  planFile?: string;
}

/** Failure types thrown by `loadContext` (`ApplicationFailure.type`). */
export const ContextErrorType = {
  /** Memory files import each other in a cycle (non-retryable; the message names the files). */
  MemoryImportCycle: 'ContextError.MemoryImportCycle',
  /** The user's memory the client stored is not in the store (non-retryable). */
  MissingContent: 'ContextError.MissingContent',
} as const;
