/**
 * Background shells (`Bash` with `run_in_background: true`), as Claude Code 2.1.328 runs them
 * (docs/reference/claude-code-async-tools.md "Background Bash"): the pure decisions, the launch
 * record that travels from the tool to the workflow, and the wire types of the task's run. The
 * texts the model reads are in `src/activities/background/texts.ts`.
 *
 * A background command is a task of the session's task table (kind `shell`): a child workflow
 * of the session's turn (`shellTaskWorkflow`, parent close policy ABANDON) that runs one long,
 * heartbeating activity on the workspace's host, and tells the session of its end.
 */

import type { MonitorEnd } from './monitor';

/** Background `timeout` when the input gives none, ms (2.1.328's Bash description: 10 min). */
export const BACKGROUND_DEFAULT_TIMEOUT_MS = 600_000;
/** Largest background `timeout`, ms (2.1.328: 2 h). */
export const BACKGROUND_MAX_TIMEOUT_MS = 7_200_000;
/** Characters of a command kept in the task table (TaskStop's `command` field). */
export const SHELL_COMMAND_CHARS = 200;

/**
 * The time a background command may run: the `timeout` input (ms) or 2.1.328's default, at most
 * {@link BACKGROUND_MAX_TIMEOUT_MS}. A non-positive or non-finite value gives the default.
 */
export function backgroundTimeoutMs(timeout: number | undefined): number {
  if (timeout === undefined || !Number.isFinite(timeout) || timeout <= 0) return BACKGROUND_DEFAULT_TIMEOUT_MS;
  return Math.min(Math.floor(timeout), BACKGROUND_MAX_TIMEOUT_MS);
}

/**
 * A background task id as Claude Code's: `b` and 8 base-36 characters (`b4k2x9q0m`), from 8
 * random bytes (`bytes`, at least 6).
 * @throws RangeError for fewer than 6 bytes
 */
export function shellTaskId(bytes: Uint8Array): string {
  if (bytes.length < 6) throw new RangeError('shellTaskId needs at least 6 random bytes');
  let n = 0n;
  for (const b of bytes.subarray(0, 8)) n = (n << 8n) | BigInt(b);
  return `b${(n % 36n ** 8n).toString(36).padStart(8, '0')}`;
}

/**
 * What the Bash tool hands the workflow when it launched a command in the background (kept on
 * the tool_result line's `toolRun`, and in `RunToolSummary.background`): small, no output.
 */
export interface BackgroundLaunch {
  /** The task id the model uses (`b…`). */
  taskId: string;
  /** Absolute path of the output file on the workspace's host (Claude Code's `tasks/<id>.output`). */
  outputFile: string;
  /** How long the command may run, ms ({@link backgroundTimeoutMs}). */
  timeoutMs: number;
  /** The `description` input (or the command's start), cut to 200 characters. */
  description: string;
  /** The command's start, cut to {@link SHELL_COMMAND_CHARS} (TaskStop answers with it). */
  command: string;
  /** Directory the command starts in (where the session's shell was). */
  cwd: string;
  /** A `Monitor`: each stdout line is an event the session gets while the command runs. */
  monitor?: true;
}

/** The shell-specific part of a task record. */
export interface ShellTaskInfo {
  /** {@link BackgroundLaunch.command}. */
  command: string;
  timeoutMs: number;
  /** A `Monitor` (its stdout lines are events; it expires at `timeoutMs`). */
  monitor?: true;
  /** How it ended, once it has (the stream's `task_notification` says so). */
  end?: ShellEnd;
  /** A monitor's counts at its end. */
  monitorEnd?: MonitorEnd;
}

/**
 * How a background command ended, as the run reports it:
 * - `exited`: it exited by itself (`exitCode`, 128 + signal for a signal);
 * - `timeout`: it reached its background time limit and was killed;
 * - `stopped`: `TaskStop` or an interrupt killed it;
 * - `lost`: its worker or host was lost while it ran; the process died with it (or cannot be
 *   reached), and what it did is unknown. It is never re-run (Bash is not idempotent).
 */
export type ShellEnd =
  { kind: 'exited'; exitCode: number } | { kind: 'timeout' } | { kind: 'stopped' } | { kind: 'lost'; reason: string };

/** The task status a shell's end gives: exit 0 completed, another exit or a loss failed, a kill killed. */
export function shellStatus(end: ShellEnd): 'completed' | 'failed' | 'killed' {
  switch (end.kind) {
    case 'exited':
      return end.exitCode === 0 ? 'completed' : 'failed';
    case 'lost':
      return 'failed';
    default:
      return 'killed';
  }
}

/**
 * The last line of a background command's output file, as 2.1.328 writes it after a blank line
 * (`[exited with code 0]`, `[killed]`); a lost run gets no trailer (nobody is left to write it).
 */
export function outputTrailer(end: ShellEnd): string | null {
  switch (end.kind) {
    case 'exited':
      return `[exited with code ${end.exitCode}]`;
    case 'timeout':
    case 'stopped':
      return '[killed]';
    case 'lost':
      return null;
  }
}

/** Input of `runBackgroundShell`. */
export interface RunShellInput {
  sessionId: string;
  taskId: string;
  /** The assistant line and tool_use that hold the command. */
  assistantUuid: string;
  toolUseId: string;
  /** Directory the command starts in. */
  cwd: string;
  outputFile: string;
  /** How long the command may run, ms. */
  timeoutMs: number;
  /**
   * A `Monitor`: stdout lines are batched into events, each stored and signalled to the session
   * (`taskEvent`) as it comes; stderr goes to the output file only.
   */
  monitor?: { sessionWorkflowId?: string; runId: string; description: string };
}

/** What `runBackgroundShell` reports (a `lost` end is the workflow's to decide, never this activity's). */
export interface RunShellResult {
  end: Exclude<ShellEnd, { kind: 'lost' }>;
  /** Bytes of output the command wrote. */
  outputBytes: number;
  /** A monitor's counts. */
  monitor?: MonitorEnd;
}

/**
 * True for a task output file as Claude Code names it (`…/claude-<uid>/<project>/<session>/tasks/<id>.output`):
 * it changes while its command runs by design, so a Read of it is not tracked for the
 * changed-file reminder (2.1.328 sends none for it; bash-background-read).
 */
export function isTaskOutputFile(path: string): boolean {
  return /\/claude-[^/]+\/[^/]+\/[^/]+\/tasks\/[^/]+\.output$/.test(path);
}
