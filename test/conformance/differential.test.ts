/**
 * Differential conformance: each scenario runs with the real `claude -p` (the pinned npm package,
 * installed on demand into .cache/claude-code) and with `agent-runner -p`, against the same
 * scripted model and identical repositories; any difference not in known-differences.ts fails
 * with a readable report. Run: `npx jest test/conformance` (needs the npm registry the first
 * time, and a Temporal CLI as for the other tests).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Difference } from './compare';
import { compareRuns, compareToolSchemas, formatDifferences } from './compare';
import { ensureClaudeCode, REPO_ROOT } from './install';
import { KNOWN_DIFFERENCES, knownDifferenceFor } from './known-differences';
import type { ScriptedModel, Side, SideRun } from './run';
import { ensureRunnerBuilt, runScenario, startScriptedModel } from './run';
import { SCENARIOS } from './scenarios';

jest.setTimeout(600_000);

const used = new Set<string>();
const completed = new Set<string>();
const runsByScenario = new Map<string, Record<Side, SideRun>>();
let claudeBin = '';
let model: ScriptedModel;

function unexpected(diffs: readonly Difference[], scenario: string): Difference[] {
  return diffs.filter((d) => {
    const k = knownDifferenceFor(d, scenario);
    if (k) used.add(k.id);
    return !k;
  });
}

function report(scenario: string, runs: Record<Side, SideRun>, diffs: readonly Difference[]): string {
  if (diffs.length === 0) return '';
  const tail = (s: string): string => s.split('\n').slice(-15).join('\n');
  return [
    `${diffs.length} unexpected difference(s) in scenario ${scenario} (claude exit ${String(runs.claude.exitCode)}, ours exit ${String(runs.ours.exitCode)}):`,
    formatDifferences(diffs),
    '',
    `claude stderr (tail):\n${tail(runs.claude.stderr)}`,
    `ours stderr (tail):\n${tail(runs.ours.stderr)}`,
    'Either change the runner to match, or add the difference with its reason to',
    'test/conformance/known-differences.ts and docs/compatibility.md.',
  ].join('\n');
}

beforeAll(async () => {
  claudeBin = ensureClaudeCode((l) => process.stderr.write(`[conformance] ${l}\n`)).claudeBin;
  ensureRunnerBuilt();
  model = await startScriptedModel(SCENARIOS);
});

afterAll(async () => {
  await model?.close();
});

describe('claude -p vs agent-runner -p', () => {
  for (const s of SCENARIOS) {
    test(`${s.name}: ${s.title}`, async () => {
      const runs = await runScenario(s, { claudeBin, model });
      runsByScenario.set(s.name, runs);
      expect(runs.claude.messages.length).toBeGreaterThan(0);
      const opts = s.systemTail !== undefined ? { systemTail: s.systemTail } : {};
      expect(report(s.name, runs, unexpected(compareRuns(runs, opts), s.name))).toBe('');
      completed.add(s.name);
    });
  }

  test('tool schemas: the same tools with the same input properties', () => {
    const runs = runsByScenario.get('text-only');
    if (!runs) throw new Error('the text-only scenario did not run');
    const diffs = compareToolSchemas(runs.claude.requests[0], runs.ours.requests[0]);
    expect(report('tool-schemas', runs, unexpected(diffs, 'tool-schemas'))).toBe('');
    completed.add('tool-schemas');
  });

  test('known differences: each is documented in docs/compatibility.md and still occurs', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'compatibility.md'), 'utf8');
    const undocumented = KNOWN_DIFFERENCES.filter((k) => !doc.includes(`\`${k.id}\``)).map((k) => k.id);
    expect(undocumented).toEqual([]);
    // Only meaningful when every scenario ran and passed (not under `-t`).
    // Entries of recording scenarios only (recordings.test.ts) are checked by those runs.
    const differential = new Set([...SCENARIOS.map((s) => s.name), 'tool-schemas']);
    const here = KNOWN_DIFFERENCES.filter(
      (k) => k.scenarios === undefined || k.scenarios.some((n) => differential.has(n)),
    );
    if (completed.size === SCENARIOS.length + 1) {
      expect(here.filter((k) => !used.has(k.id)).map((k) => k.id)).toEqual([]);
    }
  });
});
