import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBackgroundServerEarly } from '../../../src/host/early-server';
import { loadConfig } from '../../../src/config';

describe('startBackgroundServerEarly', () => {
  const configFor = (dataDir: string, extra: NodeJS.ProcessEnv = {}) =>
    loadConfig({ env: { AGENT_RUNNER_DATA_DIR: dataDir, ...extra }, cwd: tmpdir() });

  test('startBackgroundServerEarly: spawns nothing for a configured Temporal address, a recorded server, or a missing API key', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dar-early-unit-'));
    expect(
      await startBackgroundServerEarly(configFor(dataDir, { TEMPORAL_ADDRESS: 'temporal.example:7233' }), null, {
        ANTHROPIC_API_KEY: 'k',
      }),
    ).toBe(false);
    expect(await startBackgroundServerEarly(configFor(dataDir), null, {})).toBe(false);
    writeFileSync(join(dataDir, 'server.json'), JSON.stringify({ v: 1, address: '127.0.0.1:1', pid: 1, uiUrl: null }));
    expect(await startBackgroundServerEarly(configFor(dataDir), null, { ANTHROPIC_API_KEY: 'k' })).toBe(false);
    expect(readdirSync(dataDir)).toEqual(['server.json']);
  });
});
