/**
 * The benchmarks: `node dist/bench/run.js [--json] [--quick] [--only NAME,...]` after
 * `npm run build`. Prints one table per measurement on stdout (progress on stderr); with `--json`,
 * the last stdout line is one JSON object with every figure. Names: overhead, tuning, history,
 * concurrency, recovery, cache, stores, compaction, pipeline, firstturn, lookup, batch, ratepool. See docs/performance.md.
 */
import * as os from 'node:os';
import { measureConcurrency } from './concurrency';
import { progress, startBenchServer } from './env';
import { measureHistoryBytes } from './history-bytes';
import { measurePromptCache } from './prompt-cache';
import { measureRecovery } from './recovery';
import type { Measurement } from './stats';
import { measureStepOverhead } from './step-overhead';
import { measureServerTuning } from './server-tuning';
import { measureCli } from './cli';
import { measureStores } from './stores';
import { measureCompaction } from './compaction';
import { measureContextPipeline } from './context-pipeline';
import { measureFirstTurn } from './first-turn';
import { measureDeferredTools } from './deferred-tools';
import { measureToolLookup } from './tool-lookup';
import { measureBatchApi } from './batch-api';
import { measureRatePool } from './rate-pool';

const ALL = [
  'cli',
  'overhead',
  'tuning',
  'history',
  'concurrency',
  'recovery',
  'cache',
  'stores',
  'compaction',
  'pipeline',
  'firstturn',
  'deferred',
  'lookup',
  'batch',
  'ratepool',
] as const;
type Name = (typeof ALL)[number];

interface Args {
  json: boolean;
  quick: boolean;
  only: Name[];
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { json: false, quick: false, only: [...ALL] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') {
      process.stdout.write(
        `usage: node dist/bench/run.js [--json] [--quick] [--only ${ALL.join(',')}]\n` +
          'Runs the benchmarks on a Temporal dev server of its own; tables on stdout, progress on stderr.\n' +
          '--json: the last stdout line is every figure as one JSON object. --quick: smaller sizes.\n' +
          'What each figure means and the last run: docs/performance.md.\n',
      );
      process.exit(0);
    }
    if (a === '--json') args.json = true;
    else if (a === '--quick') args.quick = true;
    else if (a === '--only') {
      const names = (argv[++i] ?? '').split(',').filter(Boolean);
      const bad = names.filter((n) => !(ALL as readonly string[]).includes(n));
      if (bad.length > 0 || names.length === 0) throw new Error(`--only: expected some of ${ALL.join(',')}`);
      args.only = names as Name[];
    } else throw new Error(`unknown argument ${a}; usage: run.js [--json] [--quick] [--only ${ALL.join(',')}]`);
  }
  return args;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const server = await startBenchServer();
  progress(`Temporal dev server at ${server.address} (SQLite file, tuned)`);
  const address = server.address;
  const results: Measurement[] = [];
  const run = async (name: Name, fn: () => Promise<Measurement>): Promise<void> => {
    if (!args.only.includes(name)) return;
    const m = await fn();
    results.push(m);
    process.stdout.write(`\n${m.table}\n`);
  };
  try {
    await run('cli', () => measureCli({ rounds: args.quick ? 3 : 5 }));
    await run('overhead', () =>
      measureStepOverhead({ address, steps: args.quick ? 20 : 50, turns: args.quick ? 2 : 3 }),
    );
    await run('tuning', () => measureServerTuning({ steps: args.quick ? 20 : 40, turns: args.quick ? 2 : 3 }));
    await run('history', () => measureHistoryBytes({ address, steps: args.quick ? 4 : 6 }));
    await run('concurrency', () =>
      measureConcurrency({
        address,
        levels: args.quick ? [10, 50] : [10, 100, 500],
        latencyMs: 2000,
        serverPid: server.pid,
      }),
    );
    await run('recovery', () =>
      measureRecovery({ address, kills: args.quick ? 2 : 4, seed: 20261130, heartbeatMs: 5000 }),
    );
    await run('cache', () => measurePromptCache({ address, calls: 20 }));
    await run('compaction', () => measureCompaction({ address, steps: args.quick ? 100 : 300, windowTokens: 20_000 }));
    await run('deferred', () => measureDeferredTools({ address, calls: 10 }));
    await run('pipeline', () =>
      measureContextPipeline({ address, steps: args.quick ? 100 : 200, windowTokens: 200_000 }),
    );
    await run('firstturn', () => measureFirstTurn({ address, turns: args.quick ? 3 : 7 }));
    await run('lookup', () =>
      measureToolLookup({ sizesMb: args.quick ? [1, 4] : [1, 4, 16], calls: args.quick ? 10 : 20 }),
    );
    await run('batch', () =>
      measureBatchApi({ address, turns: args.quick ? 10 : 50, callsPerTurn: 4, batchProcessingMs: 1000 }),
    );
    await run('ratepool', () =>
      measureRatePool({
        address,
        limit: 20,
        periodMs: 8000,
        workers: 2,
        turnsPerWorker: 20,
        callsPerTurn: args.quick ? 4 : 8,
      }),
    );
    await run('stores', () =>
      measureStores({
        address,
        steps: args.quick ? 15 : 30,
        turns: args.quick ? 2 : 3,
        workerCounts: [1, 2, 4],
        concurrentTurns: args.quick ? 12 : 24,
        serverPid: server.pid,
      }),
    );
  } finally {
    await server.stop();
  }
  const summary = {
    command: `node dist/bench/run.js ${process.argv.slice(2).join(' ')}`.trim(),
    quick: args.quick,
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memoryGB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    durationS: Math.round((Date.now() - started) / 1000),
    results: Object.fromEntries(results.map((m) => [m.name, m.json])),
  };
  process.stdout.write(`\nbenchmarks done in ${summary.durationS} s on ${summary.machine.cpus} cores\n`);
  if (args.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
