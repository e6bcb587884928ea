/**
 * Paths and read-file state: how tools resolve `file_path`, fingerprint a file
 * (mtime, size, SHA-256) and check that a file has not changed since the model read it.
 */
import { createHash } from 'node:crypto';
import { promises as fsp, type Stats } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FileReadState } from '../../common/tools';
import type { ToolContext } from './types';
import { writeFileThroughHandle } from './safe-write';

/** Chunk size used when streaming files. */
export const FILE_CHUNK_BYTES = 64 * 1024;

/**
 * Resolves a tool's `file_path`/`path` against the session's cwd. A leading `~/` means the
 * home directory; the result is normalized and absolute.
 */
export function resolveToolPath(cwd: string, p: string): string {
  let q = p;
  if (q === '~') q = os.homedir();
  else if (q.startsWith('~/')) q = path.join(os.homedir(), q.slice(2));
  return path.resolve(cwd, q);
}

/**
 * Resolves an optional directory input (Glob's and Grep's `path`); missing, empty, or the
 * strings "undefined"/"null" that models sometimes send all mean the working directory.
 */
export function resolveOptionalPath(cwd: string, p: string | undefined): string {
  if (p === undefined || p === '' || p === 'undefined' || p === 'null') return cwd;
  return resolveToolPath(cwd, p);
}

/**
 * How Glob and Grep show a path to the model (as Claude Code does): relative to the working
 * directory when it is inside it, else absolute.
 */
export function displayPath(cwd: string, abs: string): string {
  const rel = path.relative(cwd, abs);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel;
}

/** `stat` that returns `undefined` for a path that does not exist (other errors throw). */
export async function statOrUndefined(abs: string): Promise<Stats | undefined> {
  try {
    return await fsp.stat(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** SHA-256 (hex) of a buffer or string (UTF-8). */
export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Read-file state of a file on disk, hashing it in chunks so that large files are never
 * held in memory. `onChunk` is called after each chunk (e.g. to heartbeat).
 */
export async function computeFileState(abs: string, onChunk?: () => void): Promise<FileReadState> {
  const fh = await fsp.open(abs, 'r');
  try {
    const st = await fh.stat();
    const hash = createHash('sha256');
    const buf = Buffer.allocUnsafe(FILE_CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      hash.update(buf.subarray(0, bytesRead));
      onChunk?.();
    }
    return { mtimeMs: st.mtimeMs, size: st.size, sha256: hash.digest('hex') };
  } finally {
    await fh.close();
  }
}

/** Error text for a write to an existing file the model has not read. */
export const NOT_READ_MESSAGE = 'File has not been read yet. Read it first before writing to it.';

/** Error text for a write to a file that changed after the model read it. */
export const MODIFIED_SINCE_READ_MESSAGE =
  'File has been modified since it was read, either by the user or by another tool (e.g. a formatter or linter). Read it again before writing to it.';

/**
 * Checks that an existing file may be overwritten: the session must hold a read state for it,
 * and the file's current bytes must match that state (same size and SHA-256). A changed
 * mtime alone, with identical bytes, is accepted: the model's view of the file is still right.
 * `unreadAllowed` (a person approved the call, `ToolContext.approved`) lets a file with no read
 * state through, as Claude Code 2.1.328 does.
 * Returns an error message, or `undefined` when the write may go ahead.
 */
export function checkWritable(
  abs: string,
  current: FileReadState,
  ctx: Pick<ToolContext, 'readState'>,
  opts: { unreadAllowed?: boolean } = {},
): string | undefined {
  const seen = ctx.readState(abs);
  if (!seen) return opts.unreadAllowed ? undefined : NOT_READ_MESSAGE;
  if (seen.size !== current.size || seen.sha256 !== current.sha256) {
    return MODIFIED_SINCE_READ_MESSAGE;
  }
  return undefined;
}

/** Largest file Edit and Write will load to modify, bytes. */
export const MAX_EDITABLE_BYTES = 32 * 1024 * 1024;

/** An existing file loaded for modification, with its state computed from the same bytes. */
export interface LoadedFile {
  bytes: Buffer;
  text: string;
  state: FileReadState;
}

/**
 * Loads an existing regular file for Edit/Write (whole content, size-limited).
 * Returns an error message instead when the path is a directory or the file is too large.
 */
export async function loadForModification(abs: string, st: Stats): Promise<LoadedFile | { error: string }> {
  if (st.isDirectory()) {
    return { error: `Path is a directory, not a file: ${abs}` };
  }
  if (st.size > MAX_EDITABLE_BYTES) {
    return {
      error: `File is too large to modify with this tool (${(st.size / (1024 * 1024)).toFixed(1)} MB; the limit is ${MAX_EDITABLE_BYTES / (1024 * 1024)} MB). Use Bash (e.g. sed) instead.`,
    };
  }
  const fh = await fsp.open(abs, 'r');
  try {
    const fst = await fh.stat();
    const bytes = await fh.readFile();
    return {
      bytes,
      text: bytes.toString('utf8'),
      state: { mtimeMs: fst.mtimeMs, size: bytes.length, sha256: sha256Hex(bytes) },
    };
  } finally {
    await fh.close();
  }
}

/**
 * Writes `text` (UTF-8) to `abs`, creating parent directories, and returns the new read state.
 * The file is written as a new file renamed over the old one, through a handle on the directory
 * the permission check approved (src/activities/tools/safe-write.ts): a hard link is broken, the
 * mode kept, and a path whose links changed since the check is refused.
 * @throws WriteRefusedError (safe-write.ts) for a path whose resolution changed or a symbolic link at the file's name
 */
export async function writeTextFile(
  abs: string,
  text: string,
  ctx: Pick<ToolContext, 'checkedPath'> = {},
): Promise<FileReadState> {
  return writeFileThroughHandle(abs, Buffer.from(text, 'utf8'), {
    ...(ctx.checkedPath !== undefined ? { checkedPath: ctx.checkedPath } : {}),
  });
}
