import { createHash } from 'node:crypto';
import type { ParsedRequest, RequestBlock } from './request';

/**
 * Token estimates and a prompt-cache simulation for the fake model.
 *
 * Tokens are estimated as `ceil(chars / 4)` of each prompt part's JSON. The prompt is the list of
 * parts tools → system blocks → message content blocks; a part carrying `cache_control` is a
 * breakpoint. Each request writes the cumulative prefix hash at each of its breakpoints (per
 * model); a later request reads the longest of its prefixes (up to its last breakpoint) that was
 * written before.
 */

/** Estimated tokens of a text: `ceil(chars / 4)`. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** One part of a prompt, in cache order. */
interface PromptPart {
  /** Estimated tokens of the part. */
  tokens: number;
  /** Serialized part without `cache_control` (what the prefix hash covers). */
  key: string;
  /** `cache_control` of the part, if it is a breakpoint. */
  cacheControl?: { ttl?: unknown };
}

function withoutCacheControl(obj: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...obj };
  delete rest['cache_control'];
  return rest;
}

function partOf(kind: string, obj: Record<string, unknown>): PromptPart {
  const body = JSON.stringify(withoutCacheControl(obj));
  const cc = obj['cache_control'];
  const part: PromptPart = { tokens: estimateTokens(body), key: `${kind}:${body}` };
  if (typeof cc === 'object' && cc !== null) part.cacheControl = cc as { ttl?: unknown };
  return part;
}

/**
 * A message block as the model sees it: a `tool_reference` inside a tool_result stands for the
 * referenced tool's whole definition (the API expands it where it stands).
 */
function expanded(
  block: RequestBlock,
  deferred: ReadonlyMap<string, Record<string, unknown>>,
): Record<string, unknown> {
  const content = block['content'];
  if (block.type !== 'tool_result' || !Array.isArray(content)) return block;
  return {
    ...block,
    content: (content as Array<Record<string, unknown>>).map((c) =>
      c['type'] === 'tool_reference'
        ? { type: 'tool_reference', tool: deferred.get(String(c['tool_name'])) ?? null }
        : c,
    ),
  };
}

/**
 * Splits a request into prompt parts in cache order (tools → system → messages). Tools sent with
 * `defer_loading: true` are not part of the prefix (as in the API's tool search: deferred tools
 * stay out of the system-prompt prefix, and a `tool_reference` block loads one where it stands),
 * so loading a tool does not change the cached prefix.
 */
export function promptParts(req: ParsedRequest): PromptPart[] {
  const parts: PromptPart[] = [];
  const deferred = new Map<string, Record<string, unknown>>();
  for (const tool of req.tools ?? []) {
    if (tool['defer_loading'] === true) deferred.set(String(tool['name']), tool);
    else parts.push(partOf('tool', tool));
  }
  if (typeof req.system === 'string') {
    parts.push(partOf('system', { type: 'text', text: req.system }));
  } else {
    for (const b of req.system ?? []) parts.push(partOf('system', b));
  }
  req.messages.forEach((m, i) => {
    const blocks: RequestBlock[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const b of blocks) parts.push(partOf(`${i}:${m.role}`, expanded(b, deferred)));
  });
  return parts;
}

/** Estimated prompt size of a request, in tokens (sum over its parts). */
export function estimatePromptTokens(req: ParsedRequest): number {
  return promptParts(req).reduce((sum, p) => sum + p.tokens, 0);
}

/** Number of `cache_control` breakpoints of a request (the real API allows at most 4). */
export function countBreakpoints(req: ParsedRequest): number {
  return promptParts(req).filter((p) => p.cacheControl !== undefined).length;
}

/** How one request's prompt splits into uncached, cache-read and cache-written tokens. */
export interface CacheAccounting {
  /** Estimated prompt size, in tokens (= input + cacheRead + cacheCreation). */
  promptTokens: number;
  /** Uncached input tokens (`usage.input_tokens`). */
  inputTokens: number;
  /** Tokens served from the simulated cache (`usage.cache_read_input_tokens`). */
  cacheReadTokens: number;
  /** Tokens written to the simulated cache (`usage.cache_creation_input_tokens`). */
  cacheCreationTokens: number;
  /** Of `cacheCreationTokens`: written with a 1-hour TTL (the last breakpoint's `ttl: "1h"`). */
  cacheCreation1hTokens: number;
}

/** Totals over all requests the simulator accounted, in tokens. */
export interface CacheStats {
  inputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /** `cacheReadTokens / (inputTokens + cacheReadTokens + cacheCreationTokens)`, 0 when empty. */
  readShare: number;
}

/** The simulated prompt cache of one fake model server (no TTL expiry, no minimum length). */
export class PromptCacheSimulator {
  private readonly written = new Set<string>();
  private totals = { inputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };

  /** Accounts one request that the model processes: reads, then writes its breakpoints. */
  account(req: ParsedRequest): CacheAccounting {
    const parts = promptParts(req);
    const hashes: string[] = [];
    const cumulative: number[] = [];
    let h = createHash('sha256').update(`model:${req.model}`).digest('hex');
    let total = 0;
    for (const p of parts) {
      h = createHash('sha256').update(h).update(p.key).digest('hex');
      total += p.tokens;
      hashes.push(h);
      cumulative.push(total);
    }
    let last = -1;
    parts.forEach((p, i) => {
      if (p.cacheControl !== undefined) last = i;
    });

    let read = 0;
    let creation = 0;
    let creation1h = 0;
    if (last >= 0) {
      for (let i = last; i >= 0; i--) {
        if (this.written.has(hashes[i] ?? '')) {
          read = cumulative[i] ?? 0;
          break;
        }
      }
      creation = Math.max(0, (cumulative[last] ?? 0) - read);
      if (parts[last]?.cacheControl?.ttl === '1h') creation1h = creation;
      parts.forEach((p, i) => {
        if (p.cacheControl !== undefined) this.written.add(hashes[i] ?? '');
      });
    }
    const result: CacheAccounting = {
      promptTokens: total,
      inputTokens: total - read - creation,
      cacheReadTokens: read,
      cacheCreationTokens: creation,
      cacheCreation1hTokens: creation1h,
    };
    this.totals.inputTokens += result.inputTokens;
    this.totals.cacheReadTokens += result.cacheReadTokens;
    this.totals.cacheCreationTokens += result.cacheCreationTokens;
    return result;
  }

  /** Totals so far. */
  stats(): CacheStats {
    const { inputTokens, cacheReadTokens, cacheCreationTokens } = this.totals;
    const all = inputTokens + cacheReadTokens + cacheCreationTokens;
    return {
      inputTokens,
      cacheReadTokens,
      cacheCreationTokens,
      readShare: all === 0 ? 0 : cacheReadTokens / all,
    };
  }

  /** Forgets every cached prefix and zeroes the totals. */
  reset(): void {
    this.written.clear();
    this.totals = { inputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };
  }
}
