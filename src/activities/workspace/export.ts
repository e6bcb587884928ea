/**
 * Rebuilding a session's working tree anywhere from the store (`agent-runner workspace export`):
 * the origin's base commit plus the last snapshot on the transcript.
 */
import * as fs from 'node:fs';
import {
  INITIAL_SNAPSHOT_KEY,
  ORIGIN_KEY,
  changesSnapshotRef,
  snapshotKey,
  type SnapshotRef,
} from '../../common/workspace';
import type { TranscriptStore } from '../../store/transcript-store';
import { materialize, type Origin } from './snapshot';
import { AgentRunnerError } from '../../common/errors';

/** Thrown when a session has no recorded workspace, or the target directory is not empty. */
export class WorkspaceExportError extends AgentRunnerError {
  override readonly name = 'WorkspaceExportError';
  readonly kind = 'usage';
}

/**
 * The last snapshot of a session: the newest stored one (store time) whose ref is known: a tool
 * call's (its result line carries the ref), the user's changes seen at the start of a turn
 * (`changes-<commit>`), or the uncommitted changes the session started with.
 */
export async function lastSnapshot(store: TranscriptStore, sessionId: string): Promise<SnapshotRef | null> {
  const known = new Map<string, SnapshotRef>();
  for (const line of await store.load(sessionId)) {
    const snap = ((line as Record<string, unknown>)['toolRun'] as { snapshot?: SnapshotRef } | undefined)?.snapshot;
    if (snap) known.set(snap.toolUseId, snap);
  }
  const initial = await store.getContent(sessionId, INITIAL_SNAPSHOT_KEY);
  if (initial) {
    const ref = JSON.parse(initial.toString('utf8')) as SnapshotRef;
    known.set(ref.toolUseId, ref);
  }
  const stored = await store.listContent(sessionId, snapshotKey(''));
  let best: { ref: SnapshotRef; at: string } | null = null;
  for (const info of stored) {
    const id = info.key.slice(snapshotKey('').length);
    const ref = known.get(id) ?? changesSnapshotRef(id, info.size);
    if (ref && (!best || info.createdAt >= best.at)) best = { ref, at: info.createdAt };
  }
  return best?.ref ?? null;
}

/**
 * Materializes the session's working tree at `dir` (created; it must not exist or be empty).
 * @returns the origin and the snapshot used.
 * @throws WorkspaceExportError when the session has no recorded workspace or `dir` is not empty.
 */
export async function exportWorkspace(
  store: TranscriptStore,
  sessionId: string,
  dir: string,
): Promise<{ origin: Origin; snapshot: SnapshotRef | null }> {
  const raw = await store.getContent(sessionId, ORIGIN_KEY);
  if (!raw) {
    throw new WorkspaceExportError(
      `session ${sessionId} has no recorded workspace (its working directory was not a git repository, or the session is unknown)`,
    );
  }
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) {
    throw new WorkspaceExportError(`--to ${dir} exists and is not empty: choose a new directory`);
  }
  const origin = JSON.parse(raw.toString('utf8')) as Origin;
  const snapshot = await lastSnapshot(store, sessionId);
  await materialize({ store, sessionId, origin, snapshot, dir });
  return { origin, snapshot };
}
