/**
 * `--fork-session`: a new session whose chain starts with a copy of an existing one. Lines keep
 * their uuids (so the chain and every reference in it hold) and get the new session id; the
 * session's content blobs and tool-run markers are copied too. The old session is not changed.
 */
import type { TranscriptStore } from '../store/transcript-store';

/** Thrown when the session to fork has no lines. */
export class ForkSourceMissingError extends Error {
  override readonly name = 'ForkSourceMissingError';
  constructor(readonly sessionId: string) {
    super(`no conversation found with session id ${sessionId}`);
  }
}

/**
 * Copies session `fromId` into the new session `toId`: blobs and run markers first, the lines
 * last in one write (the new session exists only once it is whole).
 * @returns the number of lines copied
 * @throws ForkSourceMissingError when `fromId` has no lines
 */
export async function forkSession(store: TranscriptStore, fromId: string, toId: string): Promise<number> {
  const lines = await store.load(fromId);
  if (lines.length === 0) throw new ForkSourceMissingError(fromId);
  for (const info of await store.listContent(fromId)) {
    const body = await store.openContent(fromId, info.key);
    if (body) await store.putContent(toId, info.key, body);
  }
  for (const toolUseId of await store.listToolRuns(fromId)) await store.markToolRunStarted(toId, toolUseId);
  return store.appendMany(lines.map((l) => ({ ...l, sessionId: toId })));
}
