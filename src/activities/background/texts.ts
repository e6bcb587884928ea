/**
 * The model-facing texts of background commands, byte for byte as Claude Code 2.1.328 writes
 * them (test/conformance/recordings/async/claude-2.1.328/bash-background*; quoted in
 * docs/reference/claude-code-async-tools.md "Background Bash"), and the one text 2.1.328 has
 * no counterpart for: a command whose worker or host was lost (ours; docs/compatibility.md).
 */
import type { ShellEnd } from '../../common/shell-tasks';

export { shellSummaryText } from '../../common/shell-summary';

/** The Bash tool_result of a `run_in_background` launch. */
export function shellLaunchedText(taskId: string, outputFile: string): string {
  return `Command running in background with ID: ${taskId}. Output is being written to: ${outputFile}. You will be notified when it completes. To check interim output, use Read on that file path.`;
}

/** The note of a command stopped at its background time limit. */
export const SHELL_TIMEOUT_NOTE =
  'If the work in progress still needs it, start it again with `run_in_background` and a longer `timeout`. If it already had the longest `timeout` allowed, do not restart it. Either way, report that it was stopped.';

/**
 * The note of a command whose worker or host was lost (not in 2.1.328, whose commands die with
 * the process and never notify): what it did is unknown, and it was not run again.
 */
export const SHELL_LOST_NOTE =
  'The command was not run again, because running a shell command twice is not safe. Check its effects (files, processes, remote state) before deciding whether to start it again.';

/** The `<note>` of a background command's notification, if it has one. */
export function shellNoteText(end: ShellEnd): string | undefined {
  if (end.kind === 'timeout') return SHELL_TIMEOUT_NOTE;
  if (end.kind === 'lost') return SHELL_LOST_NOTE;
  return undefined;
}
