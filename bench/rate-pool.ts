/**
 * Rate pool: 2 `agent-runner worker` processes × 20 concurrent turns (40 at once, each a chain of
 * Glob calls) against a fake model that enforces N requests per "minute", once without a pool and
 * once with one (limit learned from the `anthropic-ratelimit-*` headers; two fairness keys, one per
 * half of the turns). Per run: 429s the model answered, failed turns, and the steady throughput
 * (calls completed after the first period's burst, up to 90 % of all calls) as a share of the limit.
 * The "minute" is `periodMs` on both sides (the fake's buckets and the pool's), so that a run of
 * a minute sees many refills.
 */
import { randomUUID } from 'node:crypto';
import { ensureRatePool, ratePoolState } from '../src/client/rate-pool';
import type { RatePoolView } from '../src/common/rate-pool';
import type { RequestLogEntry, Responder, StepSpec } from '../src/fake-model';
import { makeRepo, progress, startRunner, startWorkerProcess } from './env';
import type { Measurement } from './stats';
import { renderTable, round } from './stats';

/** Options of {@link measureRatePool}. */
export interface RatePoolBenchOptions {
  address: string;
  /** Requests per period the fake model allows (its bucket holds as many). */
  limit: number;
  /** Length of the limit's period ("minute"), ms. */
  periodMs: number;
  /** Worker processes. */
  workers: number;
  /** Concurrent turns per worker process. */
  turnsPerWorker: number;
  /** Model calls per turn. */
  callsPerTurn: number;
}

interface RunResult {
  pool: boolean;
  turns: number;
  failedTurns: number;
  calls: number;
  rateLimited: number;
  seconds: number;
  /** Calls completed per period in the steady window. */
  steadyPerPeriod: number;
  /** `steadyPerPeriod / limit`. */
  ofLimit: number;
  /** Calls of each fairness key in the steady window (with the pool). */
  byKey?: Record<string, number>;
  poolState?: RatePoolView;
  firstError?: string;
}

const USAGE = { input_tokens: 200, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const glob: StepSpec = { content: [{ tool_use: { name: 'Glob', input: { pattern: '*.txt' } } }], usage: USAGE };

function endMs(e: RequestLogEntry): number {
  return Date.parse(e.at) + e.durationMs;
}

async function runOnce(opts: RatePoolBenchOptions, pool: boolean): Promise<RunResult> {
  const responder: Responder = (_req, ctx) =>
    ctx.step < opts.callsPerTurn - 1 ? glob : { content: [{ text: 'done' }], usage: USAGE };
  const runner = await startRunner({
    address: opts.address,
    fake: { responder, rateLimits: { requestsPerMinute: opts.limit, periodMs: opts.periodMs } },
    inProcessWorker: false,
  });
  const workers = await Promise.all(Array.from({ length: opts.workers }, () => startWorkerProcess(runner.workerEnv)));
  const repo = makeRepo({ 'a.txt': 'alpha\n' });
  const poolId = `bench-${randomUUID().slice(0, 8)}`;
  try {
    const ratePoolId = pool
      ? await ensureRatePool(runner.client, { taskQueue: runner.taskQueue, poolId, periodMs: opts.periodMs })
      : undefined;
    const n = opts.workers * opts.turnsPerWorker;
    const keyOf = (i: number): string => `batch-${i % 2 === 0 ? 'a' : 'b'}`;
    const turnKeys = new Map<string, string>();
    const t0 = Date.now();
    const settled = await Promise.allSettled(
      Array.from({ length: n }, async (_, i) => {
        const { outcome, engine } = await runner.runTurn(repo, `turn ${i}`, {
          ...(ratePoolId ? { ratePoolId, rateFairnessKey: keyOf(i) } : {}),
        });
        turnKeys.set(engine.sessionId, keyOf(i));
        if (outcome.subtype !== 'success') throw new Error(`${outcome.subtype}: ${outcome.errors.join('; ')}`);
      }),
    );
    const seconds = (Date.now() - t0) / 1000;
    const failures = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    const completed = runner.fake
      .requests()
      .filter((e) => e.outcome === 'completed')
      .sort((a, b) => endMs(a) - endMs(b));
    // Steady window: after the first period (the full bucket's burst), up to 90 % of the calls (the tail thins out).
    const from = t0 + opts.periodMs;
    const last = completed[Math.max(0, Math.floor(completed.length * 0.9) - 1)];
    const to = last ? endMs(last) : from;
    const inWindow = completed.filter((e) => endMs(e) > from && endMs(e) <= to);
    const steadyPerPeriod = to > from ? (inWindow.length * opts.periodMs) / (to - from) : 0;
    const byKey: Record<string, number> = {};
    for (const e of inWindow) {
      const k = turnKeys.get(e.conversationKey) ?? 'unknown';
      byKey[k] = (byKey[k] ?? 0) + 1;
    }
    const result: RunResult = {
      pool,
      turns: n,
      failedTurns: failures.length,
      calls: completed.length,
      rateLimited: runner.fake.rateLimited(),
      seconds: round(seconds, 1),
      steadyPerPeriod: round(steadyPerPeriod, 1),
      ofLimit: round(steadyPerPeriod / opts.limit, 3),
      ...(pool ? { byKey, poolState: await ratePoolState(runner.client, poolId) } : {}),
    };
    if (failures[0]) result.firstError = String((failures[0].reason as Error)?.message ?? failures[0].reason);
    return result;
  } finally {
    if (pool)
      await runner.client.workflow
        .getHandle(`agent-rate-pool-${poolId}`)
        .terminate()
        .catch(() => undefined);
    await Promise.all(workers.map((w) => w.stop()));
    await runner.close();
  }
}

/** Runs the rate pool benchmark: the same load without the pool, then with it. */
export async function measureRatePool(opts: RatePoolBenchOptions): Promise<Measurement> {
  const runs: RunResult[] = [];
  for (const pool of [false, true]) {
    progress(
      `ratepool: ${opts.workers} workers × ${opts.turnsPerWorker} turns × ${opts.callsPerTurn} calls, ` +
        `limit ${opts.limit} requests per ${opts.periodMs} ms, ${pool ? 'with' : 'without'} the pool`,
    );
    runs.push(await runOnce(opts, pool));
  }
  const [without, withPool] = runs as [RunResult, RunResult];
  const table = renderTable(
    `Rate pool: ${opts.workers} worker processes × ${opts.turnsPerWorker} concurrent turns × ${opts.callsPerTurn} model calls, ` +
      `limit ${opts.limit} requests per ${opts.periodMs / 1000} s "minute" (fake model, token bucket)`,
    ['run', 'turns ok/failed', 'calls', '429s', '429s per call', 'wall s', 'steady calls/period', 'of limit', 'by key'],
    runs.map((r) => [
      r.pool ? 'with pool' : 'without pool',
      `${r.turns - r.failedTurns}/${r.failedTurns}`,
      String(r.calls),
      String(r.rateLimited),
      (r.rateLimited / Math.max(1, r.calls)).toFixed(3),
      r.seconds.toFixed(1),
      r.steadyPerPeriod.toFixed(1),
      `${(r.ofLimit * 100).toFixed(1)} %`,
      r.byKey
        ? Object.entries(r.byKey)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')
        : '-',
    ]),
  );
  const ratios =
    `429s: ${withPool.rateLimited} with the pool vs ${without.rateLimited} without; ` +
    `steady throughput ${(withPool.ofLimit * 100).toFixed(1)} % of the limit with the pool vs ${(without.ofLimit * 100).toFixed(1)} % without` +
    (withPool.firstError ? `; with pool, first error: ${withPool.firstError}` : '') +
    (without.firstError ? `; without, first error: ${without.firstError.slice(0, 200)}` : '');
  return { name: 'ratepool', table: `${table}\n${ratios}`, json: { ...opts, address: undefined, runs } };
}
