/**
 * Recordings of the real `claude -p` 2.1.328 for features the runner is still to build (issues 22
 * and 23): custom slash commands, skills, plugins, deferred tools and ToolSearch, `--bare`, effort
 * and thinking, web search and fetch, AskUserQuestion, plan mode, notebooks, images and PDFs, and
 * the model providers. The recordings are committed (recordings/claude-2.1.328/<scenario>/) and
 * docs/reference/claude-code-commands-skills-model.md explains them.
 *
 * Modes (the environment variable `CONFORMANCE_RECORD`):
 * - unset (CI): each committed recording is there and well formed (milliseconds; no CLI runs);
 *   each scenario no longer `pending` runs agent-runner and is compared with its recording.
 * - `1`: runs the real CLI and writes the recordings (`-t <name>` for some).
 * - `check`: runs the real CLI and fails when a recording changed (beyond token counts and costs).
 *
 * `CONFORMANCE_OURS=<name>[,<name>…]` (or `all`) also runs agent-runner on `pending` scenarios and
 * prints how it differs from the recording: what is left to build. `CONFORMANCE_DEBUG=1` prints
 * the runner's stderr of each run.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { compareRuns, formatDifferences } from './compare';
import type { Difference } from './compare';
import type { Side, SideRun } from './run';
import type { ParsedRequest } from '../../src/fake-model';
import { ensureClaudeCode } from './install';
import { knownDifferenceFor } from './known-differences';
import { ensureRunnerBuilt } from './run';
import { fixtureFiles, readFixture, RECORDINGS_DIR, writeFixture } from './recorder/fixtures';
import { recordScenario } from './recorder/record';
import type { RecordingScenario } from './recorder/scenario';
import { RECORDING_SCENARIOS } from './recorder/scenarios';
import { sideRunOf, stableView } from './recorder/replay';

jest.setTimeout(900_000);

const MODE = process.env['CONFORMANCE_RECORD'];

/**
 * A model probe: Claude Code's `max_tokens: 1` request with the prompt `.` that it sends to
 * Bedrock and Vertex before a turn, to find a model the account has. Probes are compared as a
 * count and left out of the request-by-request comparison (they are not the conversation).
 */
function isModelProbe(r: ParsedRequest): boolean {
  const first = r.messages[0];
  return r.max_tokens === 1 && r.messages.length === 1 && first?.role === 'user' && first.content === '.';
}

/** The model probes of both runs as one difference (when they differ); removes them from the runs. */
function compareProbes(runs: Record<Side, SideRun>): Difference[] {
  const count = (r: SideRun): number => {
    const n = r.requests.filter(isModelProbe).length;
    r.requests = r.requests.filter((q) => !isModelProbe(q));
    if (r.resumed) r.resumed.requests = r.resumed.requests.filter((q) => !isModelProbe(q));
    return n;
  };
  const claude = count(runs.claude);
  const ours = count(runs.ours);
  return claude === ours ? [] : [{ kind: 'context', where: 'model probes before the turn', claude, ours }];
}

/** Whether `CONFORMANCE_OURS` asks to run the runner on this scenario although it is pending. */
function forced(s: RecordingScenario): boolean {
  return (process.env['CONFORMANCE_OURS'] ?? '').split(',').some((n) => n === s.name || n === 'all');
}

describe('recordings of claude -p 2.1.328 (issues 22 and 23)', () => {
  let claudeBin = '';
  let sdkEntry = '';
  beforeAll(() => {
    const runsOurs = MODE === undefined && RECORDING_SCENARIOS.some((s) => (!s.pending && !s.variants) || forced(s));
    if (MODE || runsOurs) {
      ({ claudeBin, sdkEntry } = ensureClaudeCode((l) => process.stderr.write(`[recordings] ${l}\n`)));
    }
    if (runsOurs) ensureRunnerBuilt();
  });

  test('scenario names are unique and every recording directory belongs to a scenario', () => {
    const names = RECORDING_SCENARIOS.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    let dirs: string[] = [];
    try {
      dirs = readdirSync(RECORDINGS_DIR);
    } catch {
      dirs = [];
    }
    expect(dirs.filter((d) => !names.includes(d))).toEqual([]);
  });

  for (const s of RECORDING_SCENARIOS) {
    if (MODE === '1' || MODE === 'check') {
      test(`${s.name}: record ${s.title}`, async () => {
        const missing = (s.requires ?? []).filter((c) => spawnSync('sh', ['-c', `command -v ${c}`]).status !== 0);
        if (missing.length > 0)
          throw new Error(`${s.name} needs ${missing.join(', ')} on PATH (e.g. apt-get install poppler-utils)`);
        const capture = await recordScenario(s, 'claude', { claudeBin, sdkEntry });
        const files = fixtureFiles(s, capture);
        if (MODE === '1') writeFixture(s.name, files);
        else {
          const committed = readFixture(s.name);
          expect(committed && stableView(committed)).toEqual(stableView(files));
        }
      });
    } else {
      test(`${s.name}: the recording is committed and well formed`, () => {
        const f = readFixture(s.name);
        if (!f)
          throw new Error(`no recording for ${s.name}: run CONFORMANCE_RECORD=1 npx jest ${__filename} -t ${s.name}`);
        const meta = JSON.parse(f['meta.json'] ?? '{}') as Record<string, unknown>;
        expect({ scenario: meta['scenario'], issue: meta['issue'] }).toEqual({ scenario: s.name, issue: s.issue });
        for (const [file, text] of Object.entries(f)) {
          if (file.endsWith('.jsonl'))
            text
              .split('\n')
              .filter(Boolean)
              .forEach((l) => JSON.parse(l));
          else JSON.parse(text);
        }
      });
    }
    if ((s.pending || s.variants) && !forced(s)) {
      test.todo(
        `${s.name}: agent-runner matches the recording (${s.pending ?? 'a matrix: compared by test/unit/activities/model/thinking-params.test.ts or by hand'})`,
      );
    } else if (MODE === undefined) {
      test(`${s.name}: agent-runner matches the recording`, async () => {
        const committed = readFixture(s.name);
        if (!committed) throw new Error(`no recording for ${s.name}`);
        const capture = await recordScenario(s, 'ours', { claudeBin, sdkEntry });
        // `CONFORMANCE_DEBUG=1`: the runner's stderr, to see why a run differs.
        if (process.env['CONFORMANCE_DEBUG'])
          process.stderr.write(`[${s.name}] ours stderr:\n${capture.first.stderr}\n`);
        const ours = fixtureFiles(s, capture);
        const runs = { claude: sideRunOf('claude', committed), ours: sideRunOf('ours', ours) };
        const diffs = [...compareProbes(runs), ...compareRuns(runs)].filter((d) => !knownDifferenceFor(d, s.name));
        expect(formatDifferences(diffs)).toBe('');
      });
    }
  }
});
