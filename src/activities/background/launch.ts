/**
 * The launch half of `Bash` with `run_in_background: true`: checks the command as a foreground
 * one would be checked, names the task and its output file (where Claude Code 2.1.328 puts
 * them), creates the file, and answers with 2.1.328's launch text. The command itself runs in
 * `runBackgroundShell` (./run-shell.ts), which the turn starts as a task of the session once it
 * reads the {@link BackgroundLaunch} this returns.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { BackgroundLaunch } from '../../common/shell-tasks';
import { SHELL_COMMAND_CHARS, backgroundTimeoutMs, shellTaskId } from '../../common/shell-tasks';
import { TASK_DESCRIPTION_CHARS } from '../../common/tasks';
import { agentOutputFile } from '../agents/output-file';
import { commandTooLong } from '../tools/bash-limits';
import { statOrUndefined } from '../tools/file-state';
import { errorOutput } from '../tools/format';
import type { ToolContext, ToolOutput } from '../tools/types';
import { shellLaunchedText } from './texts';

/** What a background launch needs of the Bash input. */
export interface BackgroundBashInput {
  command: string;
  timeout?: number | undefined;
  description?: string | undefined;
}

/** The `tool_use_result` of a launch, as 2.1.328's. */
export interface BackgroundLaunchStructured {
  stdout: '';
  stderr: '';
  interrupted: false;
  isImage: false;
  noOutputExpected: false;
  backgroundTaskId: string;
}

/**
 * Launches `input` in the background from `startDir` (where the session's shell is).
 * @returns the launch text and {@link ToolOutput.background}; an error output (nothing launched)
 *   for a command that is too long or a working directory that is gone
 */
export async function launchBackground(
  input: BackgroundBashInput,
  ctx: ToolContext,
  startDir: string,
): Promise<ToolOutput> {
  const launch = await prepareBackground(input, backgroundTimeoutMs(input.timeout), ctx, startDir);
  if ('content' in launch) return launch;
  const structured: BackgroundLaunchStructured = {
    stdout: '',
    stderr: '',
    interrupted: false,
    isImage: false,
    noOutputExpected: false,
    backgroundTaskId: launch.taskId,
  };
  return {
    content: shellLaunchedText(launch.taskId, launch.outputFile),
    isError: false,
    structured,
    background: launch,
  };
}

/**
 * Checks a background command (or a monitor's) as a foreground one would be checked, names its
 * task and output file (where Claude Code 2.1.328 puts them) and creates the file.
 * @param timeoutMs how long it may run, ms (already bounded)
 * @returns the launch record, or an error output (nothing launched) for a command that is too
 *   long or a working directory that is gone
 */
export async function prepareBackground(
  input: BackgroundBashInput,
  timeoutMs: number,
  ctx: ToolContext,
  startDir: string,
): Promise<BackgroundLaunch | ToolOutput> {
  const tooLong = commandTooLong(input.command);
  if (tooLong) return tooLong;
  const st = await statOrUndefined(startDir);
  if (!st?.isDirectory()) {
    return errorOutput(`The working directory ${startDir} does not exist, so the command cannot run.`);
  }
  const taskId = shellTaskId(randomBytes(8));
  const outputFile = agentOutputFile(ctx.sessionId ?? 'session', ctx.cwd, taskId);
  await mkdir(dirname(outputFile), { recursive: true, mode: 0o700 });
  await writeFile(outputFile, '', { mode: 0o600 });
  return {
    taskId,
    outputFile,
    timeoutMs,
    description: (input.description?.trim() || input.command).slice(0, TASK_DESCRIPTION_CHARS),
    command: input.command.slice(0, SHELL_COMMAND_CHARS),
    cwd: startDir,
  };
}
