/**
 * The contract every StreamEventChannel passes: one suite, run by `stream-events.test.ts` (files)
 * and `postgres/stream-events.test.ts` (PostgreSQL). Backend-specific behaviour is tested beside
 * each backend.
 */
import { InvalidTranscriptIdError, STREAM_EVENTS_TTL_MS, type StreamEventChannel } from '../../../src/store';

/** A backend under test: a fresh empty channel per test. */
export interface ChannelFixture {
  channel: StreamEventChannel;
  /** Another instance on the same data, as another process would open it. */
  other(): Promise<StreamEventChannel>;
  /** Makes every stored event of a call look `ms` older. */
  age(sessionId: string, callId: string, ms: number): Promise<void>;
  /** Whether anything of the call is still stored (bypassing the channel). */
  stored(sessionId: string, callId: string): Promise<boolean>;
  /** A channel on the same kind of backend whose writes fail (a broken directory, a missing table). */
  broken(): Promise<StreamEventChannel>;
  /** Releases everything and removes the data. */
  dispose(): Promise<void>;
}

/** Reads until `n` events are in (batches are written within 20 ms; the machine may be busy). */
async function readAtLeast(ch: StreamEventChannel, callId: string, n: number): Promise<unknown[]> {
  for (let i = 0; i < 200; i++) {
    const r = await ch.read('s', callId, 0);
    if (r.events.length >= n) return r.events;
    await new Promise((res) => setTimeout(res, 10));
  }
  throw new Error(`fewer than ${n} events published`);
}

export function describeStreamEventChannelContract(name: string, setup: () => Promise<ChannelFixture>): void {
  describe(`stream event channel (${name})`, () => {
    let f: ChannelFixture;
    beforeEach(async () => {
      f = await setup();
    });
    afterEach(async () => {
      await f.dispose();
    });

    test('channel: events are read in order from an offset, done after close', async () => {
      const ch = f.channel;
      await expect(ch.read('s', 'call-1', 0)).resolves.toEqual({ exists: false, events: [], next: 0, done: false });
      const w = ch.open('s', 'call-1');
      w.publish({ event: { type: 'message_start' } });
      w.publish({ event: { type: 'content_block_start' } });
      await readAtLeast(ch, 'call-1', 2);
      const first = await ch.read('s', 'call-1', 0);
      expect(first).toMatchObject({ exists: true, done: false });
      expect(first.events).toEqual([{ event: { type: 'message_start' } }, { event: { type: 'content_block_start' } }]);
      await expect(ch.read('s', 'call-1', first.next)).resolves.toEqual({
        exists: true,
        events: [],
        next: first.next,
        done: false,
      });
      w.publish({ event: { type: 'message_stop' } });
      await w.close();
      const rest = await ch.read('s', 'call-1', first.next);
      expect(rest).toMatchObject({ events: [{ event: { type: 'message_stop' } }], done: true });
      // Another process (a second channel on the same data) sees the same.
      expect((await (await f.other()).read('s', 'call-1', 0)).events).toHaveLength(3);
    });

    test('channel: many events published at once arrive whole and in order', async () => {
      const w = f.channel.open('s', 'c');
      const sent = Array.from({ length: 500 }, (_, i) => ({
        event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `${i} é\u0000"\n` } },
      }));
      for (const e of sent) w.publish(e);
      await w.close();
      const read = await f.channel.read('s', 'c', 0);
      expect(read).toMatchObject({ exists: true, done: true });
      expect(read.events).toEqual(sent);
    });

    test('channel: calls and sessions are kept apart', async () => {
      const a = f.channel.open('s', 'a');
      const b = f.channel.open('s', 'b');
      const other = f.channel.open('t', 'a');
      a.publish({ n: 'a' });
      b.publish({ n: 'b' });
      other.publish({ n: 't' });
      await Promise.all([a.close(), b.close(), other.close()]);
      expect((await f.channel.read('s', 'a', 0)).events).toEqual([{ n: 'a' }]);
      expect((await f.channel.read('s', 'b', 0)).events).toEqual([{ n: 'b' }]);
      expect((await f.channel.read('t', 'a', 0)).events).toEqual([{ n: 't' }]);
    });

    test('channel: a call published by two attempts reads as both, in order', async () => {
      const ch = f.channel;
      const a = ch.open('s', 'c');
      a.publish({ n: 1 });
      // the first attempt dies without close(); a retry streams again (after a retry delay)
      await readAtLeast(ch, 'c', 1);
      const b = ch.open('s', 'c');
      b.publish({ n: 2 });
      await b.close();
      const read = await ch.read('s', 'c', 0);
      expect(read.events).toEqual([{ n: 1 }, { n: 2 }]);
      expect(read.done).toBe(true);
    });

    test('channel: a stream closed without events exists and is done', async () => {
      await f.channel.open('s', 'empty').close();
      await expect(f.channel.read('s', 'empty', 0)).resolves.toMatchObject({ exists: true, events: [], done: true });
    });

    test('channel: opening a call removes the session calls older than the TTL, not newer ones', async () => {
      const ch = f.channel;
      await ch.open('s', 'old').close();
      await ch.open('s', 'young').close();
      await f.age('s', 'old', STREAM_EVENTS_TTL_MS + 60_000);
      await f.age('s', 'young', STREAM_EVENTS_TTL_MS - 60_000);
      const recent = ch.open('s', 'recent');
      await recent.close();
      expect(await f.stored('s', 'old')).toBe(false);
      expect(await f.stored('s', 'young')).toBe(true);
      expect((await ch.read('s', 'recent', 0)).done).toBe(true);
    });

    test('channel: a failing backend drops events without throwing', async () => {
      const w = (await f.broken()).open('s', 'c');
      w.publish({ n: 1 });
      await expect(w.close()).resolves.toBeUndefined();
    });

    test('channel: ids that could escape the directory are rejected', () => {
      expect(() => f.channel.open('../x', 'c')).toThrow(InvalidTranscriptIdError);
      expect(() => f.channel.open('s', '../../c')).toThrow(InvalidTranscriptIdError);
    });
  });
}
