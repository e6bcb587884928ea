import type { StoredSessionSummary } from '../common/session';
import type { TranscriptEntry } from '../common/transcript';
import type { Usage } from '../common/usage';
import { addUsage, emptyUsage } from '../common/usage';
import type { ModelPrice } from '../engine/cost';
import { addModelUsage, costOfUsage } from '../engine/cost';
import type { TranscriptStore } from '../store/transcript-store';

/** Creates `recordTranscript`: upserts lines by uuid, durable before it returns. */
export function createRecordTranscript(store: TranscriptStore): (entries: TranscriptEntry[]) => Promise<number> {
  return async (entries) => store.appendMany(entries);
}

/** True for a line a person typed (not a tool result, not a runner nudge). */
export function isPromptLine(e: TranscriptEntry): boolean {
  if (e.type !== 'user' || e.isMeta || !e.message) return false;
  const c = e.message.content;
  return typeof c === 'string' || !c.some((b) => b.type === 'tool_result');
}

/**
 * The leaf of a stored conversation: the last line (file order) that no other line names as
 * its parent and whose chain is whole. Parallel tool results may be written out of order, so
 * file order alone is wrong; and lines written ahead of the line they hang from (a compaction cut
 * short before its boundary was written) are not a conversation to continue.
 */
export function findLeaf(entries: readonly TranscriptEntry[]): string | null {
  const byUuid = new Map(entries.map((e) => [e.uuid, e]));
  const parents = new Set(entries.map((e) => e.parentUuid).filter((p): p is string => p !== null));
  const whole = (e: TranscriptEntry): boolean => {
    const seen = new Set<string>();
    for (let cur: TranscriptEntry | undefined = e; cur; cur = byUuid.get(cur.parentUuid ?? '')) {
      if (cur.parentUuid === null || seen.has(cur.uuid)) return cur.parentUuid === null;
      seen.add(cur.uuid);
      if (cur.type === 'system' && cur.subtype === 'compact_boundary') return true;
    }
    return false;
  };
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e && !parents.has(e.uuid) && whole(e)) return e.uuid;
  }
  return null;
}

/** Creates `loadSession`: totals and leaf of a stored session, for a new or resumed session workflow. */
export function createLoadSession(
  store: TranscriptStore,
  priceFor: (model: string) => ModelPrice | null,
): (sessionId: string) => Promise<StoredSessionSummary> {
  return async (sessionId) => {
    const entries = await store.load(sessionId);
    let usage = emptyUsage();
    let modelUsage: StoredSessionSummary['modelUsage'] = {};
    for (const e of entries) {
      if (e.type !== 'assistant' || !e.message) continue;
      const m = e.message as Record<string, unknown>;
      const u = m['usage'] as Usage | undefined;
      if (!u) continue;
      const model = String(m['model'] ?? 'unknown');
      usage = addUsage(usage, u);
      modelUsage = addModelUsage(modelUsage, model, u, costOfUsage(u, priceFor(model)), {
        contextWindow: 200_000,
        maxOutputTokens: Number((e as Record<string, unknown>)['maxTokens'] ?? 0) || 0,
      });
    }
    return {
      exists: entries.length > 0,
      leafUuid: findLeaf(entries),
      usage,
      modelUsage,
      turnCount: entries.filter(isPromptLine).length,
    };
  };
}
