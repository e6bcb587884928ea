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
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { statOrUndefined } from './file-state';
import type { ToolContext, ToolOutput } from './types';

/** Environment variable naming the file the shell writes its last directory to. */
export const SHELL_CWD_FILE_ENV = 'AGENT_RUNNER_CWD_FILE';

/** Script lines that make bash write its directory to the file when it exits. */
export const SHELL_CWD_TRAP = `trap 'pwd -P >| "$${SHELL_CWD_FILE_ENV}" 2>/dev/null' EXIT`;

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

/**
 * Reads (and removes) the file the shell wrote on exit. A directory outside the session's
 * working directory resets the shell to it (with Claude Code's note).
 */
export async function shellEnd(ctx: ToolContext, file: string): Promise<ShellEnd> {
  let written: string;
  try {
    written = (await fsp.readFile(file, 'utf8')).trim();
  } catch {
    return {};
  } finally {
    await fsp.rm(file, { force: true }).catch(() => undefined);
  }
  if (written === '' || !path.isAbsolute(written)) return {};
  const root = await fsp.realpath(ctx.cwd).catch(() => ctx.cwd);
  const rel = path.relative(root, written);
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
