/**
 * Tokens sent per step over a long turn, with and without auto-compaction: the same 300-step
 * session (a command whose output is ~1,000 characters each step) run twice on the local model
 * server, which counts each request's tokens (chars/4, tools and system included). Without
 * compaction the context grows by every step; with it, it stays under the threshold of the window.
 */
import { COMPACT_INSTRUCTION } from '../src/activities/model/compact';
import type { Responder } from '../src/fake-model';
import { firstUserText } from '../src/fake-model/request';
import { makeRepo, progress, startRunner } from './env';
import type { Measurement } from './stats';
import { renderTable, round } from './stats';

/** Options of {@link measureCompaction}. */
export interface CompactionBenchOptions {
  address: string;
  /** Tool-call steps of the turn (one more model call answers at the end). @default 300 */
  steps: number;
  /** Context window the compacting run compacts against (tokens). @default 20000 */
  windowTokens: number;
}

function lastStep(body: string): number {
  let max = 0;
  for (const m of body.matchAll(/step (\d+)/g)) max = Math.max(max, Number(m[1]));
  return max;
}

interface RunFigures {
  calls: number;
  compactions: number;
  /** Prompt tokens of each call of the conversation (compaction calls not included), in order. */
  perCall: number[];
  /** Prompt tokens of the compaction calls, all together. */
  compactionTokens: number;
}

async function oneRun(opts: CompactionBenchOptions, compact: boolean): Promise<RunFigures> {
  const perCall: number[] = [];
  let compactionTokens = 0;
  let compactions = 0;
  const responder: Responder = (req) => {
    const body = JSON.stringify(req.messages);
    if (firstUserText(req).startsWith(COMPACT_INSTRUCTION)) {
      compactions++;
      return { content: [{ text: `SUMMARY: the work is done up to step ${lastStep(body)}.` }] };
    }
    const next = lastStep(body) + 1;
    if (next > opts.steps) return { content: [{ text: 'finished' }] };
    return {
      content: [
        {
          tool_use: { name: 'Bash', id: `toolu_step_${next}`, input: { command: `echo step ${next}; cat notes.txt` } },
        },
      ],
    };
  };
  const runner = await startRunner({
    address: opts.address,
    fake: {
      responder,
      onRequest: (e) => {
        if (e.outcome !== 'completed') return;
        if (e.conversationKey.endsWith(':compact')) compactionTokens += e.inputTokens;
        else perCall.push(e.inputTokens + e.cacheReadTokens + e.cacheCreationTokens);
      },
    },
  });
  try {
    const repo = makeRepo({ 'notes.txt': `${'Notes on the work so far, kept for reference. '.repeat(26)}\n` });
    const { outcome } = await runner.runTurn(repo, 'work through the steps', {
      compaction: compact
        ? { autoCompactRatio: 0.8, contextWindowTokens: opts.windowTokens, preserveTokens: 2_000 }
        : { autoCompactRatio: 0 },
      maxStepsPerRun: 1000,
    });
    if (outcome.subtype !== 'success') throw new Error(`compaction bench: the turn ended with ${outcome.subtype}`);
    return { calls: perCall.length, compactions, perCall, compactionTokens };
  } finally {
    await runner.close();
  }
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** Runs the session without and with compaction and reports the tokens sent per step. */
export async function measureCompaction(opts: CompactionBenchOptions): Promise<Measurement> {
  progress(`compaction: ${opts.steps} steps without compaction`);
  const off = await oneRun(opts, false);
  progress(`compaction: ${opts.steps} steps with compaction at 80% of ${opts.windowTokens} tokens`);
  const on = await oneRun(opts, true);
  const row = (label: string, r: RunFigures): string[] => {
    const total = r.perCall.reduce((a, b) => a + b, 0) + r.compactionTokens;
    return [
      label,
      String(r.calls),
      String(r.compactions),
      String(Math.round(mean(r.perCall))),
      String(Math.max(...r.perCall)),
      String(r.perCall.at(-1) ?? 0),
      String(Math.round(total / Math.max(1, r.calls))),
    ];
  };
  const table = renderTable(
    `Tokens sent per step over a ${opts.steps}-step turn (local model server, tokens ≈ chars/4; ` +
      `window ${opts.windowTokens} tokens, compaction at 80%)`,
    ['run', 'calls', 'compactions', 'mean/step', 'max/step', 'last step', 'all tokens/step (with summaries)'],
    [row('without compaction', off), row('with compaction', on)],
  );
  return {
    name: 'compaction',
    table,
    json: {
      steps: opts.steps,
      windowTokens: opts.windowTokens,
      without: {
        meanTokensPerStep: round(mean(off.perCall), 1),
        maxTokensPerStep: Math.max(...off.perCall),
        lastStepTokens: off.perCall.at(-1) ?? 0,
      },
      with: {
        compactions: on.compactions,
        meanTokensPerStep: round(mean(on.perCall), 1),
        maxTokensPerStep: Math.max(...on.perCall),
        lastStepTokens: on.perCall.at(-1) ?? 0,
        compactionTokens: on.compactionTokens,
      },
      meanRatio: round(mean(off.perCall) / Math.max(1, mean(on.perCall)), 2),
    },
  };
}
