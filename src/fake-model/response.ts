import { thinkingSignature } from './thinking-signatures';
import { randomBytes } from 'node:crypto';
import type { CacheAccounting } from './prompt-cache';
import { shortHash } from './request';
import type { Step } from './scenario';

/**
 * Turns a validated step into an assistant Message (Messages API shape): templates, tool-use ids,
 * stop reason and usage.
 */

/** Values available to `{{…}}` templates and default ids. */
export interface ResponseContext {
  conversationKey: string;
  /** Step index (number of assistant messages in the request). */
  step: number;
  /** Path from the system prompt's `Working directory:` line, if any. */
  cwd: string | undefined;
  /** `model` of the request (echoed unless the step sets `model`). */
  requestModel: string;
  /**
   * The request named the `thinking-token-count-2026-05-13` beta: the usage then reports the
   * thinking tokens among the output tokens (`output_tokens_details.thinking_tokens`).
   */
  thinkingTokenCount?: boolean;
}

/** Usage of a response, Messages API shape, in tokens. */
export interface ResponseUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  service_tier: 'standard';
  /** Server tool requests (`web_search_requests`, `web_fetch_requests`), when the step reports any. */
  server_tool_use?: Record<string, number>;
  /** Thinking tokens among `output_tokens` (`ceil(chars / 4)` of the thinking), with the thinking-token-count beta. */
  output_tokens_details?: { thinking_tokens: number };
}

/** A content block of a response. */
export type ResponseBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown; caller: { type: 'direct' } }
  | { type: 'server_tool_use'; id: string; name: string; input: unknown }
  /** A block sent whole (`block` in a step), e.g. a `web_search_tool_result`. */
  | { type: 'whole'; block: Record<string, unknown> };

/** An assistant Message as the API returns it. */
export interface ResponseMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  /** The blocks; a `whole` block stands for the block it carries (see {@link wireContent}). */
  content: ResponseBlock[];
  stop_reason: string;
  stop_sequence: string | null;
  usage: ResponseUsage;
}

/** A built response: the Message, plus the exact input JSON to stream for each tool_use block. */
export interface BuiltResponse {
  message: ResponseMessage;
  /** Block index → `partial_json` text to stream (for `raw_tool_use`, possibly invalid JSON). */
  toolJson: Map<number, string>;
}

/** Replaces `{{cwd}}` and `{{step}}` in a string; an unknown `cwd` leaves `{{cwd}}` as is. */
export function renderTemplate(text: string, ctx: ResponseContext): string {
  let out = text.replace(/\{\{\s*step\s*\}\}/g, String(ctx.step));
  if (ctx.cwd !== undefined) {
    const cwd = ctx.cwd;
    out = out.replace(/\{\{\s*cwd\s*\}\}/g, () => cwd);
  }
  return out;
}

function renderValue(value: unknown, ctx: ResponseContext): unknown {
  if (typeof value === 'string') return renderTemplate(value, ctx);
  if (Array.isArray(value)) return value.map((v) => renderValue(v, ctx));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderValue(v, ctx)] as const));
  }
  return value;
}

/** A deterministic `toolu_01…` id for block `index` of (conversation, step): the same on retries. */
export function defaultToolUseId(ctx: ResponseContext, index: number): string {
  return `toolu_01${shortHash(`${ctx.conversationKey}|${ctx.step}|${index}`, 22)}`;
}

/** The content of a response as the API sends it (a `whole` block is the block it carries). */
export function wireContent(content: readonly ResponseBlock[]): unknown[] {
  return content.map((b) => (b.type === 'whole' ? b.block : b));
}

/** A fresh `msg_01…` id. */
export function newMessageId(): string {
  return `msg_01fake${randomBytes(10).toString('hex')}`;
}

/**
 * Builds the Message for a step.
 *
 * Usage: uncached/cache-read/cache-write input from `cache` (the simulation), output tokens
 * estimated as `ceil(chars / 4)` of the generated text and tool JSON (at least 1); each field of
 * `step.usage` overrides its counterpart.
 */
export function buildResponse(step: Step, ctx: ResponseContext, cache: CacheAccounting): BuiltResponse {
  const content: ResponseBlock[] = [];
  const toolJson = new Map<number, string>();
  let outputChars = 0;
  let thinkingChars = 0;
  let hasToolUse = false;
  step.content.forEach((item, index) => {
    if (item.text !== undefined) {
      const text = renderTemplate(item.text, ctx);
      outputChars += text.length;
      content.push({ type: 'text', text });
    } else if (item.thinking !== undefined) {
      const thinking = renderTemplate(item.thinking, ctx);
      outputChars += thinking.length;
      thinkingChars += thinking.length;
      content.push({ type: 'thinking', thinking, signature: thinkingSignature(thinking) });
    } else if (item.redacted_thinking !== undefined) {
      content.push({ type: 'redacted_thinking', data: item.redacted_thinking });
    } else if (item.server_tool_use !== undefined) {
      const input = renderValue(item.server_tool_use.input, ctx);
      const json = JSON.stringify(input);
      outputChars += json.length;
      toolJson.set(index, json);
      content.push({
        type: 'server_tool_use',
        id: item.server_tool_use.id ?? `srvtoolu_01${shortHash(`${ctx.conversationKey}|${ctx.step}|${index}`, 22)}`,
        name: item.server_tool_use.name,
        input,
      });
    } else if (item.block !== undefined) {
      const block = renderValue(item.block, ctx) as Record<string, unknown>;
      outputChars += JSON.stringify(block).length;
      content.push({ type: 'whole', block });
    } else if (item.tool_use !== undefined) {
      const input = renderValue(item.tool_use.input, ctx);
      const json = JSON.stringify(input);
      outputChars += json.length;
      hasToolUse = true;
      toolJson.set(index, json);
      content.push({
        type: 'tool_use',
        id: item.tool_use.id ?? defaultToolUseId(ctx, index),
        name: item.tool_use.name,
        input,
        caller: { type: 'direct' },
      });
    } else if (item.raw_tool_use !== undefined) {
      const json = renderTemplate(item.raw_tool_use.partial_json, ctx);
      outputChars += json.length;
      hasToolUse = true;
      toolJson.set(index, json);
      let input: unknown;
      try {
        input = JSON.parse(json);
      } catch {
        input = json; // non-streaming: the invalid JSON text is returned as the input
      }
      content.push({
        type: 'tool_use',
        id: item.raw_tool_use.id ?? defaultToolUseId(ctx, index),
        name: item.raw_tool_use.name,
        input,
        caller: { type: 'direct' },
      });
    }
  });

  const o = step.usage ?? {};
  const creation = o.cache_creation_input_tokens ?? cache.cacheCreationTokens;
  const creation1h = Math.min(creation, cache.cacheCreation1hTokens);
  const usage: ResponseUsage = {
    input_tokens: o.input_tokens ?? cache.inputTokens,
    output_tokens: o.output_tokens ?? Math.max(1, Math.ceil(outputChars / 4)),
    cache_creation_input_tokens: creation,
    cache_read_input_tokens: o.cache_read_input_tokens ?? cache.cacheReadTokens,
    cache_creation: {
      ephemeral_5m_input_tokens: creation - creation1h,
      ephemeral_1h_input_tokens: creation1h,
    },
    service_tier: 'standard',
    ...(o.server_tool_use !== undefined ? { server_tool_use: o.server_tool_use } : {}),
    ...(ctx.thinkingTokenCount === true
      ? { output_tokens_details: { thinking_tokens: Math.ceil(thinkingChars / 4) } }
      : {}),
  };
  return {
    message: {
      id: newMessageId(),
      type: 'message',
      role: 'assistant',
      model: step.model ?? ctx.requestModel,
      content,
      stop_reason: step.stop_reason ?? (hasToolUse ? 'tool_use' : 'end_turn'),
      stop_sequence: step.stop_sequence ?? null,
      usage,
    },
    toolJson,
  };
}
