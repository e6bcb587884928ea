/**
 * `--include-partial-messages` on the client side: the `stream_event` messages of a model call,
 * tailed from the store's side channel while the call streams (never from workflow history), and
 * the `system`/`status` message before each request, as Claude Code sends them.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  SDKMessage,
  SDKPartialAssistantMessage,
  SDKStatusMessage,
  SDKThinkingTokensMessage,
} from '../common/sdk-messages';
import type { StreamEventChannel } from '../store/stream-events';

/** How long the client waits for the rest of a call's events once its response is recorded (ms). */
export const DRAIN_WAIT_MS = 2000;

interface CallTail {
  offset: number;
  done: boolean;
  announced: boolean;
  apiMessageId?: string;
  /** Characters of thinking so far, by content block index (for the live token estimate). */
  thinkingChars?: Map<number, number>;
}

/** The partial messages of one session's turns. */
export class PartialMessages {
  private readonly calls = new Map<string, CallTail>();
  /** The next call is already announced (its status was sent before the replayed prompt). */
  private nextAnnounced = false;

  constructor(
    private readonly channel: StreamEventChannel,
    private readonly sessionId: string,
  ) {}

  /** The `system`/`status` message of a request. */
  status(): SDKStatusMessage {
    return { type: 'system', subtype: 'status', status: 'requesting', uuid: randomUUID(), session_id: this.sessionId };
  }

  /** Sends the status of the turn's first request now (Claude Code sends it before the replayed prompt). */
  announceNext(): SDKStatusMessage {
    this.nextAnnounced = true;
    return this.status();
  }

  private tail(callId: string): { tail: CallTail; fresh: SDKMessage[] } {
    let tail = this.calls.get(callId);
    const fresh: SDKMessage[] = [];
    if (!tail) {
      tail = { offset: 0, done: false, announced: this.nextAnnounced };
      this.nextAnnounced = false;
      this.calls.set(callId, tail);
    }
    if (!tail.announced) {
      tail.announced = true;
      fresh.push(this.status());
    }
    return { tail, fresh };
  }

  /** Messages of a call in flight since the last poll: its status first, then new stream events. */
  async poll(callId: string): Promise<SDKMessage[]> {
    const { tail, fresh } = this.tail(callId);
    if (tail.done) return fresh;
    const read = await this.channel.read(this.sessionId, callId, tail.offset);
    tail.offset = read.next;
    tail.done = read.done;
    return [...fresh, ...read.events.flatMap((r) => this.messages(tail, r))];
  }

  /**
   * The rest of a call's events, before its recorded response is sent: waits up to
   * {@link DRAIN_WAIT_MS} for the end of the stream when events were published; nothing when none
   * were (a response recorded by an earlier attempt, or a store without a channel).
   */
  async drain(callId: string): Promise<SDKMessage[]> {
    const out: SDKMessage[] = [];
    const deadline = Date.now() + DRAIN_WAIT_MS;
    for (;;) {
      const { tail, fresh } = this.tail(callId);
      out.push(...fresh);
      if (tail.done) return out;
      const read = await this.channel.read(this.sessionId, callId, tail.offset);
      tail.offset = read.next;
      tail.done = read.done;
      out.push(...read.events.flatMap((r) => this.messages(tail, r)));
      if (tail.done || !read.exists || Date.now() > deadline) return out;
      await sleep(20);
    }
  }

  /** The stream event of a record, after a `system`/`thinking_tokens` estimate when it carries thinking. */
  private messages(tail: CallTail, record: unknown): SDKMessage[] {
    const event = (record as { event?: Record<string, unknown> }).event ?? {};
    const delta = event['delta'] as { type?: unknown; thinking?: unknown } | undefined;
    const estimate =
      event['type'] === 'content_block_delta' && delta?.type === 'thinking_delta' && typeof delta.thinking === 'string'
        ? this.thinkingEstimate(tail, Number(event['index'] ?? 0), delta.thinking.length)
        : undefined;
    return estimate ? [estimate, this.message(tail, record)] : [this.message(tail, record)];
  }

  /**
   * Claude Code's live estimate of a thinking block's tokens (`ceil(characters / 4)` so far), sent
   * when it grows: progress for a spinner, not the billed count (that is in the result's usage).
   */
  private thinkingEstimate(tail: CallTail, index: number, chars: number): SDKMessage | undefined {
    tail.thinkingChars ??= new Map();
    const before = tail.thinkingChars.get(index) ?? 0;
    tail.thinkingChars.set(index, before + chars);
    const was = Math.ceil(before / 4);
    const now = Math.ceil((before + chars) / 4);
    if (now <= was) return undefined;
    const m: SDKThinkingTokensMessage = {
      type: 'system',
      subtype: 'thinking_tokens',
      estimated_tokens: now,
      estimated_tokens_delta: now - was,
      uuid: randomUUID(),
      session_id: this.sessionId,
    };
    return m;
  }

  private message(tail: CallTail, record: unknown): SDKPartialAssistantMessage {
    const r = record as { event?: Record<string, unknown>; ttft_ms?: number; thinking_display?: string };
    const event = r.event ?? {};
    if (event['type'] === 'message_start') {
      const id = (event['message'] as { id?: unknown } | undefined)?.id;
      if (typeof id === 'string') tail.apiMessageId = id;
    }
    return {
      type: 'stream_event',
      event,
      session_id: this.sessionId,
      parent_tool_use_id: null,
      uuid: randomUUID(),
      ...(r.ttft_ms !== undefined ? { ttft_ms: r.ttft_ms } : {}),
      ...(r.thinking_display !== undefined ? { thinking_display: r.thinking_display } : {}),
      ...(tail.apiMessageId !== undefined ? { api_message_id: tail.apiMessageId } : {}),
    };
  }
}
