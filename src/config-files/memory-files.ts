/**
 * Finding and reading memory files (CLAUDE.md and what they import), within limits: a file is
 * read up to a size and cut with a note past it, imports are followed to a depth, an import
 * cycle is an error naming the files. Each file, a memory file itself as much as an import, is
 * read under the rules of src/config-files/safe-read.ts: its real path inside the roots (the
 * repository for the project's files, the home and config directory for the user's own), a
 * regular text file; another is skipped with a warning. Runs where the files are: the client for the user's own
 * memory, the worker for the project's.
 */
import { realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { isInsideDir, readConfigFile } from './safe-read';
import type { MemoryFile, MemoryType } from '../common/context';
import { importPaths, resolveImport } from './memory-imports';
import { AgentRunnerError } from '../common/errors';

/** Limits of one load of memory files. */
export interface MemoryLimits {
  /** Characters of one file sent to the model; the rest is cut with a note. @default 100000 */
  maxFileChars: number;
  /** Characters of all files of one load. @default 200000 */
  maxTotalChars: number;
  /** Files in a chain of imports, the importing file included (Claude Code's 5). @default 5 */
  maxImportDepth: number;
}

/** The limits used unless a caller gives others. */
export const DEFAULT_MEMORY_LIMITS: Readonly<MemoryLimits> = {
  maxFileChars: 100_000,
  maxTotalChars: 200_000,
  maxImportDepth: 5,
};

/** Memory files found, in the order they are sent, and what a user should be told. */
export interface MemoryLoad {
  files: MemoryFile[];
  /** One line each: a file cut to the limits, an import not followed. */
  warnings: string[];
}

/** Thrown when memory files import each other in a cycle (the CLI exits 2 with its message). */
export class MemoryImportCycleError extends AgentRunnerError {
  override readonly name = 'MemoryImportCycleError';
  readonly kind = 'usage';
  /**
   * @param file the memory file whose import closes the cycle
   * @param chain the files of the cycle, the first repeated at the end
   */
  constructor(
    readonly file: string,
    readonly chain: readonly string[],
  ) {
    super(`memory import cycle in ${file}: ${chain.join(' imports ')}; remove one of these @imports`);
  }
}

/**
 * Reads memory files and their imports for one load, keeping the character budget, the files
 * already sent (a file imported twice is sent once) and the chain of imports being followed.
 */
export class MemoryReader {
  private readonly limits: MemoryLimits;
  private usedChars = 0;
  private readonly seen = new Set<string>();
  readonly files: MemoryFile[] = [];
  readonly warnings: string[] = [];

  /**
   * @param importRoots files are read (and imports followed) only when their real path is
   *   inside one of these directories (the repository for project files, the home and config
   *   directory for the user's own)
   * @param home what `~/` in an import means
   */
  constructor(
    private readonly importRoots: readonly string[],
    limits: Partial<MemoryLimits> = {},
    private readonly home: string = homedir(),
  ) {
    this.limits = { ...DEFAULT_MEMORY_LIMITS, ...limits };
  }

  /** Marks files as already sent (not sent again by this reader). */
  exclude(paths: Iterable<string>): void {
    for (const p of paths) this.seen.add(p);
  }

  /**
   * Adds a memory file and, after it, what it imports (depth first). A file that does not exist
   * is skipped.
   * @throws MemoryImportCycleError when an import leads back to a file of the chain.
   */
  async add(path: string, type: MemoryType, chain: readonly string[] = []): Promise<void> {
    // A missing file is skipped silently, an import too (as in Claude Code: `@name` in prose
    // is often not meant as an import).
    const real = await realpath(path).catch(() => null);
    if (real === null) return;
    const realChain = await Promise.all(chain.map((p) => realpath(p).catch(() => p)));
    const at = realChain.indexOf(real);
    if (at >= 0) throw new MemoryImportCycleError(chain[chain.length - 1] ?? path, [...chain.slice(at), path]);
    if (this.seen.has(real) || this.seen.has(path)) return;
    const room = this.limits.maxTotalChars - this.usedChars;
    if (room <= 0) {
      this.warnings.push(
        `memory file ${path} not sent: the memory files already sent reach the limit of ${this.limits.maxTotalChars} characters`,
      );
      return;
    }
    const max = Math.min(this.limits.maxFileChars, room);
    // The file itself, not only an import, must be inside a root (CLAUDE.md may be a link too).
    // UTF-8 takes at most 4 bytes a character; one more character tells whether it was cut.
    const read = readConfigFile(path, { roots: this.importRoots, maxBytes: (max + 1) * 4, overSize: 'truncate' });
    if (read.status === 'missing') return;
    if (read.status === 'refused') {
      this.warnings.push(`memory file ${path} not sent: ${read.reason}`);
      return;
    }
    const head = { text: read.text, bytes: read.bytes };
    this.seen.add(real);
    const file: MemoryFile = { path, type, content: head.text };
    if (head.text.length > max) {
      file.content =
        `${head.text.slice(0, max)}\n\n[The runner cut this file here: it has ${head.bytes} bytes, ` +
        `and only its first ${max} characters are sent.]`;
      file.truncatedFromBytes = head.bytes;
      this.warnings.push(
        `memory file ${path} has ${head.bytes} bytes: only its first ${max} characters are sent to the model ` +
          `(limits: ${this.limits.maxFileChars} characters a file, ${this.limits.maxTotalChars} in all)`,
      );
    }
    this.usedChars += Math.min(head.text.length, max);
    this.files.push(file);

    const next = [...chain, path];
    for (const imp of importPaths(head.text.slice(0, max))) {
      const target = resolveImport(imp, dirname(path), this.home);
      if (!this.importRoots.some((root) => isInsideDir(target, root))) {
        this.warnings.push(
          `memory file ${path}: import @${imp} not followed: ${target} is outside ${this.importRoots.join(' and ')}`,
        );
        continue;
      }
      // Through a link, the file read is where the link leads: it must be inside a root too.
      const realTarget = await realpath(target).catch(() => null);
      if (realTarget !== null && !(await this.realRoots()).some((root) => isInsideDir(realTarget, root))) {
        this.warnings.push(
          `memory file ${path}: import @${imp} not followed: ${target} is a link to ${realTarget}, outside ${this.importRoots.join(' and ')}`,
        );
        continue;
      }
      if (next.length >= this.limits.maxImportDepth) {
        this.warnings.push(
          `memory file ${path}: import @${imp} not followed: imports nest at most ${this.limits.maxImportDepth} files deep`,
        );
        continue;
      }
      await this.add(target, type, next);
    }
  }

  private realRootsOnce: Promise<string[]> | undefined;

  /** The import roots with their links resolved (a root that does not exist stays as it is). */
  private realRoots(): Promise<string[]> {
    this.realRootsOnce ??= Promise.all(this.importRoots.map((r) => realpath(r).catch(() => r)));
    return this.realRootsOnce;
  }

  /** What was read. */
  result(): MemoryLoad {
    return { files: [...this.files], warnings: [...this.warnings] };
  }
}

/** The memory files a directory holds, in Claude Code's order, for the sources wanted. */
export function memoryFilesOf(dir: string, sources: { project: boolean; local: boolean }): Array<[string, MemoryType]> {
  const out: Array<[string, MemoryType]> = [];
  if (sources.project) out.push([join(dir, 'CLAUDE.md'), 'Project'], [join(dir, '.claude', 'CLAUDE.md'), 'Project']);
  if (sources.local) out.push([join(dir, 'CLAUDE.local.md'), 'Local']);
  return out;
}

/**
 * The root of the repository `dir` is in: the nearest directory upwards with a `.git` (a
 * directory, or a file in a worktree or submodule); null when there is none.
 */
export async function repositoryRoot(dir: string): Promise<string | null> {
  let d = resolve(dir);
  for (;;) {
    if (
      await stat(join(d, '.git')).then(
        () => true,
        () => false,
      )
    )
      return d;
    const up = dirname(d);
    if (up === d) return null;
    d = up;
  }
}

/** Directories from `top` down to `bottom` (both included); `bottom` must be inside `top`. */
export function directoriesBetween(top: string, bottom: string): string[] {
  const rel = relative(top, bottom);
  if (rel === '') return [top];
  const parts = rel.split(sep);
  return [top, ...parts.map((_, i) => join(top, ...parts.slice(0, i + 1)))];
}

/** Options of {@link loadProjectMemory}. */
export interface ProjectMemoryOptions {
  /** Working directory of the session. */
  cwd: string;
  /** Repository root (see {@link repositoryRoot}); memory files are read from it down to `cwd`. */
  root: string;
  /** `project`: CLAUDE.md and .claude/CLAUDE.md; `local`: CLAUDE.local.md. */
  sources: { project: boolean; local: boolean };
  limits?: Partial<MemoryLimits>;
  home?: string;
}

/**
 * The project's memory files, from the repository root down to the working directory; imports
 * are followed inside the repository.
 * @throws MemoryImportCycleError
 */
export async function loadProjectMemory(opts: ProjectMemoryOptions): Promise<MemoryLoad> {
  const reader = new MemoryReader([opts.root], opts.limits, opts.home);
  for (const dir of directoriesBetween(opts.root, opts.cwd)) {
    for (const [path, type] of memoryFilesOf(dir, opts.sources)) await reader.add(path, type);
  }
  return reader.result();
}

/**
 * The user's own memory: `CLAUDE.md` of the Claude config directory; its imports are followed
 * inside the home and config directories.
 * @throws MemoryImportCycleError
 */
export async function loadUserMemory(opts: {
  configDir: string;
  home?: string;
  limits?: Partial<MemoryLimits>;
}): Promise<MemoryLoad> {
  const home = opts.home ?? homedir();
  const reader = new MemoryReader([home, opts.configDir], opts.limits, home);
  await reader.add(join(opts.configDir, 'CLAUDE.md'), 'User');
  return reader.result();
}

/** Options of {@link loadNestedMemory}. */
export interface NestedMemoryOptions {
  /** The file the model read or changed (absolute). */
  filePath: string;
  cwd: string;
  root: string;
  sources: { project: boolean; local: boolean };
  /** Memory files already in the context this turn (absolute paths): not sent again. */
  loaded: Iterable<string>;
  limits?: Partial<MemoryLimits>;
  home?: string;
}

/**
 * Memory files of the directories between the working directory (excluded: its files are in the
 * session's instructions) and the directory of a file the model read or changed (included),
 * outermost first, minus those already loaded. None for a file outside the working directory.
 * A file whose imports form a cycle is skipped with a warning (the read that found it stands).
 */
export async function loadNestedMemory(opts: NestedMemoryOptions): Promise<MemoryLoad> {
  const dir = dirname(resolve(opts.cwd, opts.filePath));
  if (!isInsideDir(dir, opts.cwd) || dir === resolve(opts.cwd) || basename(opts.filePath) === '') {
    return { files: [], warnings: [] };
  }
  const reader = new MemoryReader([opts.root], opts.limits, opts.home);
  reader.exclude(opts.loaded);
  for (const d of directoriesBetween(opts.cwd, dir).slice(1)) {
    for (const [path, type] of memoryFilesOf(d, opts.sources)) {
      try {
        await reader.add(path, type);
      } catch (err) {
        // Found mid-turn: the read itself stands; the model just does not get this file.
        if (!(err instanceof MemoryImportCycleError)) throw err;
        reader.warnings.push(`${err.message} (not sent)`);
      }
    }
  }
  return reader.result();
}
