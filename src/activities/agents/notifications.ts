/**
 * Task notifications: what a finished background task tells the model, as Claude Code 2.1.328
 * words it (a `<task-notification>` inside a system reminder, after a reminder of the tools the
 * agent used). `storeTaskNotification` builds it from the store (the agent's final report) and
 * stores it as content for the session; `recordNotification` writes it as a user line of the turn
 * that reads it (a turn the notification started, or the running turn before its next call).
 */
import { createHash } from 'node:crypto';
import type { ContentRef } from '../../common/content-ref';
import type { TaskFinishedMessage, TaskRecord } from '../../common/tasks';
import type { TranscriptEntry } from '../../common/transcript';
import { TRANSCRIPT_SCHEMA_VERSION } from '../../common/transcript';
import type { TranscriptStore } from '../../store/transcript-store';
import { assistantLineText } from './record-result';
import { shellNotificationBlocks } from '../background/notification';
import {
  AGENT_NOTIFICATION_NOTE,
  agentSummary,
  framedNotification,
  taskNotificationText,
  toolsUsedReminder,
} from './texts';

/** Content-key prefix of stored notifications (`notification/<sha256>`). */
export const NOTIFICATION_KEY_PREFIX = 'notification/';

/** Input of `storeTaskNotification`: the task as the table has it, and how its run ended. */
export interface StoreNotificationInput {
  sessionId: string;
  record: TaskRecord;
  finished: TaskFinishedMessage;
}

/** What a stored notification holds: the text blocks of its user message. */
export interface StoredNotification {
  blocks: string[];
}

/** Creates `storeTaskNotification`. */
export function createStoreTaskNotification(
  store: TranscriptStore,
): (input: StoreNotificationInput) => Promise<ContentRef> {
  return async ({ sessionId, record, finished }) =>
    storeNotificationBlocks(store, sessionId, await notificationBlocks(store, sessionId, record, finished));
}

/** Stores the text blocks of a notification as content (`notification/<sha256>`); its ref. */
export async function storeNotificationBlocks(
  store: TranscriptStore,
  sessionId: string,
  blocks: string[],
): Promise<ContentRef> {
  const body = Buffer.from(JSON.stringify({ blocks } satisfies StoredNotification), 'utf8');
  const sha256 = createHash('sha256').update(body).digest('hex');
  const key = `${NOTIFICATION_KEY_PREFIX}${sha256}`;
  const stored = await store.putContent(sessionId, key, body);
  return { key, bytes: stored.size, sha256: stored.sha256 };
}

/** The text blocks of an agent's notification. */
export async function notificationBlocks(
  store: TranscriptStore,
  sessionId: string,
  record: TaskRecord,
  finished: TaskFinishedMessage,
): Promise<string[]> {
  if (record.kind === 'shell') return shellNotificationBlocks(record, finished);
  const killed = finished.status === 'killed';
  const last = finished.refs.resultUuid ? await store.get(sessionId, finished.refs.resultUuid) : undefined;
  const report = assistantLineText(last);
  const summary = killed
    ? agentSummary.stopped(record.description)
    : finished.status === 'failed'
      ? agentSummary.failed(record.description)
      : agentSummary.finished(record.description);
  const bare = taskNotificationText({
    taskId: record.taskId,
    toolUseId: record.toolUseId,
    ...(record.refs.outputFile !== undefined ? { outputFile: record.refs.outputFile } : {}),
    status: finished.status,
    summary,
    note: AGENT_NOTIFICATION_NOTE,
    ...(killed ? {} : { result: report }),
    ...(killed
      ? {}
      : {
          usage: {
            totalTokens: finished.usage.totalTokens,
            toolUses: finished.usage.toolUses,
            durationMs: finished.usage.durationMs,
          },
        }),
  });
  const tools = finished.toolsUsed ?? [];
  return [...(tools.length > 0 && !killed ? [toolsUsedReminder(tools)] : []), framedNotification(bare)];
}

/** Input of `recordNotification`: the line of a stored notification in a turn's chain. */
export interface RecordNotificationInput {
  sessionId: string;
  uuid: string;
  parentUuid: string | null;
  turnId: string;
  timestamp: string;
  ref: ContentRef;
  /** The task run it tells of. */
  taskId: string;
  runId: string;
  /**
   * True when the notification starts a turn (its prompt: counted as a turn of the session);
   * false when it joins a running turn's next call (a meta line).
   */
  startsTurn: boolean;
}

/** Creates `recordNotification`: writes the notification's user line (first writer wins). */
export function createRecordNotification(
  store: TranscriptStore,
): (input: RecordNotificationInput) => Promise<{ uuid: string; written: boolean }> {
  return async (i) => {
    const body = await store.getContent(i.sessionId, i.ref.key);
    if (!body) throw new Error(`session ${i.sessionId}: the notification ${i.ref.key} is not in the store`);
    const { blocks } = JSON.parse(body.toString('utf8')) as StoredNotification;
    const entry: TranscriptEntry = {
      v: TRANSCRIPT_SCHEMA_VERSION,
      type: 'user',
      uuid: i.uuid,
      parentUuid: i.parentUuid,
      sessionId: i.sessionId,
      timestamp: i.timestamp,
      message: { role: 'user', content: blocks.map((text) => ({ type: 'text', text })) },
      turnId: i.turnId,
      taskNotification: { taskId: i.taskId, runId: i.runId },
      ...(i.startsTurn ? {} : { isMeta: true }),
    };
    const { entry: stored, written } = await store.append(entry);
    return { uuid: stored.uuid, written };
  };
}
