/**
 * The data directory is private: it holds transcripts, prompts, tool output, the server's state
 * and sockets. Whoever opens it makes sure that it is a directory of this user with mode 0700
 * (nothing in a 0700 directory can be reached by another user, whatever its own mode), and the
 * runner creates what it puts there owner-only (files 0600, directories 0700, see
 * {@link PRIVATE_FILE_MODE}).
 *
 * A data directory that already exists with group or other access (0755 from an older version,
 * a `mkdir` by hand) is repaired: the directory becomes 0700 and every file and directory in it
 * loses its group and other bits (a one-time walk). One that belongs to another user is refused.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentRunnerError } from '../common/errors';

/** Mode of the files the runner creates in the data directory (owner read and write). */
export const PRIVATE_FILE_MODE = 0o600;
/** Mode of the directories the runner creates in the data directory. */
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Thrown when the data directory cannot be used: not writable, not a directory, another user's,
 * or its permissions cannot be repaired. The CLI prints it and exits 2.
 */
export class DataDirError extends AgentRunnerError {
  override readonly name = 'DataDirError';
  readonly kind = 'usage';
}

/** What {@link ensurePrivateDataDir} did. */
export interface PrivateDirResult {
  /** Set when the directory had group or other access and was repaired: its mode before (e.g. `0755`). */
  repairedFrom?: string;
  /** Entries inside whose mode was repaired. */
  repairedEntries: number;
}

const checked = new Set<string>();

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}

const HOW_TO_CHOOSE = 'Set AGENT_RUNNER_DATA_DIR (or dataDir in temporal.yaml) to a directory of your own.';

const FS_REASONS: Record<string, string> = {
  EROFS: 'it is on a read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ENOTDIR: 'a path component is a file, not a directory',
  EEXIST: 'a file of that name is in the way',
};

/** A file-system error (`EROFS`, `EACCES`, …) in words, or null for other errors. */
export function fileSystemReason(e: unknown): string | null {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code !== undefined ? (FS_REASONS[code] ?? null) : null;
}

/**
 * The error for a data directory that cannot be created or written, naming it, the reason in
 * words and the setting that chooses another one (never a raw `ENOTDIR`).
 */
export function unwritableDataDir(dataDir: string, cause: unknown): DataDirError {
  const reason = fileSystemReason(cause) ?? (cause instanceof Error ? cause.message : String(cause));
  return new DataDirError(
    `the data directory ${dataDir} is not writable (${reason}). It holds the transcripts and the ` +
      'embedded Temporal database: set AGENT_RUNNER_DATA_DIR (or dataDir in temporal.yaml) to a writable directory.',
  );
}

/**
 * Creates the data directory (0700) or checks and repairs an existing one (see the module
 * comment). Cheap after the first call in a process for the same directory.
 * @throws DataDirError for a path that cannot be created (the reason in words), is not a
 *   directory, is a directory of another user, or has permissions that cannot be repaired
 */
export function ensurePrivateDataDir(dataDir: string): PrivateDirResult {
  const dir = path.resolve(dataDir);
  if (checked.has(dir)) return { repairedEntries: 0 };
  try {
    fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (err) {
    // A file in the way is told below; other errors (read-only, no permission) in words.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw unwritableDataDir(dir, err);
  }
  const st = fs.statSync(dir);
  if (!st.isDirectory()) throw new DataDirError(`the data directory ${dir} is not a directory. ${HOW_TO_CHOOSE}`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new DataDirError(
      `the data directory ${dir} belongs to uid ${st.uid}, not to this user (uid ${uid}): its transcripts would not be private. ` +
        HOW_TO_CHOOSE,
    );
  }
  const result: PrivateDirResult = { repairedEntries: 0 };
  if ((st.mode & 0o077) !== 0) {
    try {
      fs.chmodSync(dir, PRIVATE_DIR_MODE);
    } catch (err) {
      throw new DataDirError(
        `the data directory ${dir} is readable by other users (mode ${octal(st.mode)}) and could not be made private ` +
          `(${(err as Error).message}). ${HOW_TO_CHOOSE}`,
      );
    }
    result.repairedFrom = octal(st.mode);
    result.repairedEntries = repairEntries(dir, uid);
  }
  checked.add(dir);
  return result;
}

/** Removes group and other bits from every entry under `dir` (links are not followed). */
function repairEntries(dir: string, uid: number | undefined): number {
  let repaired = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const d = stack.pop() as string;
    let names: string[];
    try {
      names = fs.readdirSync(d);
    } catch {
      continue;
    }
    for (const name of names) {
      const p = path.join(d, name);
      let st: fs.Stats;
      try {
        st = fs.lstatSync(p);
      } catch {
        continue;
      }
      if (st.isSymbolicLink()) continue;
      if (uid !== undefined && st.uid !== uid) {
        throw new DataDirError(
          `the data directory ${dir} was readable by other users, and ${p} in it belongs to uid ${st.uid}, not to this user: ` +
            `remove it (or the directory) before using it. ${HOW_TO_CHOOSE}`,
        );
      }
      if ((st.mode & 0o077) !== 0) {
        fs.chmodSync(p, st.mode & 0o7700);
        repaired++;
      }
      if (st.isDirectory()) stack.push(p);
    }
  }
  return repaired;
}

/** Forgets which directories were checked (tests that change a directory's mode between runs). */
export function resetPrivateDataDirChecks(): void {
  checked.clear();
}
