/**
 * Microcompact as `callModel` applies it: reads the facts of the chain's tool results, asks the
 * pure decision (`src/engine/microcompact.ts`), and when it clears something new writes one
 * `system`/`microcompact_boundary` line (Claude Code's subtype) before the call, naming the
 * cleared tool_use ids. The line is on the chain, so every later request that holds it (a retry,
 * the next call, a resumed, forked or moved session) sends the same view; its uuid is derived
 * from the call's, so a retried call reuses it instead of deciding again.
 */
import type { MicrocompactOptions } from '../../common/compaction';
import { TRANSCRIPT_SCHEMA_VERSION, type TranscriptEntry } from '../../common/transcript';
import { estimateTokens, planMicrocompact, type ToolResultFacts } from '../../engine/microcompact';
import type { TranscriptStore } from '../../store/transcript-store';
import { uuidV5 } from '../../store/uuid';

/** Subtype of the line that records a microcompact (Claude Code's). */
export const MICROCOMPACT_BOUNDARY = 'microcompact_boundary';

/** Uuid of the microcompact line a call writes (derived from its assistant uuid). */
export function microcompactUuid(assistantUuid: string): string {
  return uuidV5(`${assistantUuid}/microcompact`);
}

type Block = Record<string, unknown>;

/** Characters of a tool_result's content (text blocks; other blocks count 0). */
export function toolResultChars(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) return 0;
  return (content as Block[]).reduce((n, b) => n + (b['type'] === 'text' ? String(b['text'] ?? '').length : 0), 0);
}

/** The chain's tool results, oldest first, with the tool that made each and its size. */
export function toolResultFacts(chain: readonly TranscriptEntry[]): ToolResultFacts[] {
  const uses = new Map<string, { name: string; input: Record<string, unknown> }>();
  const out: ToolResultFacts[] = [];
  for (const e of chain) {
    const content = e.message?.content;
    if (!Array.isArray(content)) continue;
    for (const b of content as Block[]) {
      if (b['type'] === 'tool_use') {
        uses.set(String(b['id']), { name: String(b['name']), input: (b['input'] ?? {}) as Record<string, unknown> });
      } else if (b['type'] === 'tool_result') {
        const id = String(b['tool_use_id']);
        const use = uses.get(id);
        if (!use) continue;
        const { file_path: file, offset, limit } = use.input;
        const whole = use.name === 'Read' && typeof file === 'string' && offset === undefined && limit === undefined;
        out.push({
          toolUseId: id,
          tool: use.name,
          ...(whole ? { wholeFileRead: file } : {}),
          tokens: estimateTokens(toolResultChars(b['content'])),
        });
      }
    }
  }
  return out;
}

/**
 * Estimated tokens of the tool results after the chain's last assistant line: what this call
 * adds to the last call's context.
 */
export function tokensSinceLastCall(chain: readonly TranscriptEntry[]): number {
  let i = chain.length - 1;
  while (i >= 0 && chain[i]?.type !== 'assistant') i--;
  return toolResultFacts(chain.slice(Math.max(0, i))).reduce((n, r) => n + r.tokens, 0);
}

/** The tool_use ids the chain's microcompact lines cleared. */
export function recordedClearings(chain: readonly TranscriptEntry[]): Set<string> {
  const ids = new Set<string>();
  for (const e of chain) {
    if (e.type === 'system' && e.subtype === MICROCOMPACT_BOUNDARY) {
      for (const id of e.microcompactMetadata?.compactedToolIds ?? []) ids.add(id);
    }
  }
  return ids;
}

/** What {@link withMicrocompact} returns: the chain to send and how the request clears results. */
export interface MicrocompactView {
  chain: TranscriptEntry[];
  /** Parent of the next line the call writes. */
  parentUuid: string;
  /** tool_use ids whose results are sent as the placeholder. */
  cleared: ReadonlySet<string>;
  /** The line written (or found) for this call, when it cleared something new. */
  line?: MicrocompactLine;
}

/** What a call's summary says of its microcompact line. */
export interface MicrocompactLine {
  uuid: string;
  clearedToolResults: number;
  freedTokens: number;
}

/**
 * Applies microcompact before a call: the recorded clearings, plus a new batch when the decision
 * makes one (written as a line after `parentUuid`, first writer wins).
 */
export async function withMicrocompact(
  store: TranscriptStore,
  call: { sessionId: string; assistantUuid: string; parentUuid: string; turnId?: string },
  chain: TranscriptEntry[],
  options: MicrocompactOptions | undefined,
): Promise<MicrocompactView> {
  const uuid = microcompactUuid(call.assistantUuid);
  const earlier = await store.get(call.sessionId, uuid);
  if (earlier) {
    const full = [...chain, earlier];
    return { chain: full, parentUuid: uuid, cleared: recordedClearings(full), line: summaryOf(earlier) };
  }
  const plan = planMicrocompact(toolResultFacts(chain), recordedClearings(chain), options);
  if (plan.newlyCleared.length === 0) return { chain, parentUuid: call.parentUuid, cleared: plan.cleared };
  const preTokens = toolResultFacts(chain).reduce((n, r) => n + r.tokens, 0);
  const entry: TranscriptEntry = {
    v: TRANSCRIPT_SCHEMA_VERSION,
    type: 'system',
    subtype: MICROCOMPACT_BOUNDARY,
    uuid,
    parentUuid: call.parentUuid,
    sessionId: call.sessionId,
    timestamp: new Date().toISOString(),
    microcompactMetadata: {
      trigger: 'auto',
      preTokens,
      tokensSaved: plan.freedTokens,
      compactedToolIds: plan.newlyCleared,
    },
    ...(call.turnId ? { turnId: call.turnId } : {}),
  };
  const stored = (await store.append(entry)).entry;
  const full = [...chain, stored];
  return { chain: full, parentUuid: uuid, cleared: recordedClearings(full), line: summaryOf(stored) };
}

function summaryOf(e: TranscriptEntry): MicrocompactLine {
  const m = e.microcompactMetadata;
  return { uuid: e.uuid, clearedToolResults: m?.compactedToolIds.length ?? 0, freedTokens: m?.tokensSaved ?? 0 };
}
