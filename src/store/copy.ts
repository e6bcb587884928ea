/**
 * Copying sessions between stores (`agent-runner store copy`): lines in their stored order, run
 * markers and content blobs. Every write is first-writer-wins, so a copy can be re-run after an
 * interruption and copies only what is missing.
 */
import type { TranscriptStore } from './transcript-store';
import { AgentRunnerError } from '../common/errors';

/** Lines are copied in batches of this many. */
const BATCH = 500;

/** What was copied of one session (or of all of them). */
export interface CopyCounts {
  /** Lines written to the target. */
  lines: number;
  /** Lines the target held already. */
  linesPresent: number;
  /** Run markers written to the target. */
  markers: number;
  /** Content blobs written to the target. */
  blobs: number;
  /** Content blobs the target held already. */
  blobsPresent: number;
  /** Usage records of model-call attempts copied (billing; see `putModelAttemptUsage`). */
  attemptUsage: number;
  /** Bytes of the blobs written. */
  blobBytes: number;
}

/** Options of {@link copySessions}. */
export interface CopyOptions {
  /** Session ids to copy. @default every session of the source */
  sessions?: readonly string[];
  /** Called after each session. */
  onSession?: (sessionId: string, counts: CopyCounts) => void;
}

/** Thrown by {@link copySessions} when a session asked for is not in the source. */
export class UnknownSessionError extends AgentRunnerError {
  override readonly name = 'UnknownSessionError';
  readonly kind = 'usage';
}

const zero = (): CopyCounts => ({
  lines: 0,
  linesPresent: 0,
  markers: 0,
  blobs: 0,
  blobsPresent: 0,
  blobBytes: 0,
  attemptUsage: 0,
});

/**
 * Copies sessions from `from` to `to`, least recently modified first (so that the target lists
 * them in the same order). Blobs are streamed, never held whole.
 * @throws UnknownSessionError when a session of `opts.sessions` has no line in the source.
 */
export async function copySessions(
  from: TranscriptStore,
  to: TranscriptStore,
  opts: CopyOptions = {},
): Promise<CopyCounts & { sessions: number }> {
  let ids: string[];
  if (opts.sessions) {
    for (const id of opts.sessions) {
      if (!(await from.exists(id))) throw new UnknownSessionError(`session ${id} is not in the source store`);
    }
    ids = [...opts.sessions];
  } else {
    ids = (await from.listSessions()).reverse().map((s) => s.sessionId);
  }
  const total = { ...zero(), sessions: 0 };
  for (const id of ids) {
    const c = await copySession(from, to, id);
    for (const k of Object.keys(c) as Array<keyof CopyCounts>) total[k] += c[k];
    total.sessions += 1;
    opts.onSession?.(id, c);
  }
  return total;
}

async function copySession(from: TranscriptStore, to: TranscriptStore, sessionId: string): Promise<CopyCounts> {
  const c = zero();
  const lines = await from.load(sessionId);
  for (let i = 0; i < lines.length; i += BATCH) {
    const batch = lines.slice(i, i + BATCH);
    const wrote = (await to.appendMany(batch)).filter((r) => r.written).length;
    c.lines += wrote;
    c.linesPresent += batch.length - wrote;
  }
  for (const record of await from.modelAttemptUsage(sessionId)) {
    await to.putModelAttemptUsage(sessionId, record);
    c.attemptUsage += 1;
  }
  for (const toolUseId of await from.listToolRuns(sessionId)) {
    if (!(await to.markToolRunStarted(sessionId, toolUseId))) c.markers += 1;
  }
  for (const info of await from.listContent(sessionId)) {
    const body = await from.openContent(sessionId, info.key);
    if (!body) continue;
    const r = await to.putContent(sessionId, info.key, body, { maxBytes: Number.MAX_SAFE_INTEGER });
    if (r.created) {
      c.blobs += 1;
      c.blobBytes += r.size;
    } else {
      c.blobsPresent += 1;
    }
  }
  return c;
}
