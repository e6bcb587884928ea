/**
 * The committed recordings of Claude Code 2.1.328's asynchronous tools (no CLI is run): each
 * scenario has a recording, each recording passes its scenario's checks, and nothing volatile
 * (temp paths, raw ids, timestamps) is left in them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareRuns } from './compare';
import { CLAUDE_CODE_VERSION } from './install';
import { asSideRun } from './async/compare-recordings';
import { RECORDINGS_DIR, loadRecording, recordedScenarios } from './async/recording';
import { ASYNC_SCENARIOS } from './async/scenarios';

describe('claude -p 2.1.328 recordings of the asynchronous tools', () => {
  test('recordings: one per scenario, none without a scenario', () => {
    expect(recordedScenarios()).toEqual(ASYNC_SCENARIOS.map((s) => s.name).sort());
  });

  for (const s of ASYNC_SCENARIOS) {
    test(`${s.name}: the recording passes the scenario's checks`, () => {
      const rec = loadRecording(join(RECORDINGS_DIR, s.name));
      expect(rec.meta).toMatchObject({ scenario: s.name, side: 'claude', version: CLAUDE_CODE_VERSION });
      s.check(rec);
      // What a run of ours will be compared with: the recording against itself shows no difference.
      expect(compareRuns({ claude: asSideRun(rec, 'claude'), ours: asSideRun(rec, 'ours') })).toEqual([]);
    });
  }

  test('recordings: normalised (no temp paths, raw uuids, agent ids or timestamps)', () => {
    const leftovers: string[] = [];
    for (const name of recordedScenarios()) {
      for (const file of ['requests.json', 'stream.jsonl', 'meta.json']) {
        const text = readFileSync(join(RECORDINGS_DIR, name, file), 'utf8');
        for (const re of [
          /conformance-async-[A-Za-z0-9]{6}/,
          /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/,
          /\ba[0-9a-f]{16}\b/,
          /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/,
          /msg_01fake[0-9a-f]{6}/,
        ]) {
          const m = re.exec(text);
          if (m) leftovers.push(`${name}/${file}: ${m[0]}`);
        }
      }
    }
    expect(leftovers).toEqual([]);
  });
});
