/**
 * The file a path really names: symlinks resolved everywhere in it, also for a file that does not
 * exist yet (the real path of its deepest existing ancestor, plus the rest) and for a dangling
 * symlink (its target, resolved the same way). Permission boundaries compare these, never strings.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Symlinks followed before giving up (as the kernel's ELOOP limit). */
const MAX_LINKS = 40;

/** Thrown when a path has a symlink loop or more than {@link MAX_LINKS} links. */
export class SymlinkLoopError extends Error {
  override readonly name = 'SymlinkLoopError';
}

/**
 * Real path of `abs` (absolute, normalized or not). Never fails for a missing file.
 * @throws SymlinkLoopError for a symlink loop
 */
export async function realPathOf(abs: string): Promise<string> {
  return Promise.resolve().then(() => resolve(path.resolve(abs), 0));
}

// Synchronous calls on purpose: each takes microseconds, while a trip through the libuv thread
// pool takes milliseconds on a loaded machine, and a decision makes several.
function resolve(p: string, links: number): string {
  if (links > MAX_LINKS) throw new SymlinkLoopError(`too many symbolic links resolving ${p}`);
  try {
    return fs.realpathSync.native(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new SymlinkLoopError(`symbolic link loop at ${p}`);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  const realParent = resolve(parent, links);
  const here = path.join(realParent, path.basename(p));
  // A dangling symlink: writing through it creates its target.
  let target: string | undefined;
  try {
    target = fs.readlinkSync(here);
  } catch {
    target = undefined;
  }
  if (target !== undefined) return resolve(path.resolve(realParent, target), links + 1);
  return here;
}

/** True when `p` is `dir` or inside it (both absolute and normalized). */
export function isInsideDir(dir: string, p: string): boolean {
  if (p === dir) return true;
  const base = dir.endsWith(path.sep) ? dir : dir + path.sep;
  return p.startsWith(base);
}
