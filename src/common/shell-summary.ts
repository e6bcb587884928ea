/**
 * The summary line of a background command's or monitor's end, as Claude Code 2.1.328 writes it:
 * the `<summary>` of the model's `<task-notification>`, and the `summary` and `status` of the
 * stream's `system/task_notification` (recordings bash-background*, monitor-*). Pure: read by the
 * notification activity and by the client that streams the session's tasks.
 */
import type { MonitorEnd } from './monitor';
import type { ShellEnd } from './shell-tasks';

/** The `<summary>` of a background command's notification. `description` is its `description` input. */
export function shellSummaryText(description: string, end: ShellEnd): string {
  switch (end.kind) {
    case 'exited':
      return end.exitCode === 0
        ? `Background command "${description}" completed (exit code 0)`
        : `Background command "${description}" failed with exit code ${end.exitCode}`;
    case 'timeout':
      return `Background command "${description}" was stopped after reaching its background time limit`;
    case 'stopped':
      return `Background command "${description}" was stopped`;
    case 'lost':
      return `Background command "${description}" has an unknown outcome: ${end.reason}`;
  }
}

/** The `<summary>` of a monitor's end: `completed` (with or without output), `failed`, `killed`. */
export function monitorEndSummary(
  description: string,
  status: 'completed' | 'failed' | 'killed',
  exitCode: number | undefined,
  hadOutput: boolean,
): string {
  const exit = exitCode !== undefined ? ` (exit ${exitCode})` : '';
  switch (status) {
    case 'completed':
      return hadOutput
        ? `Monitor "${description}" stream ended`
        : `Monitor "${description}" ended without producing output${exit}`;
    case 'failed':
      return `Monitor "${description}" script failed${exit}`;
    case 'killed':
      return `Monitor "${description}" stopped`;
  }
}

/** What the stream's `system/task_notification` of a shell's end says. */
export interface ShellStreamEnd {
  /** `stopped` for a command killed (TaskStop, an interrupt, a time limit). */
  status: 'completed' | 'failed' | 'stopped';
  summary: string;
}

/**
 * The stream's `task_notification` status and summary of a shell's end (2.1.328): a stopped
 * command or monitor, and a monitor past its `timeout_ms`, give `stopped` with the description; a
 * background command at its time limit `stopped` with its summary line; any other end its
 * notification's summary line.
 * @param end how it ended (undefined: not reported, as a lost run)
 */
export function shellStreamEnd(
  description: string,
  o: { monitor: boolean; end: ShellEnd | undefined; monitorEnd?: MonitorEnd },
): ShellStreamEnd {
  const end = o.end ?? { kind: 'lost', reason: 'its end was not reported' };
  if (end.kind === 'stopped' || (o.monitor && end.kind === 'timeout'))
    return { status: 'stopped', summary: description };
  if (end.kind === 'timeout') return { status: 'stopped', summary: shellSummaryText(description, end) };
  const failed = end.kind === 'lost' || end.exitCode !== 0;
  if (!o.monitor || end.kind === 'lost')
    return { status: failed ? 'failed' : 'completed', summary: shellSummaryText(description, end) };
  const status = failed ? 'failed' : 'completed';
  return { status, summary: monitorEndSummary(description, status, end.exitCode, o.monitorEnd?.hadOutput ?? false) };
}
