/**
 * The Bash working directory that persists between calls (`cd` carries over, as in Claude
 * Code). Each command starts where the session's previous one left the shell; a command that
 * leaves the working directory of the session has its shell reset to it.
 *
 * The directory is kept relative to the session's working directory on the command's
 * tool_result line (`toolRun.shellCwd`), so it survives worker crashes and moves with the
 * session to another host whose checkout lives at another path (see `persistedShellCwd`).
 */
import { randomUUID } from 'node:crypto';
import { constants as fsConstants, existsSync, promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { statOrUndefined } from './file-state';
import type { ToolContext, ToolOutput } from './types';

/**
 * The `pwd` program (coreutils), named by its path: a name with a slash is never an alias, a
 * builtin or looked up in PATH (the trap removes a function of that name first). The builtin is
 * the fallback where no such file exists.
 */
const PWD_PROGRAM = ['/bin/pwd', '/usr/bin/pwd'].find((p) => existsSync(p)) ?? 'pwd';

/** `s` as one single-quoted bash word. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The script line that makes bash write its directory to `file` when it exits.
 *
 * The command runs in the same shell after this line, so the trap depends on nothing the command
 * can change. The file is a quoted literal: no variable (`AGENT_RUNNER_CWD_FILE=/x`, IFS) can move
 * the write, and `>|` writes despite `set -C`. The directory comes from the `pwd` program by its
 * path, called in a subshell after `POSIXLY_CORRECT=y` (an assignment, which nothing can replace)
 * puts bash in POSIX mode, where the special builtin `unset` is found before any function: it
 * removes a function named like the program, so no function, alias, `enable -n` or PATH stands in
 * for it (`\unset` is quoted against aliases). If the command made that impossible
 * (`readonly POSIXLY_CORRECT`) or removed the trap, nothing is written and the directory is not
 * carried over; what the file holds is checked again by {@link shellEnd}.
 */
export function shellCwdTrap(file: string): string {
  // The braces' redirection also silences bash's own "Terminated" notice for the subshell when a
  // timeout's signal ends it (bash prints it on its stderr, inside the redirection).
  const action = `{ (POSIXLY_CORRECT=y && \\unset -f ${PWD_PROGRAM} && ${PWD_PROGRAM} -P >| ${shellQuote(file)}); } 2>/dev/null`;
  return `trap -- ${shellQuote(action)} EXIT`;
}

/** Claude Code's note when a command left the working directory and the shell was moved back. */
export function shellResetNote(cwd: string): string {
  return `Shell cwd was reset to ${cwd}`;
}

/** Where a command starts, and the note to add when the remembered directory is gone. */
export interface ShellStart {
  dir: string;
  /** Set when the remembered directory no longer exists (the command runs in `cwd`). */
  resetNote?: string;
}

/** Where the command of `ctx` starts: the remembered directory, or `cwd` when it is gone. */
export async function shellStart(ctx: ToolContext): Promise<ShellStart> {
  if (ctx.shellCwd === undefined || ctx.shellCwd === ctx.cwd) return { dir: ctx.cwd };
  const st = await statOrUndefined(ctx.shellCwd).catch(() => undefined);
  if (st?.isDirectory()) return { dir: ctx.shellCwd };
  return { dir: ctx.cwd, resetNote: shellResetNote(ctx.cwd) };
}

/** A fresh path for the shell to write its final directory to. */
export function newShellCwdFile(): string {
  return path.join(os.tmpdir(), `agent-runner-cwd-${randomUUID()}`);
}

/** Where the command left the shell, as {@link ToolOutput.shellCwd} plus a reset note. */
export interface ShellEnd {
  /** Relative to `cwd`; `""` for `cwd` itself; undefined when unknown (keep the previous one). */
  shellCwd?: string;
  resetNote?: string;
}

/** Longest directory the shell-cwd file may hold, bytes (PATH_MAX). */
const SHELL_CWD_MAX_BYTES = 4096;

/**
 * The text of the shell-cwd file, or undefined when it is not a regular file (the command may have
 * put a symlink, a FIFO or a directory there: none is followed, none blocks).
 */
async function readShellCwdFile(file: string): Promise<string | undefined> {
  const handle = await fsp
    .open(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK)
    .catch(() => undefined);
  if (!handle) return undefined;
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    const buf = Buffer.alloc(SHELL_CWD_MAX_BYTES + 1);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    if (bytesRead > SHELL_CWD_MAX_BYTES) return undefined;
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Reads (and removes) the file the shell wrote on exit. A directory outside the session's
 * working directory resets the shell to it (with Claude Code's note). The directory is resolved
 * again here (the command can write anything to the file): one that is gone or leads outside the
 * working directory through a symlink counts as outside.
 */
export async function shellEnd(ctx: ToolContext, file: string): Promise<ShellEnd> {
  let written: string | undefined;
  try {
    written = (await readShellCwdFile(file))?.replace(/\n$/, '');
  } finally {
    await fsp.rm(file, { force: true }).catch(() => undefined);
  }
  if (written === undefined || written === '' || written.includes('\n') || !path.isAbsolute(written)) return {};
  const real = await fsp.realpath(written).catch(() => undefined);
  const root = await fsp.realpath(ctx.cwd).catch(() => ctx.cwd);
  const rel = real === undefined ? '..' : path.relative(root, real);
  if (rel === '') return { shellCwd: '' };
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
    return { shellCwd: '', resetNote: shellResetNote(ctx.cwd) };
  }
  return { shellCwd: rel };
}

/**
 * A Bash output with where the shell ended up (`shellCwd`) and, when the shell was reset, Claude
 * Code's note after the output (and as the structured result's `stderr`).
 */
export function withShellCwd(out: ToolOutput, end: ShellEnd, start: ShellStart): ToolOutput {
  const note = end.resetNote ?? start.resetNote;
  const withCwd: ToolOutput = {
    ...out,
    ...(end.shellCwd !== undefined ? { shellCwd: end.shellCwd } : start.resetNote ? { shellCwd: '' } : {}),
  };
  if (note === undefined || typeof out.content !== 'string') return withCwd;
  const empty = out.content === '(Bash completed with no output)';
  const structured = out.structured as Record<string, unknown> | undefined;
  return {
    ...withCwd,
    content: empty ? note : `${out.content}\n${note}`,
    ...(structured !== null && typeof structured === 'object'
      ? { structured: { ...structured, stderr: `\n${note}` } }
      : {}),
  };
}
