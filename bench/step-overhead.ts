/**
 * Step overhead: wall time per agent step (one model call + one Read) with a zero-latency local
 * model, for (a) the runner (dev server + in-process worker), (b) the same loop without Temporal,
 * (c) Temporal's floor of the runner's shape (a no-op normal activity for the model call and a
 * no-op local activity for the Read), and (d) the floor of the shape before local activities
 * (two no-op normal activities).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { createActivities } from '../src/activities';
import type { Responder } from '../src/fake-model';
import type { FloorActivities } from './floor-workflows';
import { benchTurnOptions, makeRepo, progress, startRunner } from './env';
import { runInProcessTurn } from './in-process-loop';
import type { Measurement } from './stats';
import { deltas, median, quantile, renderTable, round } from './stats';

/** Options of {@link measureStepOverhead}. */
export interface StepOverheadOptions {
  address: string;
  /** Steps per turn. */
  steps: number;
  /** Measured turns per variant (after one warm-up turn each). */
  turns: number;
}

interface Variant {
  name: string;
  samples: number[];
}

export async function measureStepOverhead(opts: StepOverheadOptions): Promise<Measurement> {
  // Arrival times of the model requests, by conversation (the session id).
  const arrivals = new Map<string, number[]>();
  const responder: Responder = (req, ctx) => {
    const now = performance.now();
    arrivals.set(ctx.conversationKey, [...(arrivals.get(ctx.conversationKey) ?? []), now]);
    const warmup = JSON.stringify(req.messages[0]?.content ?? '').includes('warm up');
    if (ctx.step >= (warmup ? 3 : opts.steps)) return { content: [{ text: 'done' }] };
    return { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } }] };
  };
  const runner = await startRunner({ address: opts.address, fake: { responder } });
  const repo = makeRepo({ 'a.txt': 'alpha\nbeta\ngamma\n' });
  const options = benchTurnOptions();

  // (b) the activities of the runner's own worker config, called in a plain loop.
  const acts = createActivities({ store: runner.store, config: runner.config, env: runner.workerEnv });

  // (c) the floor: its own bundle and worker on its own task queue.
  const floorTimes: number[] = [];
  const floorQueue = `bench-floor-${randomUUID()}`;
  const floorActivities: FloorActivities = {
    noopModel: async () => {
      floorTimes.push(performance.now());
    },
    noopTool: async () => undefined,
  };
  const native = await NativeConnection.connect({ address: opts.address });
  const floorWorker = await Worker.create({
    connection: native,
    taskQueue: floorQueue,
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: require.resolve('./floor-workflows'),
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } as never,
    }),
    activities: floorActivities,
    maxConcurrentActivityTaskExecutions: runner.config.worker.maxConcurrentActivityTaskExecutions,
    maxConcurrentWorkflowTaskExecutions: runner.config.worker.maxConcurrentWorkflowTaskExecutions,
    maxCachedWorkflows: runner.config.worker.maxCachedWorkflows,
  });
  const floorRun = floorWorker.run();

  const ours: Variant = { name: 'runner (model activity + local Read)', samples: [] };
  const plain: Variant = { name: 'in-process loop (no Temporal)', samples: [] };
  const floor: Variant = { name: 'Temporal floor, same shape (normal + local)', samples: [] };
  const floor2: Variant = { name: 'Temporal floor, 2 normal activities (before)', samples: [] };
  try {
    const oneRunnerTurn = async (prompt: string): Promise<number[]> => {
      const { engine } = await runner.runTurn(repo, prompt, options);
      return deltas(arrivals.get(engine.sessionId) ?? []);
    };
    const onePlainTurn = async (prompt: string): Promise<number[]> => {
      const sessionId = randomUUID();
      await runInProcessTurn(acts, { sessionId, cwd: repo, prompt, options });
      return deltas(arrivals.get(sessionId) ?? []);
    };
    const oneFloorTurn = async (steps: number, type = 'floorLocalWorkflow'): Promise<number[]> => {
      floorTimes.length = 0;
      await runner.client.workflow.execute(type, {
        taskQueue: floorQueue,
        workflowId: `bench-floor-${randomUUID()}`,
        args: [steps],
      });
      return deltas(floorTimes);
    };
    progress('step overhead: warming up');
    await oneRunnerTurn('warm up');
    await onePlainTurn('warm up');
    await oneFloorTurn(3);
    await oneFloorTurn(3, 'floorWorkflow');
    // Round-robin, so that drift of the machine hits every variant alike.
    for (let t = 0; t < opts.turns; t++) {
      progress(`step overhead: turn ${t + 1}/${opts.turns} (${opts.steps} steps per variant)`);
      ours.samples.push(...(await oneRunnerTurn('go')));
      plain.samples.push(...(await onePlainTurn('go')));
      floor.samples.push(...(await oneFloorTurn(opts.steps)));
      floor2.samples.push(...(await oneFloorTurn(opts.steps, 'floorWorkflow')));
    }
  } finally {
    floorWorker.shutdown();
    await floorRun.catch(() => undefined);
    await native.close();
    await runner.close();
  }

  const stats = (v: Variant) => ({
    medianMs: round(median(v.samples)),
    p95Ms: round(quantile(v.samples, 0.95)),
    samples: v.samples.length,
  });
  const a = stats(ours);
  const b = stats(plain);
  const c = stats(floor);
  const c2 = stats(floor2);
  const ratios = {
    oursOverInProcessMedian: round(a.medianMs / b.medianMs),
    oursOverFloorMedian: round(a.medianMs / c.medianMs),
    oursOverInProcessP95: round(a.p95Ms / b.p95Ms),
    oursOverFloorP95: round(a.p95Ms / c.p95Ms),
    oursOverTwoNormalFloorMedian: round(a.medianMs / c2.medianMs),
  };
  const table = renderTable(
    `Step overhead: wall time per step (1 model call + 1 Read), zero-latency fake model, ${opts.steps} steps x ${opts.turns} turns`,
    ['variant', 'median ms', 'p95 ms', 'samples'],
    [
      [ours.name, a.medianMs.toFixed(2), a.p95Ms.toFixed(2), String(a.samples)],
      [plain.name, b.medianMs.toFixed(2), b.p95Ms.toFixed(2), String(b.samples)],
      [floor.name, c.medianMs.toFixed(2), c.p95Ms.toFixed(2), String(c.samples)],
      [floor2.name, c2.medianMs.toFixed(2), c2.p95Ms.toFixed(2), String(c2.samples)],
      ['ratio runner / in-process', `${ratios.oursOverInProcessMedian}x`, `${ratios.oursOverInProcessP95}x`, ''],
      ['ratio runner / floor (same shape)', `${ratios.oursOverFloorMedian}x`, `${ratios.oursOverFloorP95}x`, ''],
    ],
  );
  return {
    name: 'stepOverhead',
    table,
    json: { steps: opts.steps, turns: opts.turns, runner: a, inProcess: b, floor: c, floorTwoNormal: c2, ratios },
  };
}
