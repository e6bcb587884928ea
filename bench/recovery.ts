/**
 * Recovery: kill -9 of an `agent-runner worker` process at seeded random points of a long turn,
 * a new worker process started at once; time from the kill to the next transcript line (the
 * interrupted activity, retried on the new worker) and to the one after (the workflow itself
 * moving again), and the model calls that had to be repeated.
 */
import { turnOutcome } from '../src/client/turn-outcome';
import { loadConfig } from '../src/config';
import { randomUUID } from 'node:crypto';
import type { Responder } from '../src/fake-model';
import { repeatedCompletedCalls } from '../src/fake-model';
import { benchTurnOptions, makeRepo, progress, sleep, startRunner, startWorkerProcess } from './env';
import type { WorkerProcess } from './env';
import type { Measurement } from './stats';
import { median, renderTable } from './stats';

/** Options of {@link measureRecovery}. */
export interface RecoveryOptions {
  address: string;
  kills: number;
  seed: number;
  /** Heartbeat timeouts of the turn (model and tool), ms. */
  heartbeatMs: number;
}

/** Sticky-queue schedule-to-start timeout of `agent-runner worker` (`worker.stickyQueueTimeoutMs`), ms. */
const STICKY_MS = loadConfig({ env: {} }).worker.stickyQueueTimeoutMs;

function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function measureRecovery(opts: RecoveryOptions): Promise<Measurement> {
  const state = { finish: false };
  // Steps of ~1 s each: a streamed reply with a Read, then a Bash that sleeps 1 s.
  const responder: Responder = (_req, ctx) => {
    if (state.finish) return { content: [{ text: 'finished' }] };
    if (ctx.step % 2 === 0) {
      return {
        chunk_delay_ms: 60,
        content: [
          { text: `Step ${ctx.step}: looking at the file once more before the next command. `.repeat(2) },
          { tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } },
        ],
      };
    }
    return { content: [{ tool_use: { name: 'Bash', input: { command: `sleep 1 && echo ${ctx.step}` } } }] };
  };
  const runner = await startRunner({ address: opts.address, fake: { responder }, inProcessWorker: false });
  const rnd = seededRandom(opts.seed);
  let worker: WorkerProcess = await startWorkerProcess(runner.workerEnv);
  const kills: Array<{ phase: string; firstLineMs: number; resumedMs: number }> = [];
  try {
    const engine = runner.engine(makeRepo({ 'a.txt': 'alpha\n' }));
    const options = benchTurnOptions({
      timeouts: { modelHeartbeatMs: opts.heartbeatMs, toolHeartbeatMs: opts.heartbeatMs },
    });
    const started = await engine.start('work for a while', options, randomUUID());
    const result = turnOutcome(runner.client, started.turnWorkflowId);
    const lines = async () => runner.store.load(engine.sessionId);
    const waitLines = async (n: number): Promise<void> => {
      for (;;) {
        if ((await lines()).length >= n) return;
        await sleep(20);
      }
    };
    for (let k = 0; k < opts.kills; k++) {
      const base = (await lines()).length;
      await waitLines(base + 2 + Math.floor(rnd() * 3));
      await sleep(Math.floor(rnd() * 1500));
      const before = await lines();
      const last = before[before.length - 1];
      const content = last?.message?.content;
      const inTool = last?.type === 'assistant' && Array.isArray(content) && content.some((b) => b.type === 'tool_use');
      const phase = inTool ? 'tool call' : 'model call';
      progress(`recovery: kill ${k + 1}/${opts.kills} during a ${phase}`);
      const killedAt = Date.now();
      await worker.kill9();
      worker = await startWorkerProcess(runner.workerEnv);
      await waitLines(before.length + 1);
      const firstLineMs = Date.now() - killedAt;
      await waitLines(before.length + 2);
      kills.push({ phase, firstLineMs, resumedMs: Date.now() - killedAt });
    }
    state.finish = true;
    const outcome = await result;
    if (outcome.subtype !== 'success') throw new Error(`recovery: the turn ended with ${outcome.subtype}`);
    await engine.end().catch(() => undefined);
  } finally {
    await worker.stop();
    await runner.close().catch(() => undefined);
  }
  const repeated = repeatedCompletedCalls(runner.fake.requests());
  const firstLines = kills.map((k) => k.firstLineMs);
  const resumed = kills.map((k) => k.resumedMs);
  const table = renderTable(
    `Recovery: kill -9 of the worker process, new worker started at once (heartbeat timeout ${opts.heartbeatMs} ms, sticky-queue timeout ${STICKY_MS} ms, retry after 1 s)`,
    ['kill', 'phase', 'kill → next line ms', 'kill → workflow moving ms'],
    [
      ...kills.map((k, i) => [String(i + 1), k.phase, String(k.firstLineMs), String(k.resumedMs)]),
      ['median', '', String(median(firstLines)), String(median(resumed))],
      ['model calls repeated', String(repeated.reduce((n, r) => n + r.count - 1, 0)), '', ''],
    ],
  );
  return {
    name: 'recovery',
    table,
    json: {
      heartbeatMs: opts.heartbeatMs,
      stickyMs: STICKY_MS,
      seed: opts.seed,
      kills,
      medianFirstLineMs: median(firstLines),
      medianResumedMs: median(resumed),
      maxResumedMs: Math.max(...resumed),
      repeatedModelCalls: repeated.reduce((n, r) => n + r.count - 1, 0),
    },
  };
}
