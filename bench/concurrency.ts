/**
 * Concurrency: N turns at once (each a new session: model call → Read → model call → answer)
 * against a model that takes 2 s per call, on one `agent-runner worker` process with the default
 * tuning. Throughput, failures, turn latency, peak concurrent model calls and the worker's peak RSS.
 */
import type { RequestLogEntry, Responder } from '../src/fake-model';
import { cpuSeconds, makeRepo, progress, startRunner, startWorkerProcess } from './env';
import type { Measurement } from './stats';
import { bytes, median, quantile, renderTable, round } from './stats';

/** Options of {@link measureConcurrency}. */
export interface ConcurrencyOptions {
  address: string;
  /** Numbers of concurrent turns. */
  levels: number[];
  /** Model latency before each response, ms. */
  latencyMs: number;
  /** Process id of the Temporal server (for its CPU time). */
  serverPid: number;
}

/** Most model requests in flight at once, from the fake server's log. */
function peakInFlight(log: readonly RequestLogEntry[]): number {
  const edges: Array<[number, number]> = [];
  for (const e of log) {
    const start = Date.parse(e.at);
    edges.push([start, 1], [start + e.durationMs, -1]);
  }
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let peak = 0;
  for (const [, d] of edges) {
    cur += d;
    peak = Math.max(peak, cur);
  }
  return peak;
}

interface LevelResult {
  turns: number;
  succeeded: number;
  failed: number;
  seconds: number;
  turnsPerSecond: number;
  latencyMedianS: number;
  latencyP95S: number;
  modelCalls: number;
  peakModelCallsInFlight: number;
  workerPeakRssBytes: number;
  /** CPU seconds used during the run by the worker, the Temporal server and this process (client + fake model). */
  cpuSeconds: { worker: number; server: number; benchProcess: number };
  firstError?: string;
}

const responder: Responder = (_req, ctx) =>
  ctx.step === 0
    ? { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } }] }
    : { content: [{ text: 'done' }] };

async function runLevel(opts: ConcurrencyOptions, n: number): Promise<LevelResult> {
  const runner = await startRunner({
    address: opts.address,
    fake: { responder, latencyMs: opts.latencyMs },
    inProcessWorker: false,
  });
  const worker = await startWorkerProcess(runner.workerEnv);
  const repo = makeRepo({ 'a.txt': 'alpha\n' });
  try {
    const started = Date.now();
    const cpu0 = { worker: cpuSeconds(worker.pid), server: cpuSeconds(opts.serverPid), bench: process.cpuUsage() };
    const latencies: number[] = [];
    const settled = await Promise.allSettled(
      Array.from({ length: n }, async () => {
        const t0 = Date.now();
        const { outcome } = await runner.runTurn(repo, 'go');
        latencies.push((Date.now() - t0) / 1000);
        if (outcome.subtype !== 'success') throw new Error(`${outcome.subtype}: ${outcome.errors.join('; ')}`);
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    const benchCpu = process.cpuUsage(cpu0.bench);
    const cpu = {
      worker: round(cpuSeconds(worker.pid) - cpu0.worker, 1),
      server: round(cpuSeconds(opts.serverPid) - cpu0.server, 1),
      benchProcess: round((benchCpu.user + benchCpu.system) / 1e6, 1),
    };
    const failures = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    const log = runner.fake.requests();
    const result: LevelResult = {
      turns: n,
      succeeded: n - failures.length,
      failed: failures.length,
      seconds: round(seconds),
      turnsPerSecond: round((n - failures.length) / seconds),
      latencyMedianS: round(median(latencies)),
      latencyP95S: round(quantile(latencies, 0.95)),
      modelCalls: log.length,
      peakModelCallsInFlight: peakInFlight(log),
      workerPeakRssBytes: worker.peakRss(),
      cpuSeconds: cpu,
    };
    if (failures[0]) result.firstError = String((failures[0].reason as Error)?.message ?? failures[0].reason);
    return result;
  } finally {
    await worker.stop();
    await runner.close();
  }
}

export async function measureConcurrency(opts: ConcurrencyOptions): Promise<Measurement> {
  const results: LevelResult[] = [];
  for (const n of opts.levels) {
    progress(`concurrency: ${n} turns at once, model latency ${opts.latencyMs} ms`);
    results.push(await runLevel(opts, n));
  }
  const table = renderTable(
    `Concurrency: N turns at once on one worker process (2 model calls + 1 Read each), model latency ${opts.latencyMs} ms`,
    [
      'turns',
      'ok',
      'failed',
      'wall s',
      'turns/s',
      'turn p50 s',
      'turn p95 s',
      'calls in flight (peak)',
      'worker peak RSS',
      'CPU s worker/server/bench',
    ],
    results.map((r) => [
      String(r.turns),
      String(r.succeeded),
      String(r.failed),
      r.seconds.toFixed(1),
      r.turnsPerSecond.toFixed(2),
      r.latencyMedianS.toFixed(1),
      r.latencyP95S.toFixed(1),
      String(r.peakModelCallsInFlight),
      bytes(r.workerPeakRssBytes),
      `${r.cpuSeconds.worker}/${r.cpuSeconds.server}/${r.cpuSeconds.benchProcess}`,
    ]),
  );
  return { name: 'concurrency', table, json: { latencyMs: opts.latencyMs, levels: results } };
}
