/**
 * Claude Code's asynchronous tools (subagents, background shells, monitors, wake-ups, crons),
 * scenario by scenario (test/conformance/async/scenarios-*.ts). By default:
 *
 * - the `smoke` scenarios run with the real `claude -p` 2.1.328 and must pass their checks (the
 *   recorder still works with the real CLI; a few seconds);
 * - a scenario that is not `pending` runs with `agent-runner -p`: its run must pass the same checks
 *   and match the committed recording but for the known differences;
 * - the other scenarios are covered by async-recordings.test.ts, which checks their recordings.
 *
 * `CONFORMANCE_LIVE=1` runs every scenario with the real CLI (about 80 s); `CONFORMANCE_RECORD=1`
 * also writes each normalised recording to test/conformance/recordings/async/claude-2.1.328/<scenario>/;
 * `CONFORMANCE_SLOW=1` includes the scenarios that wait a minute or more in real time;
 * `CONFORMANCE_OURS=1` runs `agent-runner -p` for pending scenarios too (while building one);
 * `CONFORMANCE_KEEP=1` keeps each run's folder. Run: `npx jest test/conformance/async.test.ts
 * [-t <scenario>]`.
 */
import { join } from 'node:path';
import { compareRuns, formatDifferences } from './compare';
import { ensureClaudeCode } from './install';
import { knownDifferenceFor } from './known-differences';
import { ensureRunnerBuilt } from './run';
import { asSideRun } from './async/compare-recordings';
import { normaliseRecording } from './async/normalise';
import type { Recording } from './async/recording';
import { RECORDINGS_DIR, loadRecording, saveRecording } from './async/recording';
import { runAsync } from './async/run';
import type { AsyncScenario } from './async/scenario';
import { ASYNC_SCENARIOS } from './async/scenarios';

jest.setTimeout(15 * 60_000);

const RECORD = process.env['CONFORMANCE_RECORD'] === '1';
const LIVE = RECORD || process.env['CONFORMANCE_LIVE'] === '1';
const SLOW = process.env['CONFORMANCE_SLOW'] === '1';
const KEEP = process.env['CONFORMANCE_KEEP'] === '1';
/** Run `agent-runner -p` for pending scenarios too (while building one): `CONFORMANCE_OURS=1`. */
const OURS = process.env['CONFORMANCE_OURS'] === '1';

let claudeBin = '';

beforeAll(() => {
  claudeBin = ensureClaudeCode((l) => process.stderr.write(`[conformance] ${l}\n`)).claudeBin;
  if (OURS || ASYNC_SCENARIOS.some((s) => !s.pending)) ensureRunnerBuilt();
});

/** Runs the scenario's checks on a run; a failure names the program, its exit code and stderr tail. */
function checkRun(s: AsyncScenario, rec: Recording): void {
  try {
    s.check(rec);
  } catch (e) {
    const tail = rec.meta.stderr.split('\n').slice(-15).join('\n');
    (e as Error).message =
      `${rec.meta.side} run of ${s.name} (exit ${String(rec.meta.exitCode)}, ${rec.requests.length} requests, stderr tail:\n${tail}\n):\n${(e as Error).message}`;
    throw e;
  }
}

describe('claude -p 2.1.328 asynchronous tools', () => {
  for (const s of ASYNC_SCENARIOS) {
    const withClaude = LIVE || s.smoke === true;
    const withOurs = !s.pending || OURS;
    const run = (s.slow && !SLOW) || (!withClaude && !withOurs) ? test.skip : test;
    run(`${s.name}: ${s.title}${s.pending ? ' (claude only: pending in the runner)' : ''}`, async () => {
      if (withClaude) {
        const raw = await runAsync(s, 'claude', { claudeBin, keep: KEEP });
        if (KEEP) process.stderr.write(`[conformance] ${s.name}: kept ${raw.paths.root}\n`);
        const claude = normaliseRecording(raw.recording, raw.paths);
        if (RECORD) saveRecording(join(RECORDINGS_DIR, s.name), claude);
        checkRun(s, claude);
      }
      if (!withOurs) return;
      const oursRaw = await runAsync(s, 'ours', { keep: KEEP });
      const ours = normaliseRecording(oursRaw.recording, oursRaw.paths);
      checkRun(s, ours);
      const recorded = loadRecording(join(RECORDINGS_DIR, s.name));
      const diffs = compareRuns({ claude: asSideRun(recorded, 'claude'), ours: asSideRun(ours, 'ours') }).filter(
        (d) => !knownDifferenceFor(d, s.name),
      );
      expect(formatDifferences(diffs)).toBe('');
    });
  }
});
