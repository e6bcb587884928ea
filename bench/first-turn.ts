/**
 * A new session's first turn in a git repository, with a one-step answer: the turn's own
 * `duration_ms` (the workspace recorded, the session context loaded, one model call) and the git
 * processes the worker starts for it. The worker runs in this process, so its gits are counted
 * by wrapping `child_process`.
 */
import type * as ChildProcessModule from 'node:child_process';
import { createRequire } from 'node:module';
import { benchTurnOptions, makeRepo, progress, startRunner } from './env';
import type { Measurement } from './stats';
import { median, quantile, renderTable, round } from './stats';

/** The module object itself (an `import *` is a frozen copy), so that its functions can be wrapped. */
const childProcess = createRequire(__filename)('node:child_process') as typeof ChildProcessModule;

/** Options of {@link measureFirstTurn}. */
export interface FirstTurnOptions {
  address: string;
  /** Measured first turns (after one warm-up). */
  turns: number;
}

/** Counts the `git` processes started through `spawn` and `execFile` until `stop()`. */
function countGits(): { count(): number; stop(): void } {
  const cp = childProcess as unknown as Record<'spawn' | 'execFile', (file: string, ...rest: unknown[]) => unknown>;
  const originals = { spawn: cp.spawn, execFile: cp.execFile };
  let n = 0;
  for (const name of ['spawn', 'execFile'] as const) {
    const original = originals[name];
    cp[name] = function (this: unknown, file: string, ...rest: unknown[]) {
      if (file === 'git') n++;
      return original.call(this, file, ...rest);
    };
  }
  return {
    count: () => n,
    stop: () => Object.assign(cp, originals),
  };
}

export async function measureFirstTurn(opts: FirstTurnOptions): Promise<Measurement> {
  const runner = await startRunner({
    address: opts.address,
    fake: { responder: () => ({ content: [{ text: 'done' }] }) },
  });
  const repo = makeRepo({ 'a.txt': 'alpha\n', 'src/b.ts': 'export const b = 1;\n', 'CLAUDE.md': '# notes\n' });
  const git = (...args: string[]): void => {
    childProcess.execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], {
      cwd: repo,
    });
  };
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'init');
  childProcess.execFileSync('sh', ['-c', 'echo changed >> a.txt'], { cwd: repo }); // an uncommitted change: a first snapshot
  const gits = countGits();
  const durations: number[] = [];
  const spawned: number[] = [];
  try {
    for (let i = 0; i <= opts.turns; i++) {
      progress(`first turn: ${i === 0 ? 'warm-up' : `${i}/${opts.turns}`}`);
      const before = gits.count();
      const { outcome } = await runner.runTurn(repo, 'go', benchTurnOptions());
      if (i === 0) continue;
      durations.push(outcome.durationMs);
      spawned.push(gits.count() - before);
    }
  } finally {
    gits.stop();
    await runner.close();
  }
  const result = {
    turns: durations.length,
    durationMs: { median: round(median(durations)), p95: round(quantile(durations, 0.95)) },
    gitProcessesPerTurn: median(spawned),
  };
  const table = renderTable(
    `First turn of a new session in a git repository (one model call, zero-latency fake model), ${opts.turns} turns`,
    ['figure', 'median', 'p95'],
    [
      ['duration_ms', result.durationMs.median.toFixed(0), result.durationMs.p95.toFixed(0)],
      ['git processes per turn', String(result.gitProcessesPerTurn), ''],
    ],
  );
  return { name: 'firstTurn', table, json: result };
}
