/**
 * The context pipeline against auto-compaction alone (issue 26): one scripted 200-step turn whose
 * tools return large, repetitive outputs (Reads of the same three files, long test logs), on a
 * 200K-token window, on the local model server (which simulates the prompt cache and counts
 * tokens as chars/4), run in one process with the pipeline at its defaults (batches of 60K tokens
 * from 95% of the auto-compaction threshold), with batches at any context size, from 80% and 90%,
 * with Claude Code's 20K batches, and with the pipeline off. Per run: prompt tokens sent in all
 * (compaction calls included), cost (the turn's, from the price table), cache-read share,
 * compactions, and whether the final request still holds a fact planted by the tool result of
 * step 10.
 */
import { COMPACT_INSTRUCTION } from '../src/activities/model/compact';
import type { Responder } from '../src/fake-model';
import { firstUserText } from '../src/fake-model/request';
import { CLAUDE_CODE_MIN_FREED_TOKENS, DEFAULT_TRIGGER_FILL } from '../src/engine/microcompact';
import { makeRepo, progress, startRunner } from './env';
import type { Measurement } from './stats';
import { renderTable, round } from './stats';

/** Options of {@link measureContextPipeline}. */
export interface ContextPipelineBenchOptions {
  address: string;
  /** Tool-call steps of the turn. @default 200 */
  steps: number;
  /** Context window (tokens). @default 200000 */
  windowTokens: number;
}

/** The fact planted at step 10, and the words the final answer uses when it sees it. */
const FACT = 'the release key is 7431-kestrel';
const FILES = ['src/server.ts', 'src/store.ts', 'src/queue.ts'];

function lastStep(body: string): number {
  let max = 0;
  for (const m of body.matchAll(/step[_ ](\d+)/g)) max = Math.max(max, Number(m[1]));
  return max;
}

/** The tool call of step `n`: a Read of one of three files, a test run, or (step 10) the fact. */
function stepCall(n: number): { name: string; id: string; input: Record<string, unknown> } {
  const id = `toolu_step_${n}`;
  if (n === 10) return { name: 'Bash', id, input: { command: `echo step ${n}; echo "note: ${FACT}"` } };
  if (n % 2 === 0) return { name: 'Bash', id, input: { command: `echo step ${n}; cat test.log` } };
  return { name: 'Read', id, input: { file_path: FILES[Math.floor(n / 2) % FILES.length] } };
}

interface RunFigures {
  requests: number;
  compactions: number;
  promptTokens: number;
  cacheReadTokens: number;
  costUsd: number;
  microcompacts: number;
  freedTokens: number;
  snips: number;
  snippedRounds: number;
  snipFreedTokens: number;
  collapses: number;
  collapsedRounds: number;
  collapseFreedTokens: number;
  budgetReplaced: number;
  factSeen: boolean;
  subtype: string;
}

/** A run's pipeline: off (auto-compaction alone), or on with microcompact's batch and trigger. */
interface PipelineSetting {
  on: boolean;
  minFreedTokens?: number;
  triggerFill?: number;
}

async function oneRun(opts: ContextPipelineBenchOptions, setting: PipelineSetting): Promise<RunFigures> {
  const microcompact = setting.on;
  let compactions = 0;
  let promptTokens = 0;
  let cacheReadTokens = 0;
  let requests = 0;
  let factSeen = false;
  const responder: Responder = (req) => {
    const body = JSON.stringify(req.messages);
    if (firstUserText(req).startsWith(COMPACT_INSTRUCTION)) {
      compactions++;
      return { content: [{ text: `SUMMARY: the work is done up to step ${lastStep(body)}.` }] };
    }
    const next = lastStep(body) + 1;
    if (next > opts.steps) {
      factSeen = body.includes(FACT);
      return { content: [{ text: factSeen ? `finished; ${FACT}` : 'finished; the key is not in view' }] };
    }
    return { content: [{ tool_use: stepCall(next) }] };
  };
  const runner = await startRunner({
    address: opts.address,
    fake: {
      responder,
      onRequest: (e) => {
        if (e.outcome !== 'completed') return;
        requests++;
        promptTokens += e.inputTokens + e.cacheReadTokens + e.cacheCreationTokens;
        cacheReadTokens += e.cacheReadTokens;
      },
    },
  });
  try {
    const source = (name: string): string =>
      Array.from(
        { length: 300 },
        (_, i) => `export const ${name.replace(/\W/g, '_')}_${i} = ${i}; // line ${i}\n`,
      ).join('');
    const log = Array.from(
      { length: 400 },
      (_, i) => `PASS test/unit/case-${i}.test.ts (${(i % 7) + 1} ms) ok ok ok\n`,
    ).join('');
    const repo = makeRepo({ ...Object.fromEntries(FILES.map((f) => [f, source(f)])), 'test.log': log });
    const { outcome } = await runner.runTurn(repo, 'work through the steps', {
      compaction: {
        autoCompactRatio: 0.8,
        contextWindowTokens: opts.windowTokens,
        preserveTokens: 20_000,
        microcompact: {
          enabled: microcompact,
          ...(setting.minFreedTokens !== undefined ? { minFreedTokens: setting.minFreedTokens } : {}),
          ...(setting.triggerFill !== undefined ? { triggerFill: setting.triggerFill } : {}),
        },
        // The other stages before auto-compaction go with microcompact (the pipeline, or none of it).
        toolResultBudget: { enabled: microcompact },
        snip: { enabled: microcompact },
        collapse: { enabled: microcompact },
      },
      maxStepsPerRun: 1000,
    });
    const mc = outcome.contextStages?.microcompact;
    const sn = outcome.contextStages?.snip;
    const cl = outcome.contextStages?.collapse;
    return {
      requests,
      compactions,
      promptTokens,
      cacheReadTokens,
      costUsd: outcome.costUsd,
      microcompacts: mc?.runs ?? 0,
      freedTokens: mc?.freedTokens ?? 0,
      snips: sn?.runs ?? 0,
      snippedRounds: sn?.snippedRounds ?? 0,
      snipFreedTokens: sn?.freedTokens ?? 0,
      collapses: cl?.runs ?? 0,
      collapsedRounds: cl?.collapsedRounds ?? 0,
      collapseFreedTokens: cl?.freedTokens ?? 0,
      budgetReplaced: outcome.contextStages?.toolResultBudget?.replacedToolResults ?? 0,
      factSeen,
      subtype: outcome.subtype,
    };
  } finally {
    await runner.close();
  }
}

/** Runs the session with the full pipeline and with auto-compaction alone. */
export async function measureContextPipeline(opts: ContextPipelineBenchOptions): Promise<Measurement> {
  const runs: Array<[string, PipelineSetting]> = [
    [
      `full pipeline (budget, snip, microcompact batches of 60K from ${DEFAULT_TRIGGER_FILL * 100}% of the threshold, collapse, + auto-compaction)`,
      { on: true },
    ],
    ['full pipeline, batches at any context size (trigger 0)', { on: true, triggerFill: 0 }],
    ['full pipeline, batches from 80% of the threshold', { on: true, triggerFill: 0.8 }],
    ['full pipeline, batches from 90% of the threshold', { on: true, triggerFill: 0.9 }],
    [
      "full pipeline, batches of 20K (Claude Code's), at any context size",
      { on: true, minFreedTokens: CLAUDE_CODE_MIN_FREED_TOKENS, triggerFill: 0 },
    ],
    ['auto-compaction alone', { on: false }],
  ];
  const results: RunFigures[] = [];
  for (const [label, setting] of runs) {
    progress(`context pipeline: ${opts.steps} steps, ${label}`);
    results.push(await oneRun(opts, setting));
  }
  const share = (r: RunFigures): number => r.cacheReadTokens / Math.max(1, r.promptTokens);
  const row = (label: string, r: RunFigures): string[] => [
    label,
    r.subtype,
    String(r.requests),
    String(r.promptTokens),
    r.costUsd.toFixed(4),
    `${(share(r) * 100).toFixed(1)}%`,
    String(r.compactions),
    `${r.microcompacts} (${r.freedTokens} tokens)`,
    `${r.snips} (${r.snippedRounds} rounds, ${r.snipFreedTokens} tokens)`,
    `${r.collapses} (${r.collapsedRounds} rounds, ${r.collapseFreedTokens} tokens)`,
    String(r.budgetReplaced),
    r.factSeen ? 'yes' : 'no',
  ];
  const table = renderTable(
    `Context pipeline over a ${opts.steps}-step turn (local model server with its prompt-cache simulator, ` +
      `tokens ≈ chars/4; window ${opts.windowTokens} tokens, auto-compaction at 80%)`,
    [
      'run',
      'result',
      'requests',
      'prompt tokens in all',
      'cost USD',
      'cache-read share',
      'compactions',
      'microcompacts',
      'snips',
      'collapses',
      'results by budget',
      'step-10 fact seen',
    ],
    runs.map(([label], i) => row(label, results[i] as RunFigures)),
  );
  const json = (r: RunFigures): Record<string, unknown> => ({
    requests: r.requests,
    promptTokens: r.promptTokens,
    costUsd: round(r.costUsd, 4),
    cacheReadShare: round(share(r), 3),
    compactions: r.compactions,
    microcompacts: r.microcompacts,
    freedTokens: r.freedTokens,
    snips: r.snips,
    snippedRounds: r.snippedRounds,
    snipFreedTokens: r.snipFreedTokens,
    collapses: r.collapses,
    collapsedRounds: r.collapsedRounds,
    collapseFreedTokens: r.collapseFreedTokens,
    budgetReplaced: r.budgetReplaced,
    factSeen: r.factSeen,
  });
  return {
    name: 'pipeline',
    table,
    json: {
      steps: opts.steps,
      windowTokens: opts.windowTokens,
      triggerFill: DEFAULT_TRIGGER_FILL,
      runs: runs.map(([label, setting], i) => ({ label, setting, ...json(results[i] as RunFigures) })),
    },
  };
}
