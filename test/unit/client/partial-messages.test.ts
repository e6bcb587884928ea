import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PartialMessages } from '../../../src/client/partial-messages';
import { FileStreamEventChannel } from '../../../src/store';

let dataDir: string;
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'partial-messages-'));
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const label = (m: { type: string; subtype?: string; event?: Record<string, unknown> }): string =>
  m.type === 'stream_event' ? `stream_event/${String(m.event?.['type'])}` : `${m.type}/${m.subtype ?? ''}`;

describe('partial messages', () => {
  test('partial: status before a call, its stream events as they come, the rest when its response is recorded', async () => {
    const ch = new FileStreamEventChannel(dataDir);
    const pm = new PartialMessages(ch, 'sess');
    const w = ch.open('sess', 'call-1');
    w.publish({ event: { type: 'message_start', message: { id: 'msg_1' } }, ttft_ms: 42 });
    // Wait until the batch is on disk (written within 20 ms; the machine may be busy).
    for (let i = 0; i < 200 && (await ch.read('sess', 'call-1', 0)).events.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const first = await pm.poll('call-1');
    expect(first.map(label)).toEqual(['system/status', 'stream_event/message_start']);
    expect(first[1]).toMatchObject({
      ttft_ms: 42,
      api_message_id: 'msg_1',
      session_id: 'sess',
      parent_tool_use_id: null,
    });
    w.publish({ event: { type: 'content_block_delta', delta: { type: 'text_delta', text: 'hi' } } });
    w.publish({ event: { type: 'message_stop' } });
    await w.close();
    const rest = await pm.drain('call-1');
    expect(rest.map(label)).toEqual(['stream_event/content_block_delta', 'stream_event/message_stop']);
    expect(rest[0]).toMatchObject({ api_message_id: 'msg_1' });
    expect(rest[0]).not.toHaveProperty('ttft_ms');
    await expect(pm.drain('call-1')).resolves.toEqual([]);
  });

  test('partial: a call announced ahead (before the replayed prompt) gets no second status', async () => {
    const ch = new FileStreamEventChannel(dataDir);
    const pm = new PartialMessages(ch, 'sess');
    expect(label(pm.announceNext())).toBe('system/status');
    const w = ch.open('sess', 'c1');
    await w.close();
    expect((await pm.drain('c1')).map(label)).toEqual([]);
    // The next call is announced when first seen.
    expect((await pm.drain('c2')).map(label)).toEqual(['system/status']);
  });

  test('partial: a response recorded without published events (an earlier attempt, no channel) does not wait', async () => {
    const pm = new PartialMessages(new FileStreamEventChannel(dataDir), 'sess');
    const t0 = Date.now();
    expect((await pm.drain('never-published')).map(label)).toEqual(['system/status']);
    expect(Date.now() - t0).toBeLessThan(500);
  });
});
