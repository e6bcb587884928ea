import type Anthropic from '@anthropic-ai/sdk';
import type { Usage } from '../../common/usage';
import { StreamInterruptedError } from './errors';

/** A complete assistant message assembled from SSE events. */
export interface AssembledMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Array<Record<string, unknown>>;
  stop_reason: string | null;
  stop_sequence: string | null;
  /**
   * Tokens, and the counts the API reports beside them when it does: `server_tool_use` (web
   * searches and fetches the API ran) and `output_tokens_details` (thinking tokens).
   */
  usage: Usage & { server_tool_use?: Record<string, number>; output_tokens_details?: Record<string, number> };
  /** tool_use ids whose `input_json_delta` text was not valid JSON, with that text. */
  invalidToolInputs: Record<string, string>;
}

interface BlockState {
  block: Record<string, unknown>;
  json: string;
}

/** Callbacks of {@link assembleStream}, in stream order. */
export interface StreamHooks {
  /** Every event, synchronously, with the count so far (from 1). */
  onEvent?(count: number): void;
  /** After `message_start`: the response has begun (its input tokens are billed from here). */
  onStart?(msg: Readonly<AssembledMessage>): Promise<void>;
  /**
   * After `message_delta`: every content block is closed and the stop reason and final usage are
   * known, so the message is complete (`message_stop` carries nothing more). Awaited before the
   * next event is read.
   */
  onComplete?(msg: Readonly<AssembledMessage>): Promise<void>;
}

/**
 * Assembles a streamed Messages API response. Tolerates `ping` and unknown event types; treats
 * `message_delta.usage` as cumulative. A tool input that is not valid JSON is kept as `{}` with
 * its raw text in `invalidToolInputs` (the tool run then reports the problem to the model).
 *
 * The message counts as complete at `message_delta`: once `onComplete` has resolved, a stream
 * that then breaks (cut, malformed, aborted) still yields the message.
 * @param hooks callbacks, or one function called on every event with the count so far.
 * @throws StreamInterruptedError when the stream ends before the message is complete; any error
 *   of the stream or of a hook before that point.
 */
export async function assembleStream(
  events: AsyncIterable<Anthropic.RawMessageStreamEvent>,
  hooks: StreamHooks | ((count: number) => void),
): Promise<AssembledMessage> {
  const h: StreamHooks = typeof hooks === 'function' ? { onEvent: hooks } : hooks;
  let msg: AssembledMessage | null = null;
  const blocks = new Map<number, BlockState>();
  let count = 0;
  let stopped = false;
  let complete: AssembledMessage | null = null;
  try {
    for await (const ev of events) {
      h.onEvent?.(++count);
      msg = apply(ev);
      if (ev.type === 'message_start' && msg) await h.onStart?.(msg);
      if (ev.type === 'message_delta' && msg && !complete) {
        complete = finished(msg);
        await h.onComplete?.(complete);
      }
      if (ev.type === 'message_stop') stopped = true;
    }
  } catch (err) {
    if (complete) return complete;
    throw err;
  }
  if (complete) return complete;
  if (!msg || !stopped) {
    throw new StreamInterruptedError(`the model's stream ended after ${count} events without message_stop`);
  }
  return finished(msg);

  function apply(ev: Anthropic.RawMessageStreamEvent): AssembledMessage | null {
    switch (ev.type) {
      case 'message_start': {
        const m = ev.message;
        msg = {
          id: m.id,
          type: 'message',
          role: 'assistant',
          model: m.model,
          content: [],
          stop_reason: m.stop_reason ?? null,
          stop_sequence: m.stop_sequence ?? null,
          usage: {
            input_tokens: m.usage.input_tokens ?? 0,
            output_tokens: m.usage.output_tokens ?? 0,
            cache_creation_input_tokens: m.usage.cache_creation_input_tokens ?? 0,
            cache_read_input_tokens: m.usage.cache_read_input_tokens ?? 0,
            ...usageCounts(m.usage),
          },
          invalidToolInputs: {},
        };
        break;
      }
      case 'content_block_start':
        blocks.set(ev.index, { block: { ...(ev.content_block as unknown as Record<string, unknown>) }, json: '' });
        break;
      case 'content_block_delta': {
        const st = blocks.get(ev.index);
        if (!st) break;
        const d = ev.delta as unknown as Record<string, unknown>;
        if (d['type'] === 'text_delta') st.block['text'] = String(st.block['text'] ?? '') + String(d['text'] ?? '');
        else if (d['type'] === 'input_json_delta') st.json += String(d['partial_json'] ?? '');
        else if (d['type'] === 'thinking_delta')
          st.block['thinking'] = String(st.block['thinking'] ?? '') + String(d['thinking'] ?? '');
        else if (d['type'] === 'signature_delta') st.block['signature'] = String(d['signature'] ?? '');
        break;
      }
      case 'content_block_stop': {
        const st = blocks.get(ev.index);
        if (!st || !msg) break;
        if (st.block['type'] === 'tool_use' || st.block['type'] === 'server_tool_use') {
          if (st.json.trim() !== '') {
            try {
              st.block['input'] = JSON.parse(st.json);
            } catch {
              st.block['input'] = {};
              msg.invalidToolInputs[String(st.block['id'])] = st.json;
            }
          } else if (st.block['input'] === undefined) st.block['input'] = {};
        }
        msg.content[ev.index] = st.block;
        break;
      }
      case 'message_delta': {
        if (!msg) break;
        msg.stop_reason = ev.delta.stop_reason ?? msg.stop_reason;
        msg.stop_sequence = ev.delta.stop_sequence ?? msg.stop_sequence;
        const u = ev.usage as unknown as Partial<Usage>;
        if (typeof u.output_tokens === 'number') msg.usage.output_tokens = u.output_tokens;
        if (typeof u.input_tokens === 'number') msg.usage.input_tokens = u.input_tokens;
        if (typeof u.cache_creation_input_tokens === 'number')
          msg.usage.cache_creation_input_tokens = u.cache_creation_input_tokens;
        if (typeof u.cache_read_input_tokens === 'number')
          msg.usage.cache_read_input_tokens = u.cache_read_input_tokens;
        Object.assign(msg.usage, usageCounts(ev.usage));
        break;
      }
      default:
        break; // message_stop, ping and event types this runner does not know
    }
    return msg;
  }
}

/** The `server_tool_use` and `output_tokens_details` counts of an API usage object (numbers only). */
export function usageCounts(
  usage: unknown,
): Pick<AssembledMessage['usage'], 'server_tool_use' | 'output_tokens_details'> {
  const u = (usage ?? {}) as Record<string, unknown>;
  const numbers = (v: unknown): Record<string, number> | undefined => {
    if (v === null || typeof v !== 'object') return undefined;
    const out = Object.fromEntries(Object.entries(v).filter(([, n]) => typeof n === 'number')) as Record<
      string,
      number
    >;
    return Object.keys(out).length > 0 ? out : undefined;
  };
  const server = numbers(u['server_tool_use']);
  const details = numbers(u['output_tokens_details']);
  return { ...(server ? { server_tool_use: server } : {}), ...(details ? { output_tokens_details: details } : {}) };
}

/** A copy of `msg` without the holes of blocks that never started. */
function finished(msg: AssembledMessage): AssembledMessage {
  return { ...msg, content: msg.content.filter((b) => b !== undefined), usage: { ...msg.usage } };
}
