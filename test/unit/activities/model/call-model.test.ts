import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import type { AttemptContext, ModelDeps } from '../../../../src/activities/model/call-model';
import { createCallModel } from '../../../../src/activities/model/call-model';
import { toolsForModel } from '../../../../src/activities/tools/registry';
import { createLoadSession } from '../../../../src/activities/transcript';
import type { CallModelInput } from '../../../../src/common/model';
import type { TranscriptEntry } from '../../../../src/common/transcript';
import type { ModelPrice } from '../../../../src/common/usage';
import { billedUsage, startFakeModelServer } from '../../../../src/fake-model';
import type { FakeModelServer, Responder } from '../../../../src/fake-model';
import { JsonlTranscriptStore } from '../../../../src/store';

const SESSION = 'call-model-session';
const PRICE: ModelPrice = { input: 3, output: 15, cacheWrite5m: 3.75, cacheWrite1h: 6, cacheRead: 0.3 };

let dataDir: string;
let store: JsonlTranscriptStore;
let fake: FakeModelServer | undefined;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'call-model-test-'));
  store = new JsonlTranscriptStore(dataDir);
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  rmSync(dataDir, { recursive: true, force: true });
});

/** An attempt of the activity, as Temporal would run it: its number, heartbeats, cancellation. */
function attempt(n: number, heartbeatTimeoutMs = 300): AttemptContext & { beats: number[]; abort(): void } {
  const ac = new AbortController();
  const beats: number[] = [];
  return {
    attempt: n,
    turnId: 'turn-1',
    heartbeatTimeoutMs,
    signal: ac.signal,
    heartbeat: () => beats.push(Date.now()),
    beats,
    abort: () => ac.abort(),
  };
}

async function setup(responder: Responder): Promise<(ctx: AttemptContext) => ModelDeps> {
  fake = await startFakeModelServer({ responder });
  const anthropic = new Anthropic({ apiKey: 'k', baseURL: fake.baseUrl, maxRetries: 0, logLevel: 'off' });
  await store.append({
    type: 'user',
    uuid: 'prompt',
    parentUuid: null,
    sessionId: SESSION,
    timestamp: new Date().toISOString(),
    message: { role: 'user', content: 'list the files' },
  });
  return (ctx) => ({
    store,
    anthropic: () => anthropic,
    priceFor: () => PRICE,
    toolsForModel: (names) => toolsForModel(names) as Anthropic.Tool[],
    attemptContext: () => ctx,
  });
}

const input = (assistantUuid: string, parentUuid: string): CallModelInput => ({
  sessionId: SESSION,
  cwd: '/repo',
  assistantUuid,
  parentUuid,
  model: 'claude-sonnet-5-5',
  maxTokens: 1000,
  tools: ['Bash'],
});

/** Tool-use ids differ per attempt, as the real API's do. */
const perAttemptIds =
  (slowFirstAttemptMs: number): Responder =>
  (_req, { step, attempt: n }) => ({
    ...(n === 1 ? { delay_ms: slowFirstAttemptMs } : {}),
    content:
      step === 0
        ? [
            { text: `attempt ${n}` },
            { tool_use: { id: `toolu_s${step}_a${n}`, name: 'Bash', input: { command: 'ls' } } },
          ]
        : [{ text: `done (attempt ${n})` }],
  });

describe('callModel: one attempt’s outcome wins', () => {
  test('callModel: heartbeats on a timer while it waits for the response headers', async () => {
    const deps = await setup(perAttemptIds(1200));
    const ctx = attempt(1, 300);
    const summary = await createCallModel(deps(ctx))(input('a1', 'prompt'));
    expect(summary.toolUses).toEqual([{ id: 'toolu_s0_a1', name: 'Bash', label: 'Bash: ls' }]);
    // The first event came after 1.2 s; a heartbeat every 100 ms (a third of the timeout) before it.
    expect(ctx.beats.length).toBeGreaterThanOrEqual(8);
    const gaps = ctx.beats.slice(1).map((t, i) => t - ctx.beats[i]!);
    expect(Math.max(...gaps)).toBeLessThan(300);
  });

  test('callModel: two attempts of one call running at once both return the line the store holds', async () => {
    const deps = await setup(perAttemptIds(800));
    // Attempt 1 waits 800 ms for its first byte; attempt 2 (the retry) answers at once and wins.
    const slow = createCallModel(deps(attempt(1)))(input('a1', 'prompt'));
    await new Promise((r) => setTimeout(r, 100));
    const fast = await createCallModel(deps(attempt(2)))(input('a1', 'prompt'));
    const late = await slow;
    expect(fast.toolUses.map((u) => u.id)).toEqual(['toolu_s0_a2']);
    expect(late.toolUses).toEqual(fast.toolUses);
    expect(late.stopReason).toBe(fast.stopReason);
    const stored = await store.get(SESSION, 'a1');
    expect(JSON.stringify(stored?.message?.content)).toContain('toolu_s0_a2');
    expect(JSON.stringify(stored?.message?.content)).not.toContain('toolu_s0_a1');
    expect(fake!.requests().filter((r) => r.outcome === 'completed')).toHaveLength(2);
  });

  test('callModel: a call whose line is stored is not made again', async () => {
    const deps = await setup(perAttemptIds(0));
    const first = await createCallModel(deps(attempt(1)))(input('a1', 'prompt'));
    const again = await createCallModel(deps(attempt(2)))(input('a1', 'prompt'));
    expect(again).toEqual({ ...first, durationMs: 0, replayed: true });
    expect(fake!.requests()).toHaveLength(1);
  });

  test('callModel: the line is written when the response is complete, before the stream ends', async () => {
    // Slow events: the line must be on disk while the last events are still on their way.
    const deps = await setup(() => ({ chunk_delay_ms: 300, content: [{ text: 'short' }] }));
    const done = createCallModel(deps(attempt(1)))(input('a1', 'prompt'));
    let sawLineEarly = false;
    while (fake!.requests().length === 0) {
      if ((await new JsonlTranscriptStore(dataDir).get(SESSION, 'a1')) !== undefined) sawLineEarly = true;
      await new Promise((r) => setTimeout(r, 50));
    }
    await done;
    expect(sawLineEarly).toBe(true);
  });
});

describe('callModel: every attempt the API billed is counted once', () => {
  test('callModel: an attempt cut mid-stream is counted by the attempt that completes', async () => {
    const deps = await setup((_req, { attempt: n }) => ({
      content: [{ text: 'a long answer '.repeat(20) }],
      ...(n === 1 ? { errors: [{ cut_after_events: 5 }] } : {}),
    }));
    await expect(createCallModel(deps(attempt(1)))(input('a1', 'prompt'))).rejects.toThrow();
    const summary = await createCallModel(deps(attempt(2)))(input('a1', 'prompt'));
    const made = billedUsage(fake!.requests());
    expect(fake!.requests().map((r) => r.outcome)).toEqual(['cut', 'completed']);
    expect(summary.billedAttempts).toBe(2);
    expect(summary.usage).toEqual(made);
    expect(summary.costUsd).toBeCloseTo(
      (made.input_tokens * 3 +
        made.output_tokens * 15 +
        made.cache_creation_input_tokens * 3.75 +
        made.cache_read_input_tokens * 0.3) /
        1e6,
      12,
    );
  });

  test('callModel: a superseded attempt that finishes after its call reported is counted by the next call', async () => {
    const deps = await setup(perAttemptIds(700));
    const slow = createCallModel(deps(attempt(1)))(input('a1', 'prompt'));
    await new Promise((r) => setTimeout(r, 100));
    const first = await createCallModel(deps(attempt(2)))(input('a1', 'prompt'));
    expect(first.billedAttempts).toBe(1); // attempt 1 had not begun its response yet
    await slow; // now attempt 1 completes: billed, but after a1 reported
    const result: TranscriptEntry = {
      type: 'user',
      uuid: 'r1',
      parentUuid: 'a1',
      sessionId: SESSION,
      timestamp: new Date().toISOString(),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_s0_a2', content: 'x' }] },
    };
    await store.append(result);
    const next = await createCallModel(deps(attempt(1)))(input('a2', 'r1'));
    expect(next.billedAttempts).toBe(2); // its own and the late attempt of a1
    const made = billedUsage(fake!.requests());
    const counted = [first.usage, next.usage].reduce((s, u) => ({
      input_tokens: s.input_tokens + u.input_tokens,
      output_tokens: s.output_tokens + u.output_tokens,
      cache_creation_input_tokens: s.cache_creation_input_tokens + u.cache_creation_input_tokens,
      cache_read_input_tokens: s.cache_read_input_tokens + u.cache_read_input_tokens,
    }));
    expect(counted).toEqual(made);
    // A resumed session counts the same.
    const loaded = await createLoadSession(store, () => PRICE)(SESSION);
    expect(loaded.usage).toEqual(made);
  });

  test('callModel: the line lists the attempt’s start record while its write is still under way, and returns once it is stored', async () => {
    const deps = await setup(perAttemptIds(0));
    // A slow disk for usage records: the line must not wait for the start record, nor lose it.
    let releaseStart!: () => void;
    const startHeld = new Promise<void>((r) => (releaseStart = r));
    const put = store.putModelAttemptUsage.bind(store);
    const order: string[] = [];
    const slowStore = Object.create(store) as JsonlTranscriptStore;
    slowStore.putModelAttemptUsage = async (sessionId, record) => {
      if (record.phase === 'start') await startHeld;
      await put(sessionId, record);
      order.push(`usage ${record.phase}`);
    };
    const append = store.append.bind(store);
    slowStore.append = async (entry) => {
      const r = await append(entry);
      order.push(`line ${entry.uuid}`);
      return r;
    };
    let returned = false;
    const call = createCallModel({ ...deps(attempt(1)), store: slowStore })(input('a1', 'prompt')).then((s) => {
      returned = true;
      return s;
    });
    while (!order.includes('line a1')) await new Promise((r) => setTimeout(r, 10));
    const line = await store.get(SESSION, 'a1');
    expect(line?.billing?.units).toEqual(['a1/1/start', 'a1/1/end']);
    expect(returned).toBe(false);
    releaseStart();
    const summary = await call;
    expect(order).toEqual(['line a1', 'usage start']);
    expect(await store.modelAttemptUsage(SESSION, 'a1')).toHaveLength(1);
    expect(summary.usage).toEqual(billedUsage(fake!.requests()));
    // Listed by the line and stored: still counted once.
    expect((await createLoadSession(store, () => PRICE)(SESSION)).usage).toEqual(billedUsage(fake!.requests()));
  });

  test('loadSession: attempts that no line reported (a call that never completed) are counted', async () => {
    const deps = await setup(() => ({ content: [{ text: 'x'.repeat(200) }], errors: [{ cut_after_events: 4 }] }));
    await expect(createCallModel(deps(attempt(1)))(input('a1', 'prompt'))).rejects.toThrow();
    const loaded = await createLoadSession(store, () => PRICE)(SESSION);
    expect(loaded.usage).toEqual(billedUsage(fake!.requests()));
    expect(loaded.usage.input_tokens + loaded.usage.cache_creation_input_tokens).toBeGreaterThan(0);
  });
});
