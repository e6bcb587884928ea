import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SDKResultMessage } from '../../src/common/sdk-messages';
import { installRuntimeLogging } from '../../src/worker/logging';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { collect, expectIntactTranscript, startChildWorker, waitFor } from './helpers/fault-env';
import type { ChildWorker } from './helpers/fault-env';
import { isProcessAlive } from '../helpers/processes';

installRuntimeLogging('WARN');

/** Two sleeps in the command's process group (one in the background); their pids go to `pids`. */
const COMMAND = 'sleep 24 & echo $! > pids; sleep 24 & echo $! >> pids; wait';
const REPEATS = 5;

async function pidsOf(repo: string): Promise<number[]> {
  const file = join(repo, 'pids');
  await waitFor(
    'the command to start',
    () => existsSync(file) && readFileSync(file, 'utf8').trim().split('\n').length === 2,
  );
  return readFileSync(file, 'utf8').trim().split('\n').map(Number);
}

/** Milliseconds until every pid is gone (polled every 10 ms), or Infinity after `limitMs`. */
async function msUntilGone(pids: number[], since: number, limitMs = 10_000): Promise<number> {
  while (pids.some(isProcessAlive)) {
    if (Date.now() - since > limitMs) return Infinity;
    await sleep(10);
  }
  return Date.now() - since;
}

describe('faults: the processes of a Bash command', () => {
  let env: RunnerEnv;
  let worker: ChildWorker | undefined;
  afterEach(async () => {
    await worker?.stop().catch(() => undefined);
    worker = undefined;
    await env?.close();
  });

  test(`bash interrupt: an interrupt kills the command's process group within a second, ${REPEATS} times out of ${REPEATS}`, async () => {
    env = await startRunnerEnv({
      responder: (req) => {
        const answered = req.messages.filter((m) => m.role === 'assistant').length % 2 === 1;
        return answered
          ? { content: [{ text: 'stopped' }] }
          : { content: [{ tool_use: { name: 'Bash', input: { command: COMMAND } } }] };
      },
    });
    const killMs: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const repo = makeRepo({});
      const engine = env.engine({ cwd: repo });
      const turn = collect(engine.submitMessage(`run the sleeps (${i})`));
      const pids = await pidsOf(repo);
      await sleep(300);
      const sent = Date.now();
      await engine.interrupt('stop the sleeps');
      killMs.push(await msUntilGone(pids, sent));
      const result = (await turn).at(-1) as SDKResultMessage;
      expect(result).toMatchObject({ subtype: 'error_during_execution', errors: ['[interrupted] stop the sleeps'] });
      expectIntactTranscript(env.dataDir, engine.sessionId);
      await engine.end();
    }
    console.log(`bash interrupt: interrupt → process group gone: ${killMs.join(', ')} ms`);
    for (const ms of killMs) expect(ms).toBeLessThan(1000);
  }, 300_000);

  test('bash worker kill: kill -9 of the worker leaves none of its running commands behind; the turn goes on', async () => {
    env = await startRunnerEnv({
      worker: false,
      scenario: {
        steps: [
          { content: [{ tool_use: { name: 'Bash', input: { command: COMMAND } } }] },
          { expect: { lastToolResultContains: 'outcome is unknown' }, content: [{ text: 'may not have run' }] },
        ],
      },
    });
    const repo = makeRepo({});
    const engine = env.engine({ cwd: repo });
    worker = await startChildWorker(env.workerEnv, { stickyMs: 1000 });
    const turn = collect(engine.submitMessage('run the sleeps', { timeouts: { toolHeartbeatMs: 2000 } }));
    const pids = await pidsOf(repo);
    const killed = Date.now();
    await worker.kill9();
    const goneMs = await msUntilGone(pids, killed);
    worker = await startChildWorker(env.workerEnv, { stickyMs: 1000 });
    const result = (await turn).at(-1) as SDKResultMessage;
    expect(result).toMatchObject({ subtype: 'success', result: 'may not have run' });
    expectIntactTranscript(env.dataDir, engine.sessionId);
    console.log(`bash worker kill: kill -9 of the worker → its command's processes gone in ${goneMs} ms`);
    expect(goneMs).toBeLessThan(1000);
  }, 120_000);
});
