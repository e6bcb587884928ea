/**
 * Snip as `callModel` applies it: groups the chain into rounds (an assistant line of tool calls
 * and its result lines), asks the pure decision (`src/engine/snip.ts`), and when it removes
 * something new writes one `system`/`snip_boundary` line before the call, naming the removed
 * lines. The line is on the chain, so every later request that holds it (a retry, the next call,
 * a resumed, forked or moved session) sends the same view; its uuid is derived from the call's,
 * so a retried call reuses it instead of deciding again. The removed lines stay in the store.
 */
import { createHash } from 'node:crypto';
import type { MicrocompactOptions, SnipOptions } from '../../common/compaction';
import { TRANSCRIPT_SCHEMA_VERSION, type TranscriptEntry } from '../../common/transcript';
import {
  CLEARED_TOOL_RESULT_TEXT,
  estimateTokens,
  MICROCOMPACT_DEFAULTS,
  planMicrocompact,
} from '../../engine/microcompact';
import { planSnip, type SnipRound } from '../../engine/snip';
import type { TranscriptStore } from '../../store/transcript-store';
import { uuidV5 } from '../../store/uuid';
import { recordedCollapses } from './collapse-log';
import { recordedClearings, toolResultChars, toolResultFacts } from './microcompact';

/** Subtype of the line that records snipped rounds. */
export const SNIP_BOUNDARY = 'snip_boundary';

/** Uuid of the snip line a call writes (derived from its assistant uuid). */
export function snipUuid(assistantUuid: string): string {
  return uuidV5(`${assistantUuid}/snip`);
}

type Block = Record<string, unknown>;

const digest = (v: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(v ?? null))
    .digest('hex');

/**
 * The chain's rounds, oldest first. A result microcompact cleared (`cleared`) counts the tokens of
 * its placeholder, which is all a removal of its round frees.
 */
export function snipRounds(chain: readonly TranscriptEntry[], cleared: ReadonlySet<string> = new Set()): SnipRound[] {
  const out: SnipRound[] = [];
  let open: { round: SnipRound; pending: Map<string, { tool: string; inputKey: string }> } | undefined;
  const close = (): void => {
    if (open && open.pending.size > 0) open.round.removable = false;
    open = undefined;
  };
  for (const e of chain) {
    const content = e.message?.content;
    if (e.type === 'assistant') {
      close();
      const blocks = Array.isArray(content) ? (content as Block[]) : [];
      const uses = blocks.filter((b) => b['type'] === 'tool_use');
      if (uses.length === 0) continue;
      const round: SnipRound = {
        uuids: [e.uuid],
        calls: [],
        removable: uses.length === blocks.length,
        tokens: estimateTokens(JSON.stringify(blocks).length),
      };
      out.push(round);
      open = {
        round,
        pending: new Map(
          uses.map((b) => [String(b['id']), { tool: String(b['name']), inputKey: JSON.stringify(b['input'] ?? {}) }]),
        ),
      };
      continue;
    }
    if (!open) continue;
    if (e.type !== 'user' || !Array.isArray(content)) {
      if (e.type === 'user' || e.type === 'attachment') close();
      continue;
    }
    const blocks = content as Block[];
    const ours = blocks.filter((b) => b['type'] === 'tool_result' && open!.pending.has(String(b['tool_use_id'])));
    if (ours.length === 0) {
      close();
      continue;
    }
    const { round, pending } = open;
    round.uuids.push(e.uuid);
    if (ours.length !== blocks.length || (e.attachments?.length ?? 0) > 0 || e.isMeta) round.removable = false;
    for (const b of ours) {
      const id = String(b['tool_use_id']);
      const use = pending.get(id)!;
      pending.delete(id);
      round.calls.push({ toolUseId: id, ...use, isError: b['is_error'] === true, resultKey: digest(b['content']) });
      round.tokens += estimateTokens(cleared.has(id) ? CLEARED_TOOL_RESULT_TEXT.length : toolResultChars(b['content']));
    }
    if (pending.size === 0) open = undefined;
  }
  close();
  return out;
}

/** The line uuids the chain's snip lines removed. */
export function recordedSnips(chain: readonly TranscriptEntry[]): Set<string> {
  const ids = new Set<string>();
  for (const e of chain) {
    if (e.type === 'system' && e.subtype === SNIP_BOUNDARY)
      for (const u of e.snipMetadata?.removedUuids ?? []) ids.add(u);
  }
  return ids;
}

/** What a call's summary says of its snip line. */
export interface SnipLine {
  uuid: string;
  snippedRounds: number;
  freedTokens: number;
}

/** What {@link withSnip} returns: the chain to send (removed lines left out) and the line. */
export interface SnipView {
  chain: TranscriptEntry[];
  /** Parent of the next line the call writes. */
  parentUuid: string;
  line?: SnipLine;
}

/**
 * Applies snip before a call: the recorded removals, plus new ones when the decision makes them
 * (written as a line after `parentUuid`, first writer wins). `microcompact` is the call's
 * microcompact setting: removals go with a microcompact batch (one prefix rewrite for both) when
 * the two together free its batch size; a call with a snip line then makes its microcompact batch
 * whatever it frees alone ({@link microcompactWithSnip}).
 */
export async function withSnip(
  store: TranscriptStore,
  call: { sessionId: string; assistantUuid: string; parentUuid: string; turnId?: string },
  chain: TranscriptEntry[],
  options: SnipOptions | undefined,
  microcompact: MicrocompactOptions | undefined,
): Promise<SnipView> {
  const view = (full: TranscriptEntry[]): TranscriptEntry[] => {
    const removed = recordedSnips(full);
    return removed.size === 0 ? full : full.filter((e) => !removed.has(e.uuid));
  };
  const uuid = snipUuid(call.assistantUuid);
  const earlier = await store.get(call.sessionId, uuid);
  if (earlier) return { chain: view([...chain, earlier]), parentUuid: uuid, line: summaryOf(earlier) };
  const current = view(chain);
  // Decided on the view the request sends (rounds collapse left out are not there), and a round
  // that carries a collapse's digest stays (removing it would lose the calls the digest names).
  const collapses = recordedCollapses(current);
  const sent = current.filter((e) => !collapses.collapsed.has(e.uuid));
  // One batch for both stages: the removals go with the clearings microcompact would make on the
  // snipped view, when together they free microcompact's batch (the caller then forces its batch).
  const rounds = snipRounds(sent, recordedClearings(sent)).map((r) =>
    r.uuids.some((u) => collapses.digests.has(u)) ? { ...r, removable: false } : r,
  );
  const candidates = planSnip(rounds, true, options);
  const removed = new Set(candidates.newlySnipped);
  const after = sent.filter((e) => !removed.has(e.uuid));
  const clearable = planMicrocompact(toolResultFacts(after), recordedClearings(after), {
    ...microcompact,
    minFreedTokens: 0,
  }).freedTokens;
  const batch = microcompact?.minFreedTokens ?? MICROCOMPACT_DEFAULTS.minFreedTokens;
  const rewriting = microcompact?.enabled !== false && candidates.freedTokens + clearable >= batch;
  const plan = planSnip(rounds, rewriting, options);
  if (plan.newlySnipped.length === 0) return { chain: current, parentUuid: call.parentUuid };
  const entry: TranscriptEntry = {
    v: TRANSCRIPT_SCHEMA_VERSION,
    type: 'system',
    subtype: SNIP_BOUNDARY,
    uuid,
    parentUuid: call.parentUuid,
    sessionId: call.sessionId,
    timestamp: new Date().toISOString(),
    snipMetadata: { removedUuids: plan.newlySnipped, rounds: plan.rounds, tokensFreed: plan.freedTokens },
    ...(call.turnId ? { turnId: call.turnId } : {}),
  };
  const stored = (await store.append(entry)).entry;
  return { chain: view([...chain, stored]), parentUuid: uuid, line: summaryOf(stored) };
}

function summaryOf(e: TranscriptEntry): SnipLine {
  const m = e.snipMetadata;
  return { uuid: e.uuid, snippedRounds: m?.rounds ?? 0, freedTokens: m?.tokensFreed ?? 0 };
}

/** The microcompact settings of a call after snip: a call that snipped makes its batch too (one rewrite). */
export function microcompactWithSnip(
  microcompact: MicrocompactOptions | undefined,
  view: SnipView,
): MicrocompactOptions | undefined {
  return view.line && microcompact?.enabled !== false ? { ...microcompact, minFreedTokens: 0 } : microcompact;
}
