import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SDKMessage, SDKResultMessage } from '../../src/common/sdk-messages';
import { repeatedCompletedCalls } from '../../src/fake-model';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { startWorkerProcess } from '../helpers/worker-process';
import type { WorkerProcess } from '../helpers/worker-process';

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function collect(gen: AsyncGenerator<SDKMessage>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const m of gen) out.push(m);
  return out;
}

describe('crash recovery: kill -9 of the worker process mid-turn', () => {
  let env: RunnerEnv;
  const workers: WorkerProcess[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop().catch(() => undefined);
    await env?.close();
  });

  async function assertCleanTranscript(sessionId: string): Promise<void> {
    const lines = await env.store.load(sessionId);
    const uuids = lines.map((l) => l.uuid);
    expect(new Set(uuids).size).toBe(uuids.length);
    expect(repeatedCompletedCalls(env.fake.requests())).toEqual([]);
  }

  test('crash recovery: a worker killed during a slow Bash run; the new worker reports an unknown outcome and the turn succeeds', async () => {
    env = await startRunnerEnv({
      worker: false,
      scenario: {
        steps: [
          {
            content: [
              {
                tool_use: { name: 'Bash', input: { command: 'touch started && sleep 4 && echo finished > done.txt' } },
              },
            ],
          },
          {
            expect: { lastToolResultContains: 'outcome is unknown' },
            content: [{ text: 'The command may not have run; stopping here.' }],
          },
        ],
      },
    });
    const repo = makeRepo({});
    workers.push(await startWorkerProcess(env.workerEnv));
    const engine = env.engine({ cwd: repo });
    const turn = collect(engine.submitMessage('run the slow command'));
    await waitFor('the Bash tool to start', () => existsSync(join(repo, 'started')));
    await workers[0]!.kill9();
    workers.push(await startWorkerProcess(env.workerEnv));
    const messages = await turn;
    const result = messages.at(-1) as SDKResultMessage;
    expect(result).toMatchObject({ type: 'result', subtype: 'success', num_turns: 2 });
    expect(env.fake.requests().filter((r) => r.outcome === 'completed')).toHaveLength(2);
    await assertCleanTranscript(engine.sessionId);
  });

  test('crash recovery: a worker killed while the model streams; the call is retried on a new worker and the turn succeeds', async () => {
    env = await startRunnerEnv({
      worker: false,
      scenario: {
        steps: [
          { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } }] },
          // About 35 SSE events (24 characters each), 200 ms apart: the stream takes ~7 s.
          { chunk_delay_ms: 200, content: [{ text: 'word '.repeat(150) }] },
        ],
      },
    });
    const repo = makeRepo({ 'a.txt': 'hello\n' });
    workers.push(await startWorkerProcess(env.workerEnv));
    const engine = env.engine({ cwd: repo });
    const turn = collect(engine.submitMessage('read a.txt'));
    // The log records a request when it ends: wait for step 0, then kill 2 s into step 1's 7 s stream.
    await waitFor('the first model call', () =>
      env.fake.requests().some((r) => r.step === 0 && r.outcome === 'completed'),
    );
    await sleep(2000);
    expect(env.fake.requests().filter((r) => r.step === 1 && r.outcome === 'completed')).toHaveLength(0);
    await workers[0]!.kill9();
    workers.push(await startWorkerProcess(env.workerEnv));
    const messages = await turn;
    const result = messages.at(-1) as SDKResultMessage;
    expect(result).toMatchObject({ type: 'result', subtype: 'success', num_turns: 2 });
    expect(result.result).toContain('word word');
    const step1 = env.fake.requests().filter((r) => r.step === 1);
    expect(step1.length).toBeGreaterThanOrEqual(2); // the cut call and its retry
    expect(step1.filter((r) => r.outcome === 'completed')).toHaveLength(1);
    await assertCleanTranscript(engine.sessionId);
  });
});
