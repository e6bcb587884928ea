/**
 * The commit log of context collapse: the chain's `system`/`collapse_boundary` lines, read in
 * chain order (`model/collapse.ts` writes them; snip reads them so that it never removes a round
 * that carries a digest).
 */
import type { TranscriptEntry } from '../../common/transcript';
import { uuidV5 } from '../../store/uuid';

/** Subtype of the line that records collapses. */
export const COLLAPSE_BOUNDARY = 'collapse_boundary';

/** Uuid of the collapse line a call writes (derived from its assistant uuid). */
export function collapseUuid(assistantUuid: string): string {
  return uuidV5(`${assistantUuid}/collapse`);
}

/** What the chain's collapse lines recorded, replayed in chain order. */
export interface RecordedCollapses {
  /** Uuids of the lines left out of the view. */
  collapsed: Set<string>;
  /** Digest of each kept result line (the latest recorded for it): text sent and the calls it names. */
  digests: Map<string, { text: string; calls: string[] }>;
}

/** The collapses the chain's `collapse_boundary` lines recorded. */
export function recordedCollapses(chain: readonly TranscriptEntry[]): RecordedCollapses {
  const out: RecordedCollapses = { collapsed: new Set(), digests: new Map() };
  for (const e of chain) {
    if (e.type !== 'system' || e.subtype !== COLLAPSE_BOUNDARY || !e.collapseMetadata) continue;
    for (const u of e.collapseMetadata.collapsedUuids) out.collapsed.add(u);
    for (const d of e.collapseMetadata.digests) out.digests.set(d.targetUuid, { text: d.text, calls: d.calls });
  }
  return out;
}
