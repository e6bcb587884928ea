/**
 * Protected paths: files whose change widens what runs later, outside the permission checks of the
 * call that writes them. A write to one is never allowed by `acceptEdits` or by an allow rule (the
 * decision is `ask`, a denial in headless runs); only `bypassPermissions` lets it through. Reads
 * are not affected.
 *
 * What is protected (names compared case-insensitively, as git does on case-insensitive disks):
 * - **git's own directories**: anything under a `.git` path component, and anything inside a
 *   directory that is a git directory by its contents (`HEAD` plus `objects/` or `commondir`):
 *   a bare repository, a `--separate-git-dir` or a linked worktree's git directory that a `.git`
 *   file (`gitdir: …`) points to. Its `config` and `hooks/` name programs git runs.
 * - **configuration of the agent and of tools that run programs**: directories `.claude` (settings,
 *   hooks, commands, agents), `.vscode`, `.idea`, `.husky`, `.cargo`, and files `.mcp.json`,
 *   `.claude.json`, `.gitmodules`, `.gitconfig`, `.config/git/config`, `.ripgreprc`, the shell
 *   start-up files (bash, zsh, `.profile`), direnv's `.envrc`, package managers' run commands
 *   (`.npmrc`, `.yarnrc`, `.yarnrc.yml`, `.bunfig.toml`) and git hook managers' configuration
 *   (`.pre-commit-config.yaml`, `lefthook.yml`); also everything under the Claude config directory
 *   of the home (`~/.claude`).
 *
 * The list is Claude Code's (2.1.328, checked by the `protected-paths` conformance
 * scenario). `.gitattributes` is not protected: it can only select filter and diff drivers that
 * git config defines, and config is protected (the runner's own git runs none, see src/env/git-env.ts).
 *
 * The names count below the working directory that holds the path (a project that itself lives in
 * a `.claude/worktrees/…` directory is not protected as a whole), and everywhere in a path outside
 * the working directories.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isInsideDir } from './real-path';

/** Directories whose contents are protected. */
export const PROTECTED_DIRECTORIES: readonly string[] = ['.git', '.claude', '.vscode', '.idea', '.husky', '.cargo'];

/** Files protected wherever they are. */
export const PROTECTED_FILES: readonly string[] = [
  '.gitconfig',
  '.gitmodules',
  '.bashrc',
  '.bash_profile',
  '.zshrc',
  '.zprofile',
  '.profile',
  '.ripgreprc',
  '.mcp.json',
  '.claude.json',
  '.zshenv',
  '.zlogin',
  '.zlogout',
  '.bash_login',
  '.bash_logout',
  '.envrc',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.bunfig.toml',
  '.pre-commit-config.yaml',
  'lefthook.yml',
  '.lefthook.yml',
];

/** Files protected by their last path components (`/`-separated), wherever they are. */
export const PROTECTED_FILE_PATHS: readonly string[] = ['.config/git/config'];

/** Why a path is protected. */
export interface ProtectedPath {
  /** `gitDirectory` (git's files), `agentConfig` (`.claude`), or `sensitiveFile` (the other names). */
  kind: 'gitDirectory' | 'agentConfig' | 'sensitiveFile';
  /** The protected directory or file the path is in (or is). */
  root: string;
}

const DIRS = new Set(PROTECTED_DIRECTORIES);
const FILES = new Set(PROTECTED_FILES);

/** Where the protected names are looked for in `p`: below the deepest working directory holding it, else from `/`. */
function searchBase(p: string, workingDirs: readonly string[]): string {
  let base = path.parse(p).root;
  for (const d of workingDirs) if (isInsideDir(d, p) && d.length > base.length) base = d;
  return base;
}

function byName(p: string, workingDirs: readonly string[]): ProtectedPath | null {
  const base = searchBase(p, workingDirs);
  const rel = path.relative(base, p);
  if (rel === '') return null;
  const parts = rel.split(path.sep);
  for (let i = 0; i < parts.length; i++) {
    const name = (parts[i] as string).toLowerCase();
    const root = path.join(base, ...parts.slice(0, i + 1));
    if (DIRS.has(name))
      return { kind: name === '.git' ? 'gitDirectory' : name === '.claude' ? 'agentConfig' : 'sensitiveFile', root };
    if (i === parts.length - 1 && FILES.has(name)) return { kind: 'sensitiveFile', root };
  }
  // By their last components anywhere in the path (the working directory may be inside `.config`).
  const full = p.split(path.sep).join('/').toLowerCase();
  for (const f of PROTECTED_FILE_PATHS) if (full.endsWith(`/${f}`)) return { kind: 'sensitiveFile', root: p };
  return null;
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** True when `dir` looks like a git directory to git: a `HEAD` file and an object store (own or shared). */
export function isGitDirectory(dir: string): boolean {
  return isFile(path.join(dir, 'HEAD')) && (isDir(path.join(dir, 'objects')) || isFile(path.join(dir, 'commondir')));
}

/** The git directory `real` is in (itself or an ancestor), or null. */
function enclosingGitDirectory(real: string): string | null {
  for (let d = real; ; d = path.dirname(d)) {
    if (isGitDirectory(d)) return d;
    if (path.dirname(d) === d) return null;
  }
}

/** What {@link protectedPath} needs besides the path. */
export interface ProtectedPathContext {
  /** Real paths of the working directories. */
  workingDirs: readonly string[];
  /** The Claude config directory (`~/.claude`), real path; protected wherever the working directories are. */
  claudeConfigDir?: string;
}

/**
 * Why writing `literal` (absolute, as written; its real path is `real`) is protected, or null when
 * it is not. Reads the file system (a few `stat`s per ancestor of `real`) but never throws.
 */
export function protectedPath(literal: string, real: string, ctx: ProtectedPathContext): ProtectedPath | null {
  const named = byName(real, ctx.workingDirs) ?? (literal === real ? null : byName(literal, ctx.workingDirs));
  if (named) return named;
  if (ctx.claudeConfigDir !== undefined && isInsideDir(ctx.claudeConfigDir, real))
    return { kind: 'agentConfig', root: ctx.claudeConfigDir };
  const gitDir = enclosingGitDirectory(real);
  return gitDir === null ? null : { kind: 'gitDirectory', root: gitDir };
}

/**
 * Claude Code's words for a protected write (literal path): a file tool writing into `.claude`
 * gets "write to …, but you haven't granted it yet", everything else "edit … which is a sensitive file".
 */
export function protectedPathMessage(literal: string, p: ProtectedPath, fileTool: boolean): string {
  return fileTool && p.kind === 'agentConfig'
    ? `Claude requested permissions to write to ${literal}, but you haven't granted it yet.`
    : `Claude requested permissions to edit ${literal} which is a sensitive file.`;
}
