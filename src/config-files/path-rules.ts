/**
 * Path rules (`Read(./secrets/**)`, `Edit(src/**)`, `Edit(//etc/**)`, `Read(~/.ssh/**)`): the
 * gitignore-style patterns of Claude Code's Read and Edit rules, matched with picomatch against
 * absolute paths.
 *
 * Forms of the pattern inside the parentheses:
 * - `//abs/path`: absolute;
 * - `~/path`: under the home directory (of the worker that runs the tool);
 * - `/path`: relative to the rule's root (the project directory of the settings file it came from);
 * - `path` or `./path`: relative to the working directory. As in gitignore, a pattern without a
 *   slash (`.env`, `*.key`) matches at any depth below it, and one with a slash is anchored.
 *
 * A pattern also covers everything below a directory it matches (`Read(secrets)` denies
 * `secrets/key`), as a gitignore pattern does.
 *
 * {@link canonicalPathPattern} turns the relative forms into absolute ones where the roots are
 * known (the settings loader, the CLI), so rules travel as `//…` or `~/…` strings.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import picomatch from 'picomatch';

/**
 * The absolute form of a path pattern: `//abs…` or `~/…`.
 * @param settingsRoot directory `/path` patterns are relative to
 * @param cwd directory `path` and `./path` patterns are relative to
 */
export function canonicalPathPattern(pattern: string, settingsRoot: string, cwd: string): string {
  let p = pattern.trim();
  if (p.startsWith('//') || p === '~' || p.startsWith('~/')) return p;
  const dirOnly = p.length > 1 && p.endsWith('/');
  if (dirOnly) p = p.replace(/\/+$/, '');
  if (p.startsWith('/')) return `/${path.posix.join(settingsRoot, p)}`;
  if (p.startsWith('./')) return `/${path.posix.join(cwd, p.slice(2))}`;
  if (p === '.') return `/${cwd}`;
  // gitignore: no slash in the pattern → it matches at any depth.
  if (!p.includes('/')) return `/${path.posix.join(cwd, '**', p)}`;
  return `/${path.posix.join(cwd, p)}`;
}

/** Checks a path pattern's syntax. @returns an error message, or null when it is valid. */
export function pathPatternError(pattern: string): string | null {
  const p = pattern.trim();
  if (p === '') return 'the path pattern is empty';
  if (p.startsWith('!')) return 'negated patterns (!) are not supported in permission rules';
  if (p.includes('\0')) return 'the pattern contains a NUL character';
  try {
    picomatch.makeRe(p.replace(/^\/\//, '/'), { dot: true });
  } catch (err) {
    return `the pattern is not a valid glob (${(err as Error).message})`;
  }
  return null;
}

const cache = new Map<string, picomatch.Matcher>();

function matcher(absPattern: string): picomatch.Matcher {
  let m = cache.get(absPattern);
  if (!m) {
    m = picomatch(absPattern, { dot: true });
    if (cache.size > 1000) cache.clear();
    cache.set(absPattern, m);
  }
  return m;
}

/** The pattern as an absolute glob on this machine (`~` expanded). */
export function absoluteGlob(canonical: string, home: string = os.homedir()): string {
  if (canonical === '~') return home;
  if (canonical.startsWith('~/')) return path.posix.join(home, canonical.slice(2));
  if (canonical.startsWith('//')) return canonical.slice(1);
  return canonical;
}

/**
 * True when a canonical pattern matches the absolute path or one of its ancestors.
 * @param canonical a pattern from {@link canonicalPathPattern}
 */
export function pathMatches(canonical: string, absPath: string, home?: string): boolean {
  const glob = absoluteGlob(canonical, home);
  const m = matcher(glob);
  for (let p = absPath; ; p = path.dirname(p)) {
    if (m(p)) return true;
    if (path.dirname(p) === p) return false;
  }
}

/**
 * True when the pattern could match something strictly inside `dir` (a recursive read of `dir`
 * would reach a file the rule covers).
 */
export function pathPatternReachesInto(canonical: string, dir: string, home?: string): boolean {
  const glob = absoluteGlob(canonical, home);
  const scan = picomatch.scan(glob);
  const base = scan.base === '' ? '/' : scan.base;
  const d = dir.endsWith('/') ? dir : `${dir}/`;
  return base.startsWith(d) || (scan.isGlob && d.startsWith(base.endsWith('/') ? base : `${base}/`));
}
