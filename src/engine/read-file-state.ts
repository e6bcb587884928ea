import type { FileReadState } from '../common/tools';

/** Most files a session remembers as read; older entries are dropped (the model re-reads them). */
export const MAX_READ_FILE_STATE = 200;

/**
 * Keeps the most recently recorded `max` entries (insertion order: a re-recorded path moves to
 * the end when its caller deletes it first). Bounds what travels through workflow history.
 */
export function capReadFileState(
  state: Readonly<Record<string, FileReadState>>,
  max = MAX_READ_FILE_STATE,
): Record<string, FileReadState> {
  const entries = Object.entries(state);
  if (entries.length <= max) return { ...state };
  return Object.fromEntries(entries.slice(entries.length - max));
}
