import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { repeatedCompletedCalls } from '../../src/fake-model';
import type { SDKResultMessage } from '../../src/common/sdk-messages';
import { SEARCH_ATTRIBUTES } from '../../src/common/search-attributes';
import { findFreePort, findTemporalCli, startDevServer } from '../../src/host/dev-server';
import type { DevServer } from '../../src/host/dev-server';
import { installRuntimeLogging } from '../../src/worker/logging';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { collect, expectIntactTranscript, waitFor } from './helpers/fault-env';

installRuntimeLogging('ERROR');

const STEPS = 8;

describe('faults: the Temporal server restarts mid-turn', () => {
  let env: RunnerEnv | undefined;
  let server: DevServer | undefined;
  afterEach(async () => {
    await env?.close();
    await server?.stop();
  });

  test('server restart: the dev server is stopped mid-turn and started again on the same port and database; the turn completes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dar-restart-'));
    const port = await findFreePort();
    const start = (): Promise<DevServer> =>
      startDevServer({
        cliPath: findTemporalCli(),
        dataDir,
        dbFilename: 'temporal.db',
        port,
        searchAttributes: { ...SEARCH_ATTRIBUTES },
        logLevel: 'error',
      });
    server = await start();
    // startRunnerEnv connects to TEST_TEMPORAL_ADDRESS: point it at this test's own server.
    const shared = process.env['TEST_TEMPORAL_ADDRESS'];
    process.env['TEST_TEMPORAL_ADDRESS'] = server.address;
    try {
      env = await startRunnerEnv({
        scenario: {
          steps: [
            ...Array.from({ length: STEPS }, (_, i) => ({
              delay_ms: 200,
              content: [{ tool_use: { name: 'Bash', input: { command: `sleep 0.3 && echo ${i} >> runs.log` } } }],
            })),
            { content: [{ text: 'survived' }] },
          ],
        },
      });
    } finally {
      process.env['TEST_TEMPORAL_ADDRESS'] = shared;
    }
    const repo = makeRepo({});
    const engine = env.engine({ cwd: repo });
    const turn = collect(
      engine.submitMessage('keep going', { timeouts: { modelHeartbeatMs: 5000, toolHeartbeatMs: 5000 } }),
    );
    const fake = env.fake;
    await waitFor('two model calls', () => fake.completedCalls().length >= 2);
    const down = Date.now();
    await server.stop();
    await sleep(2000);
    server = await start();
    const downMs = Date.now() - down;
    const messages = await turn;
    const result = messages.at(-1) as SDKResultMessage;
    expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'survived', num_turns: STEPS + 1 });
    expect(repeatedCompletedCalls(fake.requests())).toEqual([]);
    const runs = readFileSync(join(repo, 'runs.log'), 'utf8').trim().split('\n');
    expect(new Set(runs).size).toBe(runs.length); // no Bash step ran twice
    const report = expectIntactTranscript(env.dataDir, engine.sessionId);
    expect(report).toMatchObject({ toolUses: STEPS, toolResults: STEPS });
    console.log(`server restart: down for ${downMs} ms; ${runs.length} Bash runs recorded of ${STEPS}`);
  }, 180_000);
});
