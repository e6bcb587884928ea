/**
 * The tool-result budget as `callModel` applies it: groups the chain's tool results by message,
 * asks the pure decision (`src/engine/tool-result-budget.ts`), and when a fresh message is over
 * the budget persists the picked results (whole in the store under `tool-result/<tool_use_id>`
 * and as a file under the session's result directory, as large results are kept, `../large-result.ts`)
 * and writes one `system`/`content_replacement` line before the call with the text each is sent
 * as. The line is on the chain, so every later request that holds it (a retry, the next call, a
 * resumed, forked or moved session) sends the same bytes; its uuid is derived from the call's, so
 * a retried call reuses it instead of deciding again.
 */
import type { ToolResultBudgetOptions } from '../../common/compaction';
import { TRANSCRIPT_SCHEMA_VERSION, type TranscriptEntry } from '../../common/transcript';
import { estimateTokens } from '../../engine/microcompact';
import { planToolResultBudget, type BudgetedMessage } from '../../engine/tool-result-budget';
import type { TranscriptStore } from '../../store/transcript-store';
import { uuidV5 } from '../../store/uuid';
import { persistResultFile } from '../large-result';
import { toolResultChars } from './microcompact';

/** Subtype of the line that records replaced tool results (Claude Code's record is `content-replacement`). */
export const CONTENT_REPLACEMENT = 'content_replacement';

/** Uuid of the budget line a call writes (derived from its assistant uuid). */
export function toolResultBudgetUuid(assistantUuid: string): string {
  return uuidV5(`${assistantUuid}/tool-result-budget`);
}

type Block = Record<string, unknown>;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Block[]).map((b) => (b['type'] === 'text' ? String(b['text'] ?? '') : '')).join('');
}

function isFixed(content: unknown): boolean {
  if (typeof content === 'string') return content.startsWith('<persisted-output>');
  if (!Array.isArray(content)) return true;
  return (content as Block[]).some(
    (b) =>
      b['type'] === 'image' ||
      b['type'] === 'document' ||
      (b['type'] === 'text' && String(b['text'] ?? '').startsWith('<persisted-output>')),
  );
}

/** The chain's tool results by user message (the results after one assistant line), oldest first. */
export function budgetedMessages(chain: readonly TranscriptEntry[]): BudgetedMessage[] {
  const names = new Map<string, string>();
  const out: BudgetedMessage[] = [];
  let open: BudgetedMessage | undefined;
  for (const e of chain) {
    const content = e.message?.content;
    if (e.type === 'assistant') {
      if (open) open.sent = true;
      open = undefined;
      if (Array.isArray(content)) {
        for (const b of content as Block[]) if (b['type'] === 'tool_use') names.set(String(b['id']), String(b['name']));
      }
      continue;
    }
    if (e.type !== 'user' || !Array.isArray(content)) continue;
    for (const b of content as Block[]) {
      if (b['type'] !== 'tool_result') continue;
      const id = String(b['tool_use_id']);
      if (!open) {
        open = { results: [], sent: false };
        out.push(open);
      }
      open.results.push({
        toolUseId: id,
        tool: names.get(id) ?? '',
        chars: toolResultChars(b['content']),
        ...(isFixed(b['content']) ? { fixed: true } : {}),
      });
    }
  }
  return out;
}

/** The replacements the chain's budget lines recorded: tool_use id → the text sent instead. */
export function recordedReplacements(chain: readonly TranscriptEntry[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of chain) {
    if (e.type === 'system' && e.subtype === CONTENT_REPLACEMENT) {
      for (const r of e.contentReplacementMetadata?.replacements ?? []) out.set(r.toolUseId, r.replacement);
    }
  }
  return out;
}

/** What a call's summary says of its budget line. */
export interface ToolResultBudgetLine {
  uuid: string;
  replacedToolResults: number;
  freedTokens: number;
}

/** What {@link withToolResultBudget} returns: the chain to send and the replaced results. */
export interface ToolResultBudgetView {
  chain: TranscriptEntry[];
  /** Parent of the next line the call writes. */
  parentUuid: string;
  /** tool_use id → the text its result is sent as. */
  replaced: ReadonlyMap<string, string>;
  /** The line written (or found) for this call, when it replaced something new. */
  line?: ToolResultBudgetLine;
}

/**
 * Applies the budget before a call: the recorded replacements, plus new ones when a fresh
 * message is over the budget (persisted, then written as a line after `parentUuid`, first writer
 * wins).
 */
export async function withToolResultBudget(
  store: TranscriptStore,
  call: { sessionId: string; assistantUuid: string; parentUuid: string; turnId?: string },
  chain: TranscriptEntry[],
  options: ToolResultBudgetOptions | undefined,
  tmpDir?: string,
): Promise<ToolResultBudgetView> {
  const uuid = toolResultBudgetUuid(call.assistantUuid);
  const earlier = await store.get(call.sessionId, uuid);
  if (earlier) {
    const full = [...chain, earlier];
    return { chain: full, parentUuid: uuid, replaced: recordedReplacements(full), line: summaryOf(earlier) };
  }
  const recorded = recordedReplacements(chain);
  const plan = planToolResultBudget(budgetedMessages(chain), new Set(recorded.keys()), options);
  if (plan.newlyReplaced.length === 0) return { chain, parentUuid: call.parentUuid, replaced: recorded };
  const contents = new Map<string, unknown>();
  for (const e of chain) {
    if (e.type !== 'user' || !Array.isArray(e.message?.content)) continue;
    for (const b of e.message.content as Block[]) {
      if (b['type'] === 'tool_result') contents.set(String(b['tool_use_id']), b['content']);
    }
  }
  const replacements: Array<{ toolUseId: string; replacement: string; originalChars: number }> = [];
  for (const id of plan.newlyReplaced) {
    const text = textOf(contents.get(id));
    const { replacement } = await persistResultFile(store, call.sessionId, id, text, tmpDir);
    replacements.push({ toolUseId: id, replacement, originalChars: text.length });
  }
  const entry: TranscriptEntry = {
    v: TRANSCRIPT_SCHEMA_VERSION,
    type: 'system',
    subtype: CONTENT_REPLACEMENT,
    uuid,
    parentUuid: call.parentUuid,
    sessionId: call.sessionId,
    timestamp: new Date().toISOString(),
    contentReplacementMetadata: { replacements },
    ...(call.turnId ? { turnId: call.turnId } : {}),
  };
  const stored = (await store.append(entry)).entry;
  const full = [...chain, stored];
  return { chain: full, parentUuid: uuid, replaced: recordedReplacements(full), line: summaryOf(stored) };
}

/** Tokens a line freed: the replaced results' estimate less their references'. */
function summaryOf(e: TranscriptEntry): ToolResultBudgetLine {
  const rs = e.contentReplacementMetadata?.replacements ?? [];
  const freed = rs.reduce((n, r) => n + estimateTokens(r.originalChars) - estimateTokens(r.replacement.length), 0);
  return { uuid: e.uuid, replacedToolResults: rs.length, freedTokens: Math.max(0, freed) };
}
