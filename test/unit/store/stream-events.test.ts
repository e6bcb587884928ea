import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileStreamEventChannel, InvalidTranscriptIdError, STREAM_EVENTS_TTL_MS } from '../../../src/store';

let dataDir: string;

/** Reads until `n` events are in (batches are written within 20 ms; the machine may be busy). */
async function readAtLeast(ch: FileStreamEventChannel, callId: string, n: number): Promise<unknown[]> {
  for (let i = 0; i < 200; i++) {
    const r = await ch.read('s', callId, 0);
    if (r.events.length >= n) return r.events;
    await new Promise((res) => setTimeout(res, 10));
  }
  throw new Error(`fewer than ${n} events published`);
}
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stream-events-'));
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('stream event channel', () => {
  test('channel: events are read in order from an offset, done after close', async () => {
    const ch = new FileStreamEventChannel(dataDir);
    await expect(ch.read('s', 'call-1', 0)).resolves.toEqual({ exists: false, events: [], next: 0, done: false });
    const w = ch.open('s', 'call-1');
    w.publish({ event: { type: 'message_start' } });
    w.publish({ event: { type: 'content_block_start' } });
    await readAtLeast(ch, 'call-1', 2);
    const first = await ch.read('s', 'call-1', 0);
    expect(first).toMatchObject({ exists: true, done: false });
    expect(first.events).toEqual([{ event: { type: 'message_start' } }, { event: { type: 'content_block_start' } }]);
    w.publish({ event: { type: 'message_stop' } });
    await w.close();
    const rest = await ch.read('s', 'call-1', first.next);
    expect(rest).toMatchObject({ events: [{ event: { type: 'message_stop' } }], done: true });
    // Another process (a second channel on the same data dir) sees the same.
    expect((await new FileStreamEventChannel(dataDir).read('s', 'call-1', 0)).events).toHaveLength(3);
  });

  test('channel: a call published by two attempts reads as both, in order', async () => {
    const ch = new FileStreamEventChannel(dataDir);
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

  test('channel: opening a call removes the session files older than the TTL', async () => {
    const ch = new FileStreamEventChannel(dataDir);
    const old = ch.open('s', 'old');
    await old.close();
    const file = path.join(dataDir, 'stream-events', 's', 'old.jsonl');
    const past = (Date.now() - STREAM_EVENTS_TTL_MS - 60_000) / 1000;
    fs.utimesSync(file, past, past);
    const recent = ch.open('s', 'recent');
    await recent.close();
    expect(fs.existsSync(file)).toBe(false);
    expect((await ch.read('s', 'recent', 0)).done).toBe(true);
  });

  test('channel: a failing directory drops events without throwing', async () => {
    fs.writeFileSync(path.join(dataDir, 'stream-events'), 'not a directory');
    const w = new FileStreamEventChannel(dataDir).open('s', 'c');
    w.publish({ n: 1 });
    await expect(w.close()).resolves.toBeUndefined();
  });

  test('channel: ids that could escape the directory are rejected', () => {
    const ch = new FileStreamEventChannel(dataDir);
    expect(() => ch.open('../x', 'c')).toThrow(InvalidTranscriptIdError);
    expect(() => ch.open('s', '../../c')).toThrow(InvalidTranscriptIdError);
  });
});
