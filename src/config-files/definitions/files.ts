/**
 * Reading definition files: markdown files under a directory (recursively, in name order), each
 * cut at a size limit and read under the rules of src/config-files/safe-read.ts (its real path
 * inside the allowed roots, a regular text file). A file that cannot be read is skipped with a
 * warning; a missing directory is simply empty. A directory reached through a link is walked only
 * when it is inside the roots too, and each directory once (a link loop ends there).
 */
import { readdirSync, realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { isInsideDir, readConfigFile, refusedWarning } from '../safe-read';

/** Largest definition file read, bytes (a command or skill body is a prompt: larger is a mistake). */
export const MAX_DEFINITION_BYTES = 256 * 1024;

/** One markdown file found under a directory. */
export interface FoundFile {
  /** Absolute path. */
  path: string;
  /** Path below the directory, `/`-separated, without the `.md` suffix (`frontend/component`). */
  rel: string;
  text: string;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Reads one file (or undefined when there is none; with a warning when it is too large, not
 * inside `roots`, not a regular text file, or unreadable).
 * @param roots directories the file's real path must be inside
 */
export function readDefinitionFile(p: string, roots: readonly string[], warn: (m: string) => void): string | undefined {
  const r = readConfigFile(p, { roots, maxBytes: MAX_DEFINITION_BYTES });
  if (r.status === 'read') return r.text;
  if (r.status === 'refused') warn(refusedWarning(p, r.reason));
  return undefined;
}

/**
 * A directory to walk, by its real path, when it is inside `roots` and not walked yet; else
 * undefined (with a warning for one outside the roots).
 */
function enterDir(
  d: string,
  roots: readonly string[],
  seen: Set<string>,
  warn: (m: string) => void,
): string | undefined {
  let real: string;
  try {
    real = realpathSync.native(d);
  } catch {
    return undefined;
  }
  if (seen.has(real)) return undefined;
  seen.add(real);
  const realRoots = roots.map((r) => {
    try {
      return realpathSync.native(r);
    } catch {
      return path.resolve(r);
    }
  });
  if (!realRoots.some((r) => isInsideDir(real, r))) {
    warn(refusedWarning(d, `it is a link to ${real}, which is outside ${roots.join(' and ')}`));
    return undefined;
  }
  return real;
}

/**
 * The `.md` files under `dir` (recursively; hidden entries left out), sorted by relative path.
 * @param roots directories the files' real paths must be inside
 */
export function markdownFiles(
  dir: string,
  roots: readonly string[],
  warn: (m: string) => void,
  recursive = true,
): FoundFile[] {
  if (!isDir(dir)) return [];
  const out: FoundFile[] = [];
  const seen = new Set<string>();
  const walk = (d: string, prefix: string): void => {
    if (enterDir(d, roots, seen, warn) === undefined) return;
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const p = path.join(d, name);
      if (isDir(p)) {
        if (recursive) walk(p, `${prefix}${name}/`);
        continue;
      }
      if (!name.endsWith('.md')) continue;
      const text = readDefinitionFile(p, roots, warn);
      if (text !== undefined) out.push({ path: p, rel: `${prefix}${name.slice(0, -3)}`, text });
    }
  };
  walk(dir, '');
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

/**
 * The skill directories under `dir` that hold a `SKILL.md`, with its text, sorted by name.
 * @param roots directories the files' real paths must be inside
 */
export function skillFiles(
  dir: string,
  roots: readonly string[],
  warn: (m: string) => void,
): Array<FoundFile & { baseDir: string }> {
  if (!isDir(dir) || enterDir(dir, roots, new Set(), warn) === undefined) return [];
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const out: Array<FoundFile & { baseDir: string }> = [];
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const baseDir = path.join(dir, name);
    if (!isDir(baseDir)) continue;
    const text = readDefinitionFile(path.join(baseDir, 'SKILL.md'), roots, warn);
    if (text === undefined) continue;
    out.push({ path: path.join(baseDir, 'SKILL.md'), rel: name, text, baseDir });
  }
  return out;
}

export { isDir };
