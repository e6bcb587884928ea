/**
 * Writing a file so that the path the permission check approved is the path written, whatever
 * happens to the links on the way meanwhile (TOCTOU), and so that a hard link to another file
 * is broken instead of written through (as `claude -p` 2.1.328 does):
 *
 * 1. the parent directory's real path must still be the one the check resolved (else the write is
 *    refused in Claude Code's words: "its parent-directory symlink resolution changed after
 *    permission was checked");
 * 2. that directory is opened component by component without following any symlink (missing
 *    directories are created the same way), and everything after goes through the open handle
 *    (`/proc/self/fd/<fd>/…`), so a directory swapped for a link afterwards is not followed;
 * 3. the content goes to a new file created there (`O_CREAT | O_EXCL | O_NOFOLLOW`), with the
 *    replaced file's mode (and owner, when allowed), and is renamed over the target in the same
 *    directory. The target's own name is never followed: a symlink there is refused.
 *
 * Where `/proc/self/fd` is missing (not Linux), step 2 falls back to comparing the directory's
 * identity (device and inode) before and after the write, which narrows the window but cannot
 * close it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants as C, existsSync, promises as fsp, readlinkSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import type { FileReadState } from '../../common/tools';
import { plainErrorOutput } from './format';
import type { ToolOutput } from './types';
import { realPathOf } from '../permissions/real-path';

/** A write refused because the path changed under it or leads through a symlink (the tool's error text). */
export class WriteRefusedError extends Error {
  override readonly name = 'WriteRefusedError';
}

/** Claude Code's words for a parent directory whose resolution changed after the check. */
export function parentChangedMessage(abs: string): string {
  return `Refusing to write ${abs}: its parent-directory symlink resolution changed after permission was checked.`;
}

/** Claude Code's words for a symbolic link found on the way while writing. */
export function linkOnPathMessage(abs: string): string {
  return (
    `Refusing to write ${abs}: a symbolic link is on its path (the file itself, or a directory replaced during the write). ` +
    'Nothing was written there; check where the path leads now and retry.'
  );
}

/** Options of {@link writeFileThroughHandle}. */
export interface SafeWriteOptions {
  /**
   * The real path the permission check resolved for `abs` (src/activities/permissions/paths.ts). When set,
   * the write is refused unless the parent directory still resolves to its directory.
   */
  checkedPath?: string;
  /** Mode of a file that did not exist (before the umask). @default 0o666 */
  newFileMode?: number;
}

const PROC_FD = '/proc/self/fd';
const hasProcFd = process.platform === 'linux' && existsSync(PROC_FD);
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** Opens `realDir` (no symlink in it) one component at a time, creating missing ones; never follows a link. */
async function openDirNoFollow(realDir: string, abs: string): Promise<FileHandle> {
  const parts = realDir.split(path.sep).filter((p) => p !== '');
  let dir = await fsp.open('/', DIR_FLAGS);
  try {
    for (const part of parts) {
      const next = `${PROC_FD}/${dir.fd}/${part}`;
      let opened: FileHandle;
      try {
        opened = await fsp.open(next, DIR_FLAGS);
      } catch (err) {
        if (code(err) !== 'ENOENT') throw refusalFor(err, abs);
        // mkdir never follows a link in the last component: a link put there fails with EEXIST.
        await fsp.mkdir(next).catch((e: unknown) => {
          if (code(e) !== 'EEXIST') throw e;
        });
        opened = await fsp.open(next, DIR_FLAGS).catch((e: unknown) => {
          throw refusalFor(e, abs);
        });
      }
      await dir.close();
      dir = opened;
    }
    return dir;
  } catch (err) {
    await dir.close().catch(() => undefined);
    throw err;
  }
}

/** A symlink where a directory was expected means the path changed: refuse. */
function refusalFor(err: unknown, abs: string): unknown {
  const c = code(err);
  return c === 'ELOOP' || c === 'ENOTDIR' ? new WriteRefusedError(parentChangedMessage(abs)) : err;
}

/**
 * Writes `bytes` to `abs` through handles (see the module comment), creating missing parent
 * directories, and returns the new read state.
 * @throws WriteRefusedError when the parent directory's resolution changed since the check, or a
 *   symbolic link is found at the file's own name
 */
export async function writeFileThroughHandle(
  abs: string,
  bytes: Buffer,
  opts: SafeWriteOptions = {},
): Promise<FileReadState> {
  const name = path.basename(abs);
  const realParent = await realPathOf(path.dirname(abs));
  if (opts.checkedPath !== undefined && path.dirname(opts.checkedPath) !== realParent) {
    throw new WriteRefusedError(parentChangedMessage(abs));
  }
  if (!hasProcFd) return writeByPath(abs, path.join(realParent, name), bytes, opts.newFileMode);
  const dir = await openDirNoFollow(realParent, abs);
  try {
    // The handle is the checked directory: its path now must be the one resolved above.
    if (readlinkSync(`${PROC_FD}/${dir.fd}`) !== realParent) throw new WriteRefusedError(parentChangedMessage(abs));
    return await replaceIn(`${PROC_FD}/${dir.fd}`, name, abs, bytes, opts.newFileMode);
  } finally {
    await dir.close();
  }
}

/** Writes a new file in `dirPath` and renames it over `name` (the caller holds the directory). */
async function replaceIn(
  dirPath: string,
  name: string,
  abs: string,
  bytes: Buffer,
  newFileMode = 0o666,
): Promise<FileReadState> {
  const target = `${dirPath}/${name}`;
  const existing = await fsp.lstat(target).catch((err: unknown) => {
    if (code(err) === 'ENOENT') return undefined;
    throw err;
  });
  if (existing?.isSymbolicLink()) throw new WriteRefusedError(linkOnPathMessage(abs));
  if (existing?.isDirectory()) {
    throw new WriteRefusedError(
      `${abs} is a directory, not a file. To create a file inside it, include the file name in file_path.`,
    );
  }
  const tmp = `${dirPath}/.${name.slice(0, 100)}.${randomBytes(6).toString('hex')}.tmp`;
  // A new file gets the default mode (0666 less the umask); a replaced one keeps its own.
  const fh = await fsp.open(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, existing ? 0o600 : newFileMode);
  let renamed = false;
  try {
    try {
      await fh.writeFile(bytes);
      if (existing) {
        await fh.chmod(existing.mode & 0o7777);
        // Root keeps the replaced file's owner; anyone else cannot give files away (nothing to do).
        if (process.getuid?.() === 0) await fh.chown(existing.uid, existing.gid).catch(() => undefined);
      }
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fsp.rename(tmp, target);
    renamed = true;
  } finally {
    if (!renamed) await fsp.unlink(tmp).catch(() => undefined);
  }
  const st = await fsp.lstat(target);
  return { mtimeMs: st.mtimeMs, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** Without `/proc/self/fd`: by path, the directory's identity compared before and after. */
async function writeByPath(abs: string, target: string, bytes: Buffer, newFileMode?: number): Promise<FileReadState> {
  const dirPath = path.dirname(target);
  await fsp.mkdir(dirPath, { recursive: true });
  const before = await fsp.lstat(dirPath);
  if (!before.isDirectory()) throw new WriteRefusedError(parentChangedMessage(abs));
  const state = await replaceIn(dirPath, path.basename(target), abs, bytes, newFileMode);
  const after = await fsp.lstat(dirPath);
  if (after.dev !== before.dev || after.ino !== before.ino) throw new WriteRefusedError(parentChangedMessage(abs));
  return state;
}

/** A tool run whose write was refused ({@link WriteRefusedError}) as its error result, in plain text as Claude Code gives it; other errors pass. */
export async function refusedWriteAsError(run: Promise<ToolOutput>): Promise<ToolOutput> {
  try {
    return await run;
  } catch (err) {
    if (err instanceof WriteRefusedError) return plainErrorOutput(err.message);
    throw err;
  }
}

/**
 * A directory of this user that no one else can enter, in a place others can write to (the
 * temporary directory): created 0700, or, when it exists, checked to be a real directory (not a
 * link) of this user, and made 0700.
 * @throws Error naming the directory when it is a link, not a directory, or another user's
 */
export async function ensureOwnDirectory(dir: string): Promise<void> {
  await fsp.mkdir(path.dirname(dir), { recursive: true });
  await fsp.mkdir(dir, { mode: 0o700 }).catch((err: unknown) => {
    if (code(err) !== 'EEXIST') throw err;
  });
  const st = await fsp.lstat(dir);
  const uid = process.getuid?.();
  if (st.isSymbolicLink() || !st.isDirectory() || (uid !== undefined && st.uid !== uid)) {
    throw new Error(
      `${dir} is ${st.isSymbolicLink() ? 'a symbolic link' : !st.isDirectory() ? 'not a directory' : `owned by uid ${st.uid}`}, ` +
        'not a directory of this user: refusing to write tool results there. Remove it, or set TMPDIR to a directory of your own.',
    );
  }
  if ((st.mode & 0o077) !== 0) await fsp.chmod(dir, 0o700);
}
