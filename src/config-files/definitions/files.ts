/**
 * Reading definition files: markdown files under a directory (recursively, in name order), each
 * cut at a size limit. A file that cannot be read is skipped with a warning; a missing directory
 * is simply empty.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

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

/** Reads one file (or undefined, with a warning, when it is too large or unreadable). */
export function readDefinitionFile(p: string, warn: (m: string) => void): string | undefined {
  try {
    const st = statSync(p);
    if (!st.isFile()) return undefined;
    if (st.size > MAX_DEFINITION_BYTES) {
      warn(`${p}: ${st.size} bytes, more than ${MAX_DEFINITION_BYTES}; not loaded`);
      return undefined;
    }
    return readFileSync(p, 'utf8');
  } catch (err) {
    warn(`${p}: cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}); not loaded`);
    return undefined;
  }
}

/** The `.md` files under `dir` (recursively; hidden entries left out), sorted by relative path. */
export function markdownFiles(dir: string, warn: (m: string) => void, recursive = true): FoundFile[] {
  if (!isDir(dir)) return [];
  const out: FoundFile[] = [];
  const walk = (d: string, prefix: string): void => {
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
      const text = readDefinitionFile(p, warn);
      if (text !== undefined) out.push({ path: p, rel: `${prefix}${name.slice(0, -3)}`, text });
    }
  };
  walk(dir, '');
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

/** The skill directories under `dir` that hold a `SKILL.md`, with its text, sorted by name. */
export function skillFiles(dir: string, warn: (m: string) => void): Array<FoundFile & { baseDir: string }> {
  const report = warn;
  if (!isDir(dir)) return [];
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
    const file = path.join(baseDir, 'SKILL.md');
    if (!isDir(baseDir)) continue;
    if (!existsFile(file)) continue;
    const text = readDefinitionFile(file, report);
    if (text === undefined) continue;
    out.push({ path: file, rel: name, text, baseDir });
  }
  return out;
}

function existsFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

export { isDir };
