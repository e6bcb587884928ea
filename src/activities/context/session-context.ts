/**
 * The context a session starts with, taken on the worker where its working tree is: the memory
 * files (the user's, loaded by the client, then the project's), a git status snapshot and the
 * environment. Stored once as an `attachment` line of the transcript; every request renders it
 * from there, so it stays byte-identical for the whole session (the prompt cache keeps serving it).
 */
import * as fs from 'node:fs';
import { release, type } from 'node:os';
import * as path from 'node:path';
import type { ContextAttachment, EnvironmentSnapshot, MemoryFile, SettingSource } from '../../common/context';
import { gitStatusSnapshot } from './git-status';
import type { MemoryLimits } from '../../config-files/memory-files';
import { loadProjectMemory, repositoryRoot } from '../../config-files/memory-files';

/** Options of {@link loadSessionContext}. */
export interface SessionContextOptions {
  cwd: string;
  /** Model of the first call (named in the environment). */
  model: string;
  /** Memory sources to read. @default every source */
  sources?: readonly SettingSource[];
  /** The user's own memory files, as the client loaded them. */
  userMemory?: readonly MemoryFile[];
  /** Take a git status snapshot (Claude Code leaves it out under a custom system prompt). @default true */
  gitStatus?: boolean;
  limits?: Partial<MemoryLimits>;
  /** @default new Date() */
  now?: Date;
}

/** True for the root of a linked worktree under a repository's `.claude/worktrees/` (an agent's, src/activities/agents/worktree.ts). */
function isAgentWorktree(root: string): boolean {
  try {
    return (
      path.basename(path.dirname(root)) === 'worktrees' &&
      path.basename(path.dirname(path.dirname(root))) === '.claude' &&
      fs.statSync(path.join(root, '.git')).isFile()
    );
  } catch {
    return false;
  }
}

/** Local date as `YYYY-MM-DD`. */
export function localDate(d: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/**
 * Loads the context of a new session: `instructions` (when there are memory files),
 * `session_context` (in a git repository, unless turned off) and `environment`, in this order.
 * @returns the attachments and warnings for the user (files cut, imports not followed)
 * @throws MemoryImportCycleError when project memory files import each other in a cycle.
 */
export async function loadSessionContext(
  opts: SessionContextOptions,
): Promise<{ attachments: ContextAttachment[]; warnings: string[] }> {
  const sources = new Set(opts.sources ?? ['user', 'project', 'local']);
  const root = await repositoryRoot(opts.cwd);
  const project = await loadProjectMemory({
    cwd: opts.cwd,
    root: root ?? opts.cwd,
    sources: { project: sources.has('project'), local: sources.has('local') },
    ...(opts.limits ? { limits: opts.limits } : {}),
  });
  const files = [...(sources.has('user') ? (opts.userMemory ?? []) : []), ...project.files];
  const worktree = root !== null && isAgentWorktree(root) && root === opts.cwd;
  // An agent in its own worktree is told its branch and status, under its own system prompt too (as in 2.1.328).
  const gitStatus = (opts.gitStatus === false && !worktree) || root === null ? null : await gitStatusSnapshot(opts.cwd);
  const environment: EnvironmentSnapshot = {
    workingDirectory: opts.cwd,
    ...(worktree ? { isWorktree: true as const } : {}),
    isGitRepo: root !== null,
    ...(worktree ? { additionalWorkingDirectories: [root] } : {}),
    platform: process.platform,
    shell: 'bash',
    osVersion: `${type()} ${release()}`,
    model: opts.model,
    date: localDate(opts.now ?? new Date()),
  };
  const attachments: ContextAttachment[] = [];
  if (files.length > 0) attachments.push({ type: 'instructions', files });
  if (gitStatus !== null) attachments.push({ type: 'session_context', context: { gitStatus } });
  attachments.push({ type: 'environment', environment });
  return { attachments, warnings: project.warnings };
}
