/**
 * Context collapse as `callModel` applies it: replays the chain's `system`/`collapse_boundary`
 * lines (a commit log: the lines each left out, the digests appended to the result lines kept),
 * and, in a call whose microcompact made a new batch, asks the pure decision
 * (`src/engine/collapse.ts`) for new collapses and records them on one line before the call. The
 * line is on the chain, so every later request that holds it (a retry, the next call, a resumed,
 * forked or moved session) sends the same view; its uuid is derived from the call's, so a retried
 * call reuses it instead of deciding again. The collapsed lines stay in the store; the view copies
 * the lines it changes.
 */
import type { CollapseOptions } from '../../common/compaction';
import { TRANSCRIPT_SCHEMA_VERSION, type TranscriptEntry } from '../../common/transcript';
import { planCollapse, type CollapseRound } from '../../engine/collapse';
import { estimateTokens } from '../../engine/microcompact';
import type { TranscriptStore } from '../../store/transcript-store';
import { recordedShellCwd } from '../shell-cwd';
import { COLLAPSE_BOUNDARY, collapseUuid, recordedCollapses, type RecordedCollapses } from './collapse-log';
import { snipRounds } from './snip';

export { COLLAPSE_BOUNDARY, collapseUuid, recordedCollapses, type RecordedCollapses } from './collapse-log';

/**
 * The view the chain's collapse lines make: their lines left out, a digest appended as a text
 * block to each kept result line (a copy; the request sends tool_result blocks first).
 */
export function collapsedView(chain: readonly TranscriptEntry[]): TranscriptEntry[] {
  const { collapsed, digests } = recordedCollapses(chain);
  if (collapsed.size === 0 && digests.size === 0) return [...chain];
  return chain
    .filter((e) => !collapsed.has(e.uuid))
    .map((e) => {
      const digest = digests.get(e.uuid);
      if (!digest || !e.message) return e;
      const content = e.message.content;
      const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : [...(content as unknown[])];
      return { ...e, message: { ...e.message, content: [...blocks, { type: 'text', text: digest.text }] } };
    }) as TranscriptEntry[];
}

/**
 * The rounds of a view (collapsed lines left out, digests not appended), as the decision reads
 * them: snip's rounds, whether the request sends anything between a round and the previous one,
 * and the calls an earlier digest on the round names. A round that moves the shell is kept (the
 * request notes the move after it).
 */
export function collapseRounds(
  view: readonly TranscriptEntry[],
  cleared: ReadonlySet<string>,
  digests: RecordedCollapses['digests'] = new Map(),
): CollapseRound[] {
  const at = new Map(view.map((e, i) => [e.uuid, i]));
  const moves = new Set<string>();
  let cwd: string | undefined;
  for (const e of view) {
    const now = recordedShellCwd(e);
    if (now !== undefined && now !== (cwd ?? '')) moves.add(e.uuid);
    if (now !== undefined) cwd = now;
  }
  const rounds = snipRounds(view, cleared);
  return rounds.map((r, i) => {
    const prev = rounds[i - 1];
    const from = prev ? at.get(prev.uuids[prev.uuids.length - 1]!)! + 1 : 0;
    const between = prev ? view.slice(from, at.get(r.uuids[0]!)) : [];
    const adjacent =
      prev !== undefined && between.every((e) => e.type === 'system' && (e.attachments?.length ?? 0) === 0);
    const digest = digests.get(r.uuids[r.uuids.length - 1]!);
    return {
      ...r,
      removable: r.removable && !r.uuids.some((u) => moves.has(u)),
      adjacent,
      folded: digest?.calls ?? [],
      foldedTokens: digest ? estimateTokens(digest.text.length) : 0,
    };
  });
}

/** What a call's summary says of its collapse line. */
export interface CollapseLine {
  uuid: string;
  collapsedRounds: number;
  freedTokens: number;
}

/** What {@link withCollapse} returns: the chain to send (collapses applied) and the line. */
export interface CollapseView {
  chain: TranscriptEntry[];
  /** Parent of the next line the call writes. */
  parentUuid: string;
  line?: CollapseLine;
}

/**
 * Applies collapse before a call: the recorded collapses, plus new ones when `newBatch` (this
 * call's microcompact made a batch) and the decision makes them (written as a line after
 * `parentUuid`, first writer wins).
 * @param chain the chain after microcompact (with its line)
 * @param cleared tool_use ids whose results the request sends as the placeholder
 */
export async function withCollapse(
  store: TranscriptStore,
  call: { sessionId: string; assistantUuid: string; parentUuid: string; turnId?: string },
  chain: TranscriptEntry[],
  cleared: ReadonlySet<string>,
  options: CollapseOptions | undefined,
  newBatch: boolean,
): Promise<CollapseView> {
  const uuid = collapseUuid(call.assistantUuid);
  const earlier = await store.get(call.sessionId, uuid);
  if (earlier) return { chain: collapsedView([...chain, earlier]), parentUuid: uuid, line: summaryOf(earlier) };
  const none = (): CollapseView => ({ chain: collapsedView(chain), parentUuid: call.parentUuid });
  if (!newBatch || options?.enabled === false) return none();
  const recorded = recordedCollapses(chain);
  const view = chain.filter((e) => !recorded.collapsed.has(e.uuid));
  const plan = planCollapse(collapseRounds(view, cleared, recorded.digests), cleared, options);
  if (plan.collapses.length === 0) return none();
  const entry: TranscriptEntry = {
    v: TRANSCRIPT_SCHEMA_VERSION,
    type: 'system',
    subtype: COLLAPSE_BOUNDARY,
    uuid,
    parentUuid: call.parentUuid,
    sessionId: call.sessionId,
    timestamp: new Date().toISOString(),
    collapseMetadata: {
      collapsedUuids: plan.collapses.flatMap((c) => c.collapsedUuids),
      digests: plan.collapses.map((c) => ({ targetUuid: c.targetUuid, text: c.text, calls: c.calls })),
      rounds: plan.rounds,
      tokensFreed: plan.freedTokens,
    },
    ...(call.turnId ? { turnId: call.turnId } : {}),
  };
  const stored = (await store.append(entry)).entry;
  return { chain: collapsedView([...chain, stored]), parentUuid: uuid, line: summaryOf(stored) };
}

function summaryOf(e: TranscriptEntry): CollapseLine {
  const m = e.collapseMetadata;
  return { uuid: e.uuid, collapsedRounds: m?.rounds ?? 0, freedTokens: m?.tokensFreed ?? 0 };
}
