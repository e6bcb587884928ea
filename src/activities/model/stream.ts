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
  usage: Usage;
  /** tool_use ids whose `input_json_delta` text was not valid JSON, with that text. */
  invalidToolInputs: Record<string, string>;
}

interface BlockState {
  block: Record<string, unknown>;
  json: string;
}

/**
 * Assembles a streamed Messages API response. Tolerates `ping` and unknown event types; treats
 * `message_delta.usage` as cumulative. A tool input that is not valid JSON is kept as `{}` with
 * its raw text in `invalidToolInputs` (the tool run then reports the problem to the model).
 * @throws StreamInterruptedError when the stream ends before `message_stop`
 */
export async function assembleStream(
  events: AsyncIterable<Anthropic.RawMessageStreamEvent>,
  onEvent: (count: number) => void,
): Promise<AssembledMessage> {
  let msg: AssembledMessage | null = null;
  const blocks = new Map<number, BlockState>();
  let count = 0;
  let stopped = false;
  for await (const ev of events) {
    onEvent(++count);
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
        break;
      }
      case 'message_stop':
        stopped = true;
        break;
      default:
        break; // ping and event types this runner does not know
    }
  }
  if (!msg || !stopped) {
    throw new StreamInterruptedError(`the model's stream ended after ${count} events without message_stop`);
  }
  msg.content = msg.content.filter((b) => b !== undefined);
  return msg;
}
