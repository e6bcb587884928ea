import { writeFileSync } from 'node:fs';
import { ensureRunnerBuilt } from './run';
import { runAsync } from './async/run';
import { normaliseRecording } from './async/normalise';
import { ASYNC_SCENARIOS } from './async/scenarios';
jest.setTimeout(300_000);
test('dump', async () => {
  ensureRunnerBuilt();
  const s = ASYNC_SCENARIOS.find((x) => x.name === process.env['DUMP'])!;
  const raw = await runAsync(s, 'ours', {});
  const rec = normaliseRecording(raw.recording, raw.paths);
  writeFileSync(`/tmp/i20-dump-${s.name}.json`, JSON.stringify(rec, null, 1));
});
