import { LineBatcher } from '../../../../src/activities/monitor/batcher';
import { monitorTimeoutMs, shortDuration } from '../../../../src/common/monitor';
import { monitorEndSummary, monitorExpiredText, monitorStartedText } from '../../../../src/activities/monitor/texts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('LineBatcher (a monitor stdout lines as events)', () => {
  test('lines within the window are one event; a later line is the next; partial lines wait for their newline', async () => {
    const events: string[] = [];
    const b = new LineBatcher((t) => events.push(t), 50);
    b.push('one\ntw');
    b.push(Buffer.from('o\r\n\n'));
    expect(events).toEqual([]);
    await sleep(80);
    expect(events).toEqual(['one\ntwo']);
    b.push('three\n');
    await sleep(80);
    expect(events).toEqual(['one\ntwo', 'three']);
  });

  test('the end sends what is pending at once, the unterminated last line included; nothing after', async () => {
    const events: string[] = [];
    const b = new LineBatcher((t) => events.push(t), 10_000);
    b.push('a\nb');
    b.end();
    expect(events).toEqual(['a\nb']);
    b.end();
    expect(events).toEqual(['a\nb']);
  });

  test('a multi-byte character split across chunks is kept whole', () => {
    const events: string[] = [];
    const b = new LineBatcher((t) => events.push(t), 10_000);
    const bytes = Buffer.from('é\n');
    b.push(bytes.subarray(0, 1));
    b.push(bytes.subarray(1));
    b.end();
    expect(events).toEqual(['é']);
  });
});

describe("Monitor's limits and texts (2.1.328's)", () => {
  test('timeout_ms: default 300000, clamped to [1000, 3600000]', () => {
    expect(monitorTimeoutMs(undefined)).toBe(300_000);
    expect(monitorTimeoutMs(Number.NaN)).toBe(300_000);
    expect(monitorTimeoutMs(10)).toBe(1_000);
    expect(monitorTimeoutMs(9e9)).toBe(3_600_000);
    expect(monitorTimeoutMs(2000.7)).toBe(2000);
  });

  test('durations as 2.1.328 shows them', () => {
    expect([2000, 30_000, 60_000, 90_000, 3_600_000, 3_900_000].map(shortDuration)).toEqual([
      '2s',
      '30s',
      '1m',
      '1m 30s',
      '1h',
      '1h 5m',
    ]);
  });

  test('the start, end and expiry texts', () => {
    expect(monitorStartedText('b1', 30_000)).toBe(
      'Monitor started (task b1, expires in 30s unless the source ends first; you get one notice at expiry — re-arm if you still need the watch). You will be notified on each event. Keep working — do not poll or sleep. Events may arrive while you are waiting for the user — an event is not their reply.',
    );
    expect(monitorEndSummary('x', 'completed', 0, true)).toBe('Monitor "x" stream ended');
    expect(monitorEndSummary('x', 'completed', 0, false)).toBe('Monitor "x" ended without producing output (exit 0)');
    expect(monitorEndSummary('x', 'failed', 2, true)).toBe('Monitor "x" script failed (exit 2)');
    expect(monitorExpiredText(2000, 0)).toBe(
      '[Monitor expired after 2s with no events delivered. Re-arm it if you still need the watch — and widen the filter if silence was unexpected.]',
    );
    expect(monitorExpiredText(60_000, 3)).toBe(
      '[Monitor expired after 1m with 3 events delivered. Re-arm it if you still need the watch.]',
    );
  });
});
