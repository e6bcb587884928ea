/**
 * Half-price batches (`--batch-api`, docs/batch-api.md): the same concurrent turns of 4 model calls
 * each, once through the synchronous Messages API and once through the Message Batches API, against
 * the fake model server with a batch processing delay. Figures: the cost ratio (batch / standard
 * price of the same tokens), Batches API create calls (grouping makes them far fewer than the
 * calls), the worker's activity slots in flight while a batch is pending (sampled from
 * `worker.getStatus().numInFlightActivities`), and the wall time of both runs.
 */
import type { BatchApiOptions } from '../src/common/batch';
import type { TurnOutcome } from '../src/common/turn';
import type { Responder } from '../src/fake-model';
import { makeRepo, progress, startRunner } from './env';
import type { BenchRunner } from './env';
import type { Measurement } from './stats';
import { renderTable, round } from './stats';

/** Options of {@link measureBatchApi}. */
export interface BatchApiBenchOptions {
  address: string;
  /** Turns run at the same time, in each mode. */
  turns: number;
  /** Model calls per turn (the last one answers without a tool). */
  callsPerTurn: number;
  /** The fake server's time from batch create to its results, in ms. */
  batchProcessingMs: number;
}

/** The collector's settings of the run: a short window, quick polls. */
const BATCH: BatchApiOptions = { maxWaitMs: 600_000, windowMs: 500, pollIntervalMs: 250, maxPollIntervalMs: 1000 };

interface ModeRun {
  outcomes: TurnOutcome[];
  wallMs: number;
  /** numInFlightActivities samples taken while a batch was in progress. */
  pendingSamples: number[];
  /** numInFlightActivities samples of the whole run. */
  allSamples: number[];
}

async function runMode(runner: BenchRunner, opts: BatchApiBenchOptions, batched: boolean): Promise<ModeRun> {
  const pendingSamples: number[] = [];
  const allSamples: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const inFlight = runner.worker?.getStatus().numInFlightActivities ?? 0;
      allSamples.push(inFlight);
      if (runner.fake.batches().some((b) => b.processing_status === 'in_progress')) pendingSamples.push(inFlight);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const started = Date.now();
  const outcomes = await Promise.all(
    Array.from({ length: opts.turns }, async (_, i) => {
      const repo = makeRepo({ 'a.txt': `file ${i}\n` });
      const { outcome } = await runner.runTurn(repo, 'read a.txt three times', batched ? { batchApi: BATCH } : {});
      return outcome;
    }),
  );
  const wallMs = Date.now() - started;
  sampling = false;
  await sampler;
  for (const o of outcomes) {
    if (o.subtype !== 'success' || o.numTurns !== opts.callsPerTurn) {
      throw new Error(`batch api: a turn ended with ${o.subtype} after ${o.numTurns} calls`);
    }
  }
  return { outcomes, wallMs, pendingSamples, allSamples };
}

export async function measureBatchApi(opts: BatchApiBenchOptions): Promise<Measurement> {
  const responder: Responder = (_req, ctx) =>
    ctx.step >= opts.callsPerTurn - 1
      ? { content: [{ text: 'Read it three times.' }], usage: { output_tokens: 40 } }
      : { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } }] };
  const runner = await startRunner({
    address: opts.address,
    fake: { responder, batchProcessingMs: opts.batchProcessingMs },
  });
  try {
    const calls = opts.turns * opts.callsPerTurn;
    progress(`batch api: ${opts.turns} turns × ${opts.callsPerTurn} calls, synchronous API`);
    const sync = await runMode(runner, opts, false);
    progress(`batch api: the same under --batch-api (batch processing ${opts.batchProcessingMs} ms)`);
    const batched = await runMode(runner, opts, true);
    const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
    const syncCost = sum(sync.outcomes.map((o) => o.costUsd));
    const batchCost = sum(batched.outcomes.map((o) => o.costUsd));
    const saved = sum(batched.outcomes.map((o) => o.batchApi?.savedUsd ?? 0));
    const batchedCalls = sum(batched.outcomes.map((o) => o.batchApi?.batchedCalls ?? 0));
    const fallbacks = sum(batched.outcomes.map((o) => o.batchApi?.fallbacks ?? 0));
    // The batched tokens at the standard price are cost + saved (the batched calls cost half).
    const priceRatio = batchCost / (batchCost + saved);
    const batches = runner.fake.batches();
    const batchedRequests = batches.flatMap((b) => b.custom_ids);
    const peakPending = Math.max(0, ...batched.pendingSamples);
    const meanPending = sum(batched.pendingSamples) / Math.max(1, batched.pendingSamples.length);
    const peakSync = Math.max(0, ...sync.allSamples);
    const meanSync = sum(sync.allSamples) / Math.max(1, sync.allSamples.length);
    const table = renderTable(
      `Message Batches API: ${opts.turns} concurrent turns × ${opts.callsPerTurn} model calls, synchronous vs --batch-api (fake server, batch processing ${opts.batchProcessingMs} ms, window ${BATCH.windowMs} ms)`,
      ['figure', 'synchronous', '--batch-api'],
      [
        ['model calls', String(calls), String(batchedCalls + fallbacks)],
        ['  answered by a batch / fell back', '-', `${batchedCalls} / ${fallbacks}`],
        ['cost (USD)', syncCost.toFixed(4), batchCost.toFixed(4)],
        ['cost ratio, same tokens at standard price', '1', priceRatio.toFixed(3)],
        ['cost ratio, batched run / synchronous run', '1', (batchCost / syncCost).toFixed(3)],
        ['Batches API create calls', '-', String(batches.length)],
        ['  requests in them (distinct)', '-', `${batchedRequests.length} (${new Set(batchedRequests).size})`],
        ['activities in flight while a batch pends: peak / mean', '-', `${peakPending} / ${meanPending.toFixed(2)}`],
        ['  samples taken while a batch pends', '-', String(batched.pendingSamples.length)],
        [
          'activities in flight, whole run: peak / mean',
          `${peakSync} / ${meanSync.toFixed(2)}`,
          `${Math.max(0, ...batched.allSamples)} / ${(sum(batched.allSamples) / Math.max(1, batched.allSamples.length)).toFixed(2)}`,
        ],
        ['wall time (s)', (sync.wallMs / 1000).toFixed(1), (batched.wallMs / 1000).toFixed(1)],
      ],
    );
    return {
      name: 'batchApi',
      table,
      json: {
        turns: opts.turns,
        callsPerTurn: opts.callsPerTurn,
        batchProcessingMs: opts.batchProcessingMs,
        syncCostUsd: round(syncCost, 6),
        batchCostUsd: round(batchCost, 6),
        savedUsd: round(saved, 6),
        priceRatio: round(priceRatio, 4),
        runCostRatio: round(batchCost / syncCost, 4),
        batchedCalls,
        fallbacks,
        batchCreateCalls: batches.length,
        batchedRequests: batchedRequests.length,
        distinctBatchedRequests: new Set(batchedRequests).size,
        inFlightActivitiesWhilePendingPeak: peakPending,
        inFlightActivitiesWhilePendingMean: round(meanPending, 3),
        pendingSamples: batched.pendingSamples.length,
        syncInFlightActivitiesPeak: peakSync,
        syncWallS: round(sync.wallMs / 1000, 2),
        batchWallS: round(batched.wallMs / 1000, 2),
      },
    };
  } finally {
    await runner.close();
  }
}
