import type Anthropic from '@anthropic-ai/sdk';
import type { TranscriptEntry } from '../../common/transcript';

type MessageParam = Anthropic.MessageParam;
type Block = Anthropic.ContentBlockParam;

const CACHE = { type: 'ephemeral' } as const;

/** Assistant content fields the API does not accept back (kept in the store only). */
function toParamBlock(block: Record<string, unknown>): Block {
  if (block['type'] === 'tool_use') {
    const { id, name, input } = block as { id: string; name: string; input: unknown };
    return { type: 'tool_use', id, name, input: input ?? {} } as Block;
  }
  if (block['type'] === 'text') {
    return { type: 'text', text: String(block['text'] ?? '') };
  }
  const copy = { ...block };
  delete copy['citations'];
  return copy as unknown as Block;
}

function blocksOf(content: string | Array<Record<string, unknown>>): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map(toParamBlock);
}

/**
 * Turns a transcript chain (oldest first) into Messages API `messages`: consecutive lines of the
 * same role merge into one message (tool results of one batch become one user message, as the
 * API requires), tool_result blocks come first in a user message, and empty text blocks are
 * dropped. The last block of the last message gets a `cache_control` breakpoint so that the next
 * call of the session reads this whole prefix from the prompt cache.
 */
export function buildMessages(chain: readonly TranscriptEntry[]): MessageParam[] {
  const out: Array<{ role: 'user' | 'assistant'; content: Block[] }> = [];
  for (const entry of chain) {
    if (!entry.message || (entry.type !== 'user' && entry.type !== 'assistant')) continue;
    const role = entry.message.role;
    const blocks = blocksOf(entry.message.content as string | Array<Record<string, unknown>>).filter(
      (b) => !(b.type === 'text' && (b as { text: string }).text === ''),
    );
    if (blocks.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  repairToolResults(out);
  for (const m of out) {
    if (m.role === 'user') {
      const results = m.content.filter((b) => b.type === 'tool_result');
      if (results.length && results.length !== m.content.length) {
        m.content = [...results, ...m.content.filter((b) => b.type !== 'tool_result')];
      }
    }
  }
  const lastMsg = out[out.length - 1];
  const lastBlock = lastMsg?.content[lastMsg.content.length - 1];
  if (lastMsg && lastBlock) {
    lastMsg.content[lastMsg.content.length - 1] = { ...lastBlock, cache_control: CACHE } as Block;
  }
  return out;
}

/** System prompt as text blocks, the last one a cache breakpoint (caches tools + system). */
export function buildSystem(text: string): Anthropic.TextBlockParam[] {
  return [{ type: 'text', text, cache_control: CACHE }];
}

/** Text of the tool_result given for a tool_use that has none in the transcript. */
export const MISSING_RESULT_TEXT =
  'The run of this tool was interrupted before it reported a result; its outcome is unknown.';

/** Text left in a user message whose only blocks were tool_results without a tool_use. */
export const ORPHAN_RESULTS_TEXT = '[tool results of calls not in this conversation were left out]';

/**
 * Pairs tool calls and results the way the API requires, so that a transcript cut by a crash, an
 * old interrupt or an older version's fault never makes the API answer 400: every tool_use gets a
 * tool_result in the next user message (one is inserted if needed), and a tool_result whose
 * tool_use is not in the previous assistant message is left out.
 */
function repairToolResults(out: Array<{ role: 'user' | 'assistant'; content: Block[] }>): void {
  for (let i = 0; i < out.length; i++) {
    const m = out[i];
    if (!m) continue;
    if (m.role === 'user') {
      const prev = out[i - 1];
      const ids = new Set(
        prev?.role === 'assistant'
          ? prev.content.filter((b) => b.type === 'tool_use').map((b) => (b as { id: string }).id)
          : [],
      );
      const kept = m.content.filter(
        (b) => b.type !== 'tool_result' || ids.has((b as { tool_use_id: string }).tool_use_id),
      );
      if (kept.length !== m.content.length) {
        m.content = kept.length > 0 ? kept : [{ type: 'text', text: ORPHAN_RESULTS_TEXT }];
      }
      continue;
    }
    const ids = m.content.filter((b) => b.type === 'tool_use').map((b) => (b as { id: string }).id);
    if (ids.length === 0) continue;
    let next = out[i + 1];
    if (!next || next.role !== 'user') {
      next = { role: 'user', content: [] };
      out.splice(i + 1, 0, next);
    }
    const have = new Set(
      next.content.filter((b) => b.type === 'tool_result').map((b) => (b as { tool_use_id: string }).tool_use_id),
    );
    const missing = ids.filter((id) => !have.has(id));
    next.content.unshift(
      ...missing.map(
        (id) => ({ type: 'tool_result', tool_use_id: id, content: MISSING_RESULT_TEXT, is_error: true }) as Block,
      ),
    );
  }
}
