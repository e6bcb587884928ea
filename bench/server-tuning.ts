/**
 * Server tuning: the step overhead (runner and Temporal floor, see step-overhead.ts) on a dev
 * server with the Temporal CLI's defaults and on one with the project's tuning
 * (`history.transferProcessorMaxPollRPS` 1000, SQLite WAL), both on a database file, in one run.
 */
import type { BenchServerTuning } from './env';
import { progress, startBenchServer } from './env';
import type { Measurement } from './stats';
import { renderTable, round } from './stats';
import { measureStepOverhead } from './step-overhead';

/** Options of {@link measureServerTuning}. */
export interface ServerTuningOptions {
  steps: number;
  turns: number;
}

interface Row {
  runnerMs: number;
  floorMs: number;
  inProcessMs: number;
}

export async function measureServerTuning(opts: ServerTuningOptions): Promise<Measurement> {
  const rows = new Map<BenchServerTuning, Row>();
  for (const tuning of ['default', 'tuned'] as const) {
    const server = await startBenchServer(tuning);
    progress(`server tuning: ${tuning} server at ${server.address}`);
    try {
      const m = await measureStepOverhead({ address: server.address, steps: opts.steps, turns: opts.turns });
      const j = m.json as {
        runner: { medianMs: number };
        floor: { medianMs: number };
        inProcess: { medianMs: number };
      };
      rows.set(tuning, { runnerMs: j.runner.medianMs, floorMs: j.floor.medianMs, inProcessMs: j.inProcess.medianMs });
    } finally {
      await server.stop();
    }
  }
  const d = rows.get('default') as Row;
  const t = rows.get('tuned') as Row;
  const table = renderTable(
    `Server tuning: median ms per step (1 model call + 1 Read), SQLite file, ${opts.steps} steps x ${opts.turns} turns`,
    ['server', 'runner', 'floor (model + local Read)', 'in-process loop'],
    [
      [
        'Temporal CLI defaults (poll 20/s, rollback journal)',
        String(d.runnerMs),
        String(d.floorMs),
        String(d.inProcessMs),
      ],
      ['tuned (poll 1000/s, WAL + synchronous=normal)', String(t.runnerMs), String(t.floorMs), String(t.inProcessMs)],
      ['ratio tuned / defaults', `${round(t.runnerMs / d.runnerMs)}x`, `${round(t.floorMs / d.floorMs)}x`, ''],
    ],
  );
  return { name: 'serverTuning', table, json: { steps: opts.steps, turns: opts.turns, default: d, tuned: t } };
}
