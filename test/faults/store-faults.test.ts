import { mkdirSync, symlinkSync } from 'node:fs';
import { installRuntimeLogging } from '../../src/worker/logging';
import { sessionsDir, transcriptPath } from '../../src/store/jsonl-store';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

installRuntimeLogging('WARN');

describe('faults: the transcript store cannot be written', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('store faults: a full disk (the session file is /dev/full) ends the turn with a clear error', async () => {
    env = await startRunnerEnv({ scenario: { steps: [{ content: [{ text: 'never' }] }] } });
    const engine = env.engine({ cwd: makeRepo({}) });
    mkdirSync(sessionsDir(env.dataDir), { recursive: true });
    symlinkSync('/dev/full', transcriptPath(env.dataDir, engine.sessionId));
    const started = Date.now();
    let outcome: unknown;
    try {
      outcome = (await env.runTurn(engine, 'hello')).result;
    } catch (e) {
      outcome = e;
    }
    console.log(Date.now() - started, outcome);
  }, 600_000);
});
