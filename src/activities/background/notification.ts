/**
 * The notification of a finished background command, as 2.1.328 words it: a
 * `<task-notification>` with the task id, the Bash call's tool-use id, the output file, the
 * status (`completed`, `failed`, `killed`) and the summary (plus the time-limit note), inside
 * the notification head. No output goes in it: the model reads the output file.
 */
import type { TaskFinishedMessage, TaskRecord } from '../../common/tasks';
import { framedNotification, taskNotificationText } from '../agents/texts';
import { shellNoteText, shellSummaryText } from './texts';

/** The text blocks of a background command's notification (one block). */
export function shellNotificationBlocks(record: TaskRecord, finished: TaskFinishedMessage): string[] {
  const end = finished.shellEnd ?? { kind: 'lost', reason: 'its end was not reported' };
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
