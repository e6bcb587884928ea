/**
 * Which files a search leaves out because an ignore file says so, decided as ripgrep decides
 * (Claude Code's Grep runs ripgrep with its default rules; its Glob runs it with `--no-ignore`
 * unless `CLAUDE_CODE_GLOB_NO_IGNORE` is false). The patterns are matched by the `ignore` package
 * (git's rules); which files apply, and in what order, is ripgrep's:
 * - `.gitignore` files, `.git/info/exclude` and the global excludes file
 *   (`core.excludesFile`, by default `$XDG_CONFIG_HOME/git/ignore`) apply only inside a git
 *   repository (a directory with `.git`, or one below it), and no `.gitignore` above the
 *   repository's root;
 * - `.ignore` and `.rgignore` apply anywhere;
 * - the files of every directory from the entry's up to the search root, then of the root's
 *   parents; a deeper file wins over a shallower one, and `.rgignore` over `.ignore` over
 *   `.gitignore` over `exclude` over the global file (the first of these that matches the path,
 *   as ignored or as re-included with `!`, decides);
 * - the search root itself is never left out, even when a parent's rules ignore it (as a path
 *   given to ripgrep is searched); the rules still apply to what is below it.
 */
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import ignore from 'ignore';
import type { Ignore } from 'ignore';
import { gitEnvironment } from '../../env/child-env';
import { readConfigFile } from '../../config-files/safe-read';

/** The rules one directory contributes. */
interface DirRules {
  rgignore: Ignore | null;
  ignore: Ignore | null;
  gitignore: Ignore | null;
  /** `.git/info/exclude` of a repository whose root this directory is. */
  exclude: Ignore | null;
  /** The directory holds `.git` (a repository's root). */
  hasGit: boolean;
}

const NO_RULES: DirRules = { rgignore: null, ignore: null, gitignore: null, exclude: null, hasGit: false };

/** The matchers of one kind, in precedence order. */
const KINDS = ['rgignore', 'ignore', 'gitignore', 'exclude'] as const;

/** Largest ignore file read, bytes. */
const MAX_IGNORE_FILE_BYTES = 16 * 1024 * 1024;

/**
 * An ignore file's text, or null: absent, unreadable, or refused by the rules of
 * src/config-files/safe-read.ts (a FIFO would hang the search; a repository's ignore files may
 * link anywhere, their text never reaching the model).
 */
async function readText(path: string): Promise<string | null> {
  const r = readConfigFile(path, { roots: 'anywhere', maxBytes: MAX_IGNORE_FILE_BYTES });
  return r.status === 'read' ? r.text : null;
}

/** The `.git` directory of a repository root (`.git` itself, or what a `.git` file points to). */
async function gitDirOf(dir: string): Promise<string | null> {
  const dotGit = join(dir, '.git');
  const st = await fsp.lstat(dotGit).catch(() => null);
  if (!st) return null;
  if (st.isDirectory()) return dotGit;
  const text = st.isFile() ? await readText(dotGit) : null;
  const m = text ? /^gitdir:\s*(.+?)\s*$/m.exec(text) : null;
  return m?.[1] ? resolve(dir, m[1]) : dotGit;
}

/** The repository's `info/exclude` (a linked worktree's is its main repository's). */
async function excludeFileOf(gitDir: string): Promise<string> {
  const common = (await readText(join(gitDir, 'commondir')))?.trim();
  return join(common ? resolve(gitDir, common) : gitDir, 'info', 'exclude');
}

/**
 * Escapes a path for a gitignore pattern: the characters that are special in one (`\`, `*`, `?`,
 * `[`, `]`), a leading `!` or `#`, and trailing spaces.
 */
function escapePattern(path: string): string {
  return path
    .replace(/[\\*?[\]]/g, '\\$&')
    .replace(/^[!#]/, '\\$&')
    .replace(/ +$/, (s) => s.replace(/ /g, '\\ '));
}

/** Paths are matched case-sensitively, as git on Linux and ripgrep match them. */
function matcher(text: string, reinclude: readonly string[] = []): Ignore {
  const ig = ignore({ ignoreCase: false, allowRelativePaths: true });
  ig.add(text);
  // The search root and the directories between it and these rules are re-included at the end,
  // so that their own exclusion does not pass down to what is searched below the root.
  for (const d of reinclude) ig.add(`!/${escapePattern(d)}/`);
  return ig;
}

async function loadDirRules(dir: string, reinclude: readonly string[] = []): Promise<DirRules> {
  const [rg, ig, gi, gitDir] = await Promise.all([
    readText(join(dir, '.rgignore')),
    readText(join(dir, '.ignore')),
    readText(join(dir, '.gitignore')),
    gitDirOf(dir),
  ]);
  const ex = gitDir ? await readText(await excludeFileOf(gitDir)) : null;
  if (rg === null && ig === null && gi === null && ex === null && gitDir === null) return NO_RULES;
  return {
    rgignore: rg === null ? null : matcher(rg, reinclude),
    ignore: ig === null ? null : matcher(ig, reinclude),
    gitignore: gi === null ? null : matcher(gi, reinclude),
    exclude: ex === null ? null : matcher(ex, reinclude),
    hasGit: gitDir !== null,
  };
}

/**
 * The global excludes file's text (its path from git's global config, else git's default), read
 * once per process and environment (`HOME`, `XDG_CONFIG_HOME`, `GIT_CONFIG_GLOBAL`).
 */
const globalExcludes = new Map<string, Promise<string | null>>();

function loadGlobalExcludes(): Promise<string | null> {
  const env = gitEnvironment();
  const key = [env['HOME'], env['XDG_CONFIG_HOME'], env['GIT_CONFIG_GLOBAL']].join('\0');
  let text = globalExcludes.get(key);
  if (!text) {
    text = new Promise<string | null>((done) => {
      execFile(
        'git',
        ['config', '--global', '--path', '--get', 'core.excludesFile'],
        { env, timeout: 5000 },
        (err, stdout) => {
          const configured = err ? '' : stdout.trim();
          const xdg = env['XDG_CONFIG_HOME'];
          const dir = xdg && isAbsolute(xdg) ? xdg : join(env['HOME'] ?? homedir(), '.config');
          void readText(configured || join(dir, 'git', 'ignore')).then(done);
        },
      );
    });
    globalExcludes.set(key, text);
  }
  return text;
}

/** Ripgrep's ignore-file rules for one search root (see the module comment). */
export class IgnoreRules {
  private readonly dirs = new Map<string, Promise<DirRules>>();
  private readonly loaded = new Map<string, DirRules>();

  private constructor(
    /** The search root (absolute). */
    readonly root: string,
    /** The root's parents with their rules, nearest first. */
    private readonly parents: ReadonlyArray<{ dir: string; rules: DirRules }>,
    /** Whether the root or a parent is in a git repository. */
    private readonly inGitAbove: boolean,
    private readonly globalRules: Ignore | null,
    private readonly globalBase: string | null,
  ) {}

  /** Reads the rules of `root`'s parents (and the global excludes file when in a repository). */
  static async load(root: string): Promise<IgnoreRules> {
    const abs = resolve(root);
    const parents: Array<{ dir: string; rules: DirRules }> = [];
    for (let d = dirname(abs), below = abs; d !== below; below = d, d = dirname(d)) {
      parents.push({ dir: d, rules: await loadDirRules(d, pathsDown(d, abs)) });
    }
    const rootRules = await loadDirRules(abs);
    const repoRoot = rootRules.hasGit ? abs : (parents.find((p) => p.rules.hasGit)?.dir ?? null);
    const global = repoRoot ? await loadGlobalExcludes() : null;
    const rules = new IgnoreRules(
      abs,
      parents,
      repoRoot !== null,
      global ? matcher(global, repoRoot === abs ? [] : pathsDown(repoRoot!, abs)) : null,
      repoRoot,
    );
    rules.loaded.set(abs, rootRules);
    rules.dirs.set(abs, Promise.resolve(rootRules));
    return rules;
  }

  /** Reads the rules of a directory below the root the walk is about to list (once each). */
  async enter(dir: string): Promise<void> {
    let p = this.dirs.get(dir);
    if (!p) {
      p = loadDirRules(dir);
      this.dirs.set(dir, p);
    }
    this.loaded.set(dir, await p);
  }

  /**
   * Whether an entry below the root (absolute path) is ignored. The rules of each directory
   * between it and the root must have been {@link enter}ed.
   */
  ignored(path: string, isDir: boolean): boolean {
    if (path === this.root) return false;
    const chain: Array<{ dir: string; rules: DirRules }> = [];
    for (let d = dirname(path); ; d = dirname(d)) {
      chain.push({ dir: d, rules: this.loaded.get(d) ?? NO_RULES });
      if (d === this.root || dirname(d) === d) break;
    }
    chain.push(...this.parents);
    const anyGit = this.inGitAbove || chain.some((c) => c.rules.hasGit);
    const suffix = isDir ? '/' : '';
    for (const kind of KINDS) {
      if ((kind === 'gitignore' || kind === 'exclude') && !anyGit) continue;
      for (const { dir, rules } of chain) {
        const m = rules[kind];
        if (m) {
          const r = m.test(relative(dir, path).split(sep).join('/') + suffix);
          if (r.ignored) return true;
          if (r.unignored) return false;
        }
        // No .gitignore above a repository's root counts.
        if ((kind === 'gitignore' || kind === 'exclude') && rules.hasGit) break;
      }
    }
    if (this.globalRules && this.globalBase !== null) {
      const rel = relative(this.globalBase, path);
      if (!rel.startsWith('..')) return this.globalRules.test(rel.split(sep).join('/') + suffix).ignored;
    }
    return false;
  }

  /**
   * Whether `path` or a directory between it and the root is ignored: for entries that the walk
   * did not reach through the directories (a pattern without wildcards names its file directly).
   */
  async ignoredOnTheWay(path: string, isDir: boolean): Promise<boolean> {
    const dirs: string[] = [];
    for (let d = dirname(path); d.length > this.root.length && d.startsWith(this.root); d = dirname(d)) dirs.push(d);
    dirs.reverse();
    for (const d of [this.root, ...dirs]) await this.enter(d);
    return dirs.some((d) => this.ignored(d, true)) || this.ignored(path, isDir);
  }
}

/** The relative paths of the directories from `base` (exclusive) down to `target` (inclusive). */
function pathsDown(base: string, target: string): string[] {
  const rel = relative(base, target).split(sep);
  return rel.map((_, i) => rel.slice(0, i + 1).join('/'));
}
