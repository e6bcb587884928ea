/**
 * What the stores index a transcript line by, beside its uuid: the tool_use ids of its
 * tool_result blocks, and whether it carries context attachments. Both backends compute them
 * here, when a line is written (JSONL: in memory as lines are read; PostgreSQL: in index rows).
 */
import type { TranscriptEntry } from '../common/transcript';

/** The `tool_use_id`s of the line's `tool_result` blocks (usually one), in block order, without repeats. */
export function toolResultIdsOf(entry: TranscriptEntry): string[] {
  const content = entry.message?.content;
  if (!Array.isArray(content)) return [];
  const ids: string[] = [];
  for (const b of content) {
    const id = (b as { type?: unknown; tool_use_id?: unknown }).tool_use_id;
    if (b.type === 'tool_result' && typeof id === 'string' && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/**
 * True for a line that carries context for the model beside the conversation: `attachments`
 * (the session's memory files on its context line and on a compaction's summary, nested memory on
 * a tool result) or the type `attachment` (the context line, also when it found no memory file).
 */
export function carriesAttachments(entry: TranscriptEntry): boolean {
  return entry.attachments !== undefined || entry.type === 'attachment';
}
