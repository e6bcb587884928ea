import { setTimeout as sleep } from 'node:timers/promises';
import {
  AttemptDeadlineError,
  StreamIdleTimeoutError,
  streamIdleTimeoutMs,
  watchedStream,
} from '../../../../src/activities/model/stream-watchdog';

/** Events `a`, `b`, … with the given gaps before each, in ms. */
async function* events(gaps: number[]): AsyncGenerator<string> {
  for (const [i, gap] of gaps.entries()) {
    await sleep(gap);
    yield String.fromCharCode(97 + i);
  }
}

async function drain(it: AsyncIterable<string>, between = 0): Promise<string[]> {
  const out: string[] = [];
  for await (const e of it) {
    out.push(e);
    if (between) await sleep(between);
  }
  return out;
}

describe('stream watchdog: the idle limit', () => {
  test("stream watchdog: Claude Code's variables: CLAUDE_STREAM_IDLE_TIMEOUT_MS is raised to 300000 and cut to 1800000; CLAUDE_ENABLE_STREAM_WATCHDOG=0 turns it off; else the config", () => {
    expect(streamIdleTimeoutMs(300_000, {})).toBe(300_000);
    expect(streamIdleTimeoutMs(1000, {})).toBe(1000);
    expect(streamIdleTimeoutMs(1000, { CLAUDE_STREAM_IDLE_TIMEOUT_MS: '5000' })).toBe(300_000);
    expect(streamIdleTimeoutMs(1000, { CLAUDE_STREAM_IDLE_TIMEOUT_MS: '600000' })).toBe(600_000);
    expect(streamIdleTimeoutMs(1000, { CLAUDE_STREAM_IDLE_TIMEOUT_MS: '99999999' })).toBe(1_800_000);
    expect(streamIdleTimeoutMs(1000, { CLAUDE_STREAM_IDLE_TIMEOUT_MS: 'soon' })).toBe(1000);
    expect(streamIdleTimeoutMs(300_000, { CLAUDE_ENABLE_STREAM_WATCHDOG: '0' })).toBe(0);
    expect(streamIdleTimeoutMs(300_000, { CLAUDE_ENABLE_STREAM_WATCHDOG: 'false' })).toBe(0);
    expect(streamIdleTimeoutMs(300_000, { CLAUDE_ENABLE_STREAM_WATCHDOG: '1' })).toBe(300_000);
  });

  test('stream watchdog: a stream that goes quiet after an event fails with "partial response received" and the request is aborted', async () => {
    let aborted = 0;
    const got: string[] = [];
    let err: unknown;
    try {
      for await (const e of watchedStream(events([0, 10, 500]), { idleMs: 100, onGiveUp: () => aborted++ }))
        got.push(e);
    } catch (e) {
      err = e;
    }
    expect(got).toEqual(['a', 'b']);
    expect(aborted).toBe(1);
    expect(err).toBeInstanceOf(StreamIdleTimeoutError);
    expect((err as Error).message).toMatch(
      /^Stream idle timeout - partial response received \(no stream event for 0 s;/,
    );
    expect((err as StreamIdleTimeoutError).events).toBe(2);
  });

  test('stream watchdog: a stream that sends nothing at all fails with "no chunks received"', async () => {
    const err = await drain(watchedStream(events([400]), { idleMs: 50, onGiveUp: () => undefined })).catch(
      (e: unknown) => e,
    );
    expect((err as Error).message).toMatch(/^Stream idle timeout - no chunks received/);
  });

  test('stream watchdog: time the consumer spends between reads (storing the response) is not idle time', async () => {
    const got = await drain(watchedStream(events([0, 0, 0]), { idleMs: 50, onGiveUp: () => undefined }), 200);
    expect(got).toEqual(['a', 'b', 'c']);
  });

  test('stream watchdog: no limit (0) waits as long as the stream takes', async () => {
    expect(await drain(watchedStream(events([0, 150]), { idleMs: 0, onGiveUp: () => undefined }))).toEqual(['a', 'b']);
  });

  test('stream watchdog: the attempt deadline ends a stream that still trickles', async () => {
    let aborted = false;
    const err = await drain(
      watchedStream(events([0, 60, 60, 60, 60, 60]), {
        idleMs: 1000,
        deadline: Date.now() + 150,
        onGiveUp: () => (aborted = true),
      }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AttemptDeadlineError);
    expect(aborted).toBe(true);
  });
});
