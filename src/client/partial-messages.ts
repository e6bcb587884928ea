/**
 * `--include-partial-messages` on the client side: the `stream_event` messages of a model call,
 * tailed from the store's side channel while the call streams (never from workflow history), and
 * the `system`/`status` message before each request, as Claude Code sends them.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SDKMessage, SDKPartialAssistantMessage, SDKStatusMessage } from '../common/sdk-messages';
import type { StreamEventChannel } from '../store/stream-events';

/** How long the client waits for the rest of a call's events once its response is recorded (ms). */
export const DRAIN_WAIT_MS = 2000;

interface CallTail {
  offset: number;
  done: boolean;
  announced: boolean;
  apiMessageId?: string;
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
    return [...fresh, ...read.events.map((r) => this.message(tail, r))];
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
      out.push(...read.events.map((r) => this.message(tail, r)));
      if (tail.done || !read.exists || Date.now() > deadline) return out;
      await sleep(20);
    }
  }

  private message(tail: CallTail, record: unknown): SDKPartialAssistantMessage {
    const r = record as { event?: Record<string, unknown>; ttft_ms?: number };
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
      ...(tail.apiMessageId !== undefined ? { api_message_id: tail.apiMessageId } : {}),
    };
  }
}
