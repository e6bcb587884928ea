import type { BuiltResponse, ResponseMessage } from './response';

/**
 * Server-sent events of the Messages API streaming format.
 *
 * Order: `message_start` → `ping` → per block `content_block_start`, deltas, `content_block_stop`
 * (a `ping` between blocks) → `message_delta` (stop reason, cumulative usage) → `message_stop`.
 */

/** One SSE event; `data` is already serialized (so a fault can send text that is not JSON). */
export interface SseEvent {
  event: string;
  data: string;
}

/** Maximum characters per `text_delta` / `thinking_delta` of a short block. */
const TEXT_CHUNK_CHARS = 24;
/**
 * Most deltas of one block: a longer block gets longer chunks. A real response of `max_tokens`
 * (at most 128k tokens) has a few tens of thousands of deltas; a scripted answer or tool input of
 * megabytes in 24-character chunks would be hundreds of thousands of events, and the time goes
 * into sending and parsing them rather than into what a test checks.
 */
const MAX_DELTAS_PER_BLOCK = 1024;

/** An event whose data is the JSON of `payload`. */
export function sseEvent(event: string, payload: unknown): SseEvent {
  return { event, data: JSON.stringify(payload) };
}

/** The wire form of an event: `event: …\ndata: …\n\n`. */
export function formatSse(e: SseEvent): string {
  return `event: ${e.event}\ndata: ${e.data}\n\n`;
}

/** True when the UTF-16 unit at `i` is the low half of a surrogate pair (a cut there splits a code point). */
function insidePair(text: string, i: number): boolean {
  const lo = text.charCodeAt(i);
  const hi = text.charCodeAt(i - 1);
  return lo >= 0xdc00 && lo <= 0xdfff && hi >= 0xd800 && hi <= 0xdbff;
}

/**
 * Splits text into chunks of about `size` characters (UTF-16 units), never inside a code point
 * (no chunk for empty text). At most {@link MAX_DELTAS_PER_BLOCK} chunks: longer text gets
 * longer chunks.
 */
export function splitText(text: string, size = TEXT_CHUNK_CHARS): string[] {
  const step = Math.max(1, size, Math.ceil(text.length / MAX_DELTAS_PER_BLOCK));
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + step);
    if (end < text.length && insidePair(text, end)) end += 1;
    out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

/** Splits tool-input JSON into `partial_json` chunks: at least 2 when it has 2+ code points. */
export function splitJson(json: string): string[] {
  if (json.length === 0) return [];
  const pieces = Math.max(2, Math.ceil(json.length / 32));
  return splitText(json, Math.ceil(json.length / pieces));
}

/** A `ping` event. */
export function pingEvent(): SseEvent {
  return sseEvent('ping', { type: 'ping' });
}

/** An `error` event, as the API sends after a 200 stream has started. */
export function errorEvent(type: string, message: string, requestId: string): SseEvent {
  return sseEvent('error', { type: 'error', error: { type, message }, request_id: requestId });
}

/** A `content_block_delta` event whose data is cut-off JSON (for the `malformed_sse` fault). */
export function malformedEvent(): SseEvent {
  return { event: 'content_block_delta', data: '{"type": "content_block_delta", "index": 0, "delta": {"ty' };
}

/** All events of a complete streamed response. */
export function messageEvents(built: BuiltResponse): SseEvent[] {
  const { message, toolJson } = built;
  const events: SseEvent[] = [];
  events.push(
    sseEvent('message_start', {
      type: 'message_start',
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: startUsage(message.usage),
      },
    }),
  );
  events.push(pingEvent());
  message.content.forEach((block, index) => {
    if (index > 0) events.push(pingEvent());
    const delta = (d: unknown): void => {
      events.push(sseEvent('content_block_delta', { type: 'content_block_delta', index, delta: d }));
    };
    if (block.type === 'text') {
      events.push(
        sseEvent('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'text', text: '' },
        }),
      );
      for (const text of splitText(block.text)) delta({ type: 'text_delta', text });
    } else if (block.type === 'thinking') {
      events.push(
        sseEvent('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        }),
      );
      for (const thinking of splitText(block.thinking)) delta({ type: 'thinking_delta', thinking });
      delta({ type: 'signature_delta', signature: block.signature });
    } else if (block.type === 'redacted_thinking') {
      events.push(sseEvent('content_block_start', { type: 'content_block_start', index, content_block: block }));
    } else if (block.type === 'whole' && block.block['type'] === 'text') {
      // A text block with citations streams as the API streams it: an empty start, a
      // `citations_delta` per citation, then the text.
      const citations = Array.isArray(block.block['citations']) ? (block.block['citations'] as unknown[]) : [];
      events.push(
        sseEvent('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'text', text: '', ...(citations.length > 0 ? { citations: [] } : {}) },
        }),
      );
      for (const citation of citations) delta({ type: 'citations_delta', citation });
      for (const text of splitText(String(block.block['text'] ?? ''))) delta({ type: 'text_delta', text });
    } else if (block.type === 'whole') {
      events.push(sseEvent('content_block_start', { type: 'content_block_start', index, content_block: block.block }));
    } else {
      const start =
        block.type === 'server_tool_use'
          ? { type: 'server_tool_use', id: block.id, name: block.name, input: {} }
          : { type: 'tool_use', id: block.id, name: block.name, input: {}, caller: block.caller };
      events.push(sseEvent('content_block_start', { type: 'content_block_start', index, content_block: start }));
      for (const partial_json of splitJson(toolJson.get(index) ?? '{}')) {
        delta({ type: 'input_json_delta', partial_json });
      }
    }
    events.push(sseEvent('content_block_stop', { type: 'content_block_stop', index }));
  });
  const u = message.usage;
  events.push(
    sseEvent('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence },
      usage: {
        input_tokens: u.input_tokens,
        cache_creation_input_tokens: u.cache_creation_input_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens,
        output_tokens: u.output_tokens,
        ...(u.server_tool_use !== undefined ? { server_tool_use: u.server_tool_use } : {}),
        ...(u.output_tokens_details !== undefined ? { output_tokens_details: u.output_tokens_details } : {}),
      },
    }),
  );
  events.push(sseEvent('message_stop', { type: 'message_stop' }));
  return events;
}

/** `message_start`'s usage: the input counts, one output token so far, no thinking count yet. */
function startUsage(u: ResponseMessage['usage']): Record<string, unknown> {
  const { output_tokens_details: _details, ...rest } = u;
  void _details;
  return { ...rest, output_tokens: Math.min(1, u.output_tokens) };
}
