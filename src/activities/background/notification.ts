/**
 * The notification of a finished background command, as 2.1.328 words it: a
 * `<task-notification>` with the task id, the Bash call's tool-use id, the output file, the
 * status (`completed`, `failed`, `killed`) and the summary (plus the time-limit note), inside
 * the notification head. No output goes in it: the model reads the output file.
 */
import type { TaskFinishedMessage, TaskRecord } from '../../common/tasks';
import { framedNotification, taskNotificationText } from '../agents/texts';
import { shellNoteText, shellSummaryText } from './texts';
import type { ShellEnd } from '../../common/shell-tasks';
import { monitorEndSummary, monitorEventNotification, monitorExpiredText } from '../monitor/texts';

/** The text blocks of a background command's notification (one block). */
export function shellNotificationBlocks(record: TaskRecord, finished: TaskFinishedMessage): string[] {
  const end = finished.shellEnd ?? { kind: 'lost', reason: 'its end was not reported' };
  if (record.shell?.monitor && end.kind !== 'lost') return [monitorEndNotification(record, finished, end)];
  const note = shellNoteText(end);
  const outputFile = finished.refs.outputFile ?? record.refs.outputFile;
  return [
    framedNotification(
      taskNotificationText({
        taskId: record.taskId,
        toolUseId: record.toolUseId,
        ...(outputFile !== undefined ? { outputFile } : {}),
        status: finished.status,
        summary: shellSummaryText(record.description, end),
        ...(note !== undefined ? { note } : {}),
      }),
    ),
  ];
}

/**
 * The notification of a monitor's end, as 2.1.328's: past its `timeout_ms`, one event (the expiry
 * notice); else the status with `stream ended`, `ended without producing output (exit N)` or
 * `script failed (exit N)`. A lost monitor gets a background command's text.
 */
function monitorEndNotification(
  record: TaskRecord,
  finished: TaskFinishedMessage,
  end: Exclude<ShellEnd, { kind: 'lost' }>,
): string {
  const counts = finished.monitor ?? { events: 0, wroteStderr: false, hadOutput: false };
  const outputFile = finished.refs.outputFile ?? record.refs.outputFile;
  if (end.kind === 'timeout') {
    const stderrFile = counts.wroteStderr ? outputFile : undefined;
    const timeoutMs = record.shell?.timeoutMs ?? 0;
    return monitorEventNotification(
      record.taskId,
      record.description,
      monitorExpiredText(timeoutMs, counts.events, stderrFile),
    );
  }
  return framedNotification(
    taskNotificationText({
      taskId: record.taskId,
      toolUseId: record.toolUseId,
      ...(outputFile !== undefined ? { outputFile } : {}),
      status: finished.status,
      summary: monitorEndSummary(
        record.description,
        finished.status,
        end.kind === 'exited' ? end.exitCode : undefined,
        counts.hadOutput,
      ),
    }),
  );
}
