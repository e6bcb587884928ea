/**
 * Read-file state reminders (the seeds' read-file state, point 2): a file the model read that
 * has changed on disk since (the user edited it, a formatter ran, a command the model started
 * rewrote it) gets a `<system-reminder>` before the next model call, so that the model does not
 * work from a stale copy.
 *
 * What the model has read is taken from the context itself: the read-file state recorded on the
 * tool_result lines of the chain (Read, Edit, Write) and on earlier reminders. A reminder is one
 * `isMeta` user line between the previous line and the assistant line of the call; its uuid is
 * derived from the call's, so a retried call reuses it instead of writing another.
 */
import { promises as fsp } from 'node:fs';
import type { FileReadState } from '../../common/tools';
import type { TranscriptEntry } from '../../common/transcript';
import type { TranscriptStore } from '../../store/transcript-store';
import { uuidV5 } from '../../store/uuid';
import { computeFileState, statOrUndefined } from '../tools/file-state';
import { looksBinary } from '../tools/read';
import { TRANSCRIPT_SCHEMA_VERSION } from '../../common/version';
import { mapFormerPath } from '../../common/workspace';
import { isTaskOutputFile } from '../../common/shell-tasks';

/** Files whose current content one reminder shows at most (the others get a note to Read them). */
export const MAX_FILES_SHOWN = 10;
/** Characters of file content one reminder shows at most, all files together. */
export const MAX_SHOWN_CHARS = 40_000;
/** Files checked before each call at most (the most recently read ones). */
export const MAX_TRACKED_FILES = 200;

/** One file a reminder reports (`fileReminder.files` on the line). */
export interface RemindedFile {
  path: string;
  /** State now; null when the file is gone. */
  state: FileReadState | null;
  /** True when the reminder shows the whole current content (the model's view is then current). */
  shown: boolean;
}

/** What a reminder tells the turn: its line, and the files whose content it showed. */
export interface FileReminderSummary {
  uuid: string;
  /** Files the model now knows in full: the turn records them as read (Edit and Write may proceed). */
  files: Array<{ path: string; state: FileReadState }>;
}

/** Uuid of the reminder line written before the call that writes `assistantUuid`. */
export function reminderUuid(assistantUuid: string): string {
  return uuidV5(`${assistantUuid}/file-reminder`);
}

/** Files the context has read, with the state it last saw each in (most recent last). */
export function trackedFiles(chain: readonly TranscriptEntry[]): Map<string, FileReadState> {
  const files = new Map<string, FileReadState>();
  const set = (path: string, state: FileReadState | null): void => {
    files.delete(path);
    if (state && !isTaskOutputFile(path)) files.set(path, state);
  };
  for (const e of chain) {
    const run = (e as Record<string, unknown>)['toolRun'] as
      { fileState?: { path: string; state: FileReadState } } | undefined;
    if (run?.fileState) set(run.fileState.path, run.fileState.state);
    const reminder = (e as Record<string, unknown>)['fileReminder'] as { files?: RemindedFile[] } | undefined;
    for (const f of reminder?.files ?? []) set(f.path, f.state);
  }
  return files;
}

function numbered(text: string): string {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((l, i) => `${String(i + 1).padStart(6)}\t${l}`).join('\n');
}

function reminderText(path: string, body: string): string {
  return `<system-reminder>\n${body.replace('{path}', path)}\n</system-reminder>`;
}

const CHANGED =
  'Note: {path} was modified since you last read it, either by the user or by another process (a formatter, ' +
  'a command you ran). The change is intentional, so take it into account as you proceed (do not revert it ' +
  'unless the user asks you to).';

/** Where a moved workspace's former roots are now (see `CallModelInput.moved`). */
export interface WorkspaceMove {
  repoRoot: string;
  formerRoots: readonly string[];
}

/**
 * The files the chain has read, by the path they have now: after a workspace move, a path under
 * a former host's root is the same file under this host's root (the last state seen wins).
 */
function trackedHere(chain: readonly TranscriptEntry[], moved?: WorkspaceMove): Array<[string, FileReadState]> {
  const files = trackedFiles(chain);
  if (!moved || moved.formerRoots.length === 0) return [...files];
  const here = new Map<string, FileReadState>();
  for (const [p, state] of files) {
    const now = mapFormerPath(p, moved.formerRoots, moved.repoRoot);
    here.delete(now);
    here.set(now, state);
  }
  return [...here];
}

/**
 * Checks the files the chain has read against the disk and builds the reminder line for those
 * that changed, or returns undefined when none did. After a workspace move (`moved`), a file is
 * checked where it is now, not at the former host's path.
 */
export async function buildFileReminder(
  chain: readonly TranscriptEntry[],
  line: Pick<TranscriptEntry, 'uuid' | 'parentUuid' | 'sessionId'> & { turnId?: string },
  moved?: WorkspaceMove,
): Promise<TranscriptEntry | undefined> {
  const tracked = trackedHere(chain, moved).slice(-MAX_TRACKED_FILES);
  const files: RemindedFile[] = [];
  const texts: string[] = [];
  let shownChars = 0;
  for (const [path, seen] of tracked) {
    const st = await statOrUndefined(path).catch(() => undefined);
    if (!st || !st.isFile()) {
      files.push({ path, state: null, shown: false });
      texts.push(reminderText(path, 'Note: {path} was deleted (or is no longer a file) since you last read it.'));
      continue;
    }
    if (st.mtimeMs === seen.mtimeMs && st.size === seen.size) continue;
    const now = await computeFileState(path).catch(() => undefined);
    if (!now || now.sha256 === seen.sha256) continue;
    let content: Buffer | undefined;
    if (files.filter((f) => f.shown).length < MAX_FILES_SHOWN && shownChars + now.size <= MAX_SHOWN_CHARS) {
      content = await fsp.readFile(path).catch(() => undefined);
    }
    if (content && !looksBinary(content) && content.length === now.size) {
      const text = content.toString('utf8');
      shownChars += text.length;
      files.push({ path, state: now, shown: true });
      texts.push(reminderText(path, `${CHANGED} Its current content, with line numbers:\n${numbered(text)}`));
    } else {
      files.push({ path, state: now, shown: false });
      texts.push(
        reminderText(path, `${CHANGED} It is too large (or not text) to show here: Read it again before you edit it.`),
      );
    }
  }
  if (files.length === 0) return undefined;
  return {
    v: TRANSCRIPT_SCHEMA_VERSION,
    type: 'user',
    uuid: line.uuid,
    parentUuid: line.parentUuid,
    sessionId: line.sessionId,
    timestamp: new Date().toISOString(),
    message: { role: 'user', content: texts.map((text) => ({ type: 'text', text })) },
    isMeta: true,
    fileReminder: { files },
    ...(line.turnId ? { turnId: line.turnId } : {}),
  };
}

/** What the turn learns from a reminder line. */
export function reminderSummary(e: TranscriptEntry): FileReminderSummary {
  const files = (
    ((e as Record<string, unknown>)['fileReminder'] as { files?: RemindedFile[] } | undefined)?.files ?? []
  )
    .filter((f): f is RemindedFile & { state: FileReadState } => f.shown && f.state !== null)
    .map((f) => ({ path: f.path, state: f.state }));
  return { uuid: e.uuid, files };
}

/**
 * Before a model call: the reminder for files changed since the model read them, written to the
 * store (or the one an earlier attempt of the same call wrote), and the chain the call sends.
 * `checkFiles: false` (the call runs on another host than the workspace's) checks nothing: a file
 * missing here is not missing there.
 * @returns the chain to send and the parent of the assistant line (the reminder when there is one)
 */
export async function withFileReminder(
  store: TranscriptStore,
  call: { sessionId: string; assistantUuid: string; parentUuid: string; turnId?: string; moved?: WorkspaceMove },
  chain: TranscriptEntry[],
  opts: { checkFiles?: boolean } = {},
): Promise<{ chain: TranscriptEntry[]; parentUuid: string; reminder?: FileReminderSummary }> {
  const uuid = reminderUuid(call.assistantUuid);
  const earlier = await store.get(call.sessionId, uuid);
  // Off the workspace's host the files are not here: only a reminder an earlier attempt wrote.
  if (!earlier && opts.checkFiles === false) return { chain, parentUuid: call.parentUuid };
  const entry =
    earlier ??
    (await buildFileReminder(
      chain,
      {
        uuid,
        parentUuid: call.parentUuid,
        sessionId: call.sessionId,
        ...(call.turnId ? { turnId: call.turnId } : {}),
      },
      call.moved,
    ));
  if (!entry) return { chain, parentUuid: call.parentUuid };
  if (!earlier) await store.append(entry);
  return { chain: [...chain, entry], parentUuid: uuid, reminder: reminderSummary(entry) };
}

/** For a call replayed from the store: the reminder its assistant line follows, if any. */
export async function replayedReminder(
  store: TranscriptStore,
  call: { sessionId: string; parentUuid: string },
  assistant: TranscriptEntry,
): Promise<{ fileReminder?: FileReminderSummary }> {
  if (assistant.parentUuid === null || assistant.parentUuid === call.parentUuid) return {};
  const line = await store.get(call.sessionId, assistant.parentUuid);
  return line && (line as Record<string, unknown>)['fileReminder'] ? { fileReminder: reminderSummary(line) } : {};
}
