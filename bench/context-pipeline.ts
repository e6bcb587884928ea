/**
 * The context pipeline against auto-compaction alone (issue 26): one scripted 200-step turn whose
 * tools return large, repetitive outputs (Reads of the same three files, long test logs), on a
 * 200K-token window, run twice on the local model server (which simulates the prompt cache and
 * counts tokens as chars/4): with microcompact on (the default batches of 60K tokens, and
 * Claude Code's 20K),
 * and with it off. Per run:
 * prompt tokens sent in all (compaction calls included), cost (the turn's, from the price table),
 * cache-read share, compactions, and whether the final request still holds a fact planted by the
 * tool result of step 10.
 */
import { COMPACT_INSTRUCTION } from '../src/activities/model/compact';
import type { Responder } from '../src/fake-model';
import { firstUserText } from '../src/fake-model/request';
import { CLAUDE_CODE_MIN_FREED_TOKENS } from '../src/engine/microcompact';
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
  budgetReplaced: number;
  factSeen: boolean;
  subtype: string;
}

async function oneRun(
  opts: ContextPipelineBenchOptions,
  microcompact: boolean,
  minFreedTokens?: number,
): Promise<RunFigures> {
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
        microcompact: { enabled: microcompact, ...(minFreedTokens !== undefined ? { minFreedTokens } : {}) },
        // The other stages before auto-compaction go with microcompact (the pipeline, or none of it).
        toolResultBudget: { enabled: microcompact },
        snip: { enabled: microcompact },
      },
      maxStepsPerRun: 1000,
    });
    const mc = outcome.contextStages?.microcompact;
    const sn = outcome.contextStages?.snip;
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
  progress(`context pipeline: ${opts.steps} steps with the tool-result budget, snip, microcompact and auto-compaction`);
  const full = await oneRun(opts, true);
  progress(`context pipeline: ${opts.steps} steps with microcompact in batches of 20,000 tokens (Claude Code's)`);
  const wide = await oneRun(opts, true, CLAUDE_CODE_MIN_FREED_TOKENS);
  progress(`context pipeline: ${opts.steps} steps with auto-compaction alone`);
  const alone = await oneRun(opts, false);
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
      'results by budget',
      'step-10 fact seen',
    ],
    [
      row('full pipeline (budget, snip, microcompact batches of 60K, + auto-compaction)', full),
      row("full pipeline, microcompact batches of 20K (Claude Code's)", wide),
      row('auto-compaction alone', alone),
    ],
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
    budgetReplaced: r.budgetReplaced,
    factSeen: r.factSeen,
  });
  return {
    name: 'pipeline',
    table,
    json: {
      steps: opts.steps,
      windowTokens: opts.windowTokens,
      full: json(full),
      fullBatches20k: json(wide),
      autoCompactionAlone: json(alone),
    },
  };
}
