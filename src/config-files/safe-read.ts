/**
 * Reading a configuration file that a repository (or the user's config directory) provides:
 * agents, commands, skills, memory files, settings, plugin manifests, scheduled tasks. Their text
 * reaches the model (a definition listing, CLAUDE.md) or a tool's environment, so a file that is a
 * link must not turn the run into a reader of anything the worker can open (`/proc/self/environ`
 * with the worker's API keys, a file of another project). A file is read only when:
 *
 * - its real path (every link resolved) is inside one of the allowed roots (the project for a
 *   project's files; the home and config directory for the user's own; the plugin's directory);
 * - it is not on a kernel file system (`/proc`, `/sys`, `/dev`, and procfs or sysfs mounted
 *   elsewhere): their files report a size of 0 and produce text when read;
 * - it is a regular file (a FIFO or a device is refused before it is read, and the file is
 *   opened with `O_NONBLOCK`, so that nothing can make the reader wait);
 * - it holds at most `maxBytes` bytes, counted while reading (a size from `stat` is not trusted);
 * - it holds no NUL byte (these are text files).
 *
 * Reads are synchronous: every loader of configuration is (or runs once per session), and a read
 * is bounded by `maxBytes`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { projectRootOf } from './settings-trust';

/** Largest JSON configuration file read (settings, plugin manifests, hooks, scheduled tasks), bytes. */
export const MAX_CONFIG_JSON_BYTES = 1024 * 1024;

/** Where a file may be and how much of it is read. */
export interface SafeReadOptions {
  /**
   * Directories the file's real path must be inside (each is resolved too), or `'anywhere'` for a
   * file the user named on the command line (the other rules still hold).
   */
  roots: readonly string[] | 'anywhere';
  /** Largest size read, bytes. */
  maxBytes: number;
  /**
   * A larger file is `'refuse'`d, or `'truncate'`d to its first `maxBytes` bytes (the result's
   * `bytes` then gives the whole size). @default 'refuse'
   */
  overSize?: 'refuse' | 'truncate';
}

/** What {@link readConfigFile} found. */
export type SafeReadResult =
  | {
      status: 'read';
      text: string;
      /** The file's real path (links resolved). */
      realPath: string;
      /** Size of the file, bytes (more than `text` holds when truncated). */
      bytes: number;
      truncated: boolean;
    }
  /** Nothing at the path (or a link to nothing): loaders skip it without a word. */
  | { status: 'missing' }
  /** Not read; `reason` says why in a few words, for a warning that names the file. */
  | { status: 'refused'; reason: string };

/** Whether `p` is `dir` or below it (both absolute). */
export function isInsideDir(p: string, dir: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** Kernel file systems that show process state as files (statfs `f_type`). */
const KERNEL_FS_TYPES = new Set([
  0x9fa0, // proc
  0x62656572, // sysfs
  0x64626720, // debugfs
  0x74726163, // tracefs
  0x73636673, // securityfs
  0x63677270, // cgroup2
  0x27e0eb, // cgroup
  0x1cd1, // devpts
  0xde5e81e4, // efivarfs
  0xcafe4a11, // bpf
  0x62656570, // configfs
]);
const KERNEL_DIRS = ['/proc', '/sys', '/dev'];

function onKernelFs(real: string): boolean {
  if (KERNEL_DIRS.some((d) => isInsideDir(real, d))) return true;
  try {
    return KERNEL_FS_TYPES.has(fs.statfsSync(real).type);
  } catch {
    return false;
  }
}

function realRoot(root: string): string {
  try {
    return fs.realpathSync.native(root);
  } catch {
    return path.resolve(root);
  }
}

function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? String(err);
}

/** Where the file's real path is not allowed, or null when it is. */
function placeProblem(file: string, real: string, roots: SafeReadOptions['roots']): string | null {
  let what: string;
  if (onKernelFs(real)) what = 'on a kernel file system (such as /proc) that the runner does not read';
  else if (roots === 'anywhere' || roots.some((r) => isInsideDir(real, realRoot(r)))) return null;
  else what = `outside ${roots.join(' and ')}`;
  return real === path.resolve(file) ? `it is ${what}` : `it is a link to ${real}, which is ${what}`;
}

/** Reads up to `limit` bytes from an open file, whatever its size says. */
function readUpTo(fd: number, limit: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buf = Buffer.alloc(Math.min(64 * 1024, limit - total));
    if (buf.length === 0) break;
    const n = fs.readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    chunks.push(buf.subarray(0, n));
    total += n;
  }
  return Buffer.concat(chunks, total);
}

/** The path an open descriptor names (Linux), or null where that cannot be known. */
function openedPath(fd: number): string | null {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

/**
 * Reads a configuration file under the rules of this module.
 * @returns the text, `missing` for nothing at the path, or `refused` with the reason (never throws
 *   for a file: an unreadable one is refused with its error code)
 */
export function readConfigFile(file: string, opts: SafeReadOptions): SafeReadResult {
  let real: string;
  try {
    real = fs.realpathSync.native(file);
  } catch (err) {
    const code = errorCode(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { status: 'missing' };
    return { status: 'refused', reason: code === 'ELOOP' ? 'its links form a loop' : `it cannot be read (${code})` };
  }
  const place = placeProblem(file, real, opts.roots);
  if (place !== null) return { status: 'refused', reason: place };
  let fd: number;
  try {
    // Not opened at all unless it is a regular file: opening a device can act on it.
    if (!fs.statSync(real).isFile()) return { status: 'refused', reason: 'it is not a regular file' };
    fd = fs.openSync(real, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW);
  } catch (err) {
    return { status: 'refused', reason: `it cannot be read (${errorCode(err)})` };
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { status: 'refused', reason: 'it is not a regular file' };
    // Replaced by a link between the checks and the open: the descriptor tells where it leads.
    const opened = openedPath(fd);
    if (opened !== null && opened !== real) return { status: 'refused', reason: 'it changed while being read' };
    const buf = readUpTo(fd, opts.maxBytes + 1);
    const truncated = buf.length > opts.maxBytes;
    if (truncated && opts.overSize !== 'truncate') {
      return { status: 'refused', reason: `it has more than ${opts.maxBytes} bytes` };
    }
    const kept = truncated ? buf.subarray(0, opts.maxBytes) : buf;
    if (kept.includes(0)) return { status: 'refused', reason: 'it is not a text file (it holds NUL bytes)' };
    return {
      status: 'read',
      text: kept.toString('utf8'),
      realPath: real,
      bytes: Math.max(st.size, buf.length),
      truncated,
    };
  } catch (err) {
    return { status: 'refused', reason: `it cannot be read (${errorCode(err)})` };
  } finally {
    fs.closeSync(fd);
  }
}

/** The warning for a refused file: `<file>: not read: <reason>`. */
export function refusedWarning(file: string, reason: string): string {
  return `${file}: not read: ${reason}`;
}

/**
 * The roots of the user's own configuration: the home directory and the Claude config directory
 * (which `CLAUDE_CONFIG_DIR` may put elsewhere). A user's file may link anywhere inside them
 * (dotfiles kept in `~/dotfiles`), not out of them.
 */
export function userConfigRoots(home: string, configDir: string): string[] {
  return [home, configDir].filter((d, i, all) => all.indexOf(d) === i);
}

/**
 * The root of a project's own configuration: its git repository's top directory, or `cwd`
 * outside a repository. A project's file may link anywhere inside it, not out of it.
 */
export function projectConfigRoots(cwd: string): string[] {
  return [projectRootOf(cwd) ?? path.resolve(cwd)];
}
