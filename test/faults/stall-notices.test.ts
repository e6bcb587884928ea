/**
 * Waits say what they wait for: a worker killed mid-Bash leaves the turn waiting for the
 * heartbeat timeout and for another worker; the client says so on stderr, and `status` shows the
 * dead worker's command as waiting, not as running.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Responder } from '../../src/fake-model';
import { installRuntimeLogging } from '../../src/worker/logging';
import { runCli } from '../helpers/cli';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { collect, startChildWorker, waitFor } from './helpers/fault-env';
import type { ChildWorker } from './helpers/fault-env';

installRuntimeLogging('ERROR');

const responder: Responder = (req) => {
  const step = req.messages.filter((m) => m.role === 'assistant').length;
  if (step === 0) {
    return { content: [{ tool_use: { name: 'Bash', input: { command: 'touch started.mark && sleep 60' } } }] };
  }
  return { content: [{ text: 'done' }] };
};

describe('faults: a stalled turn says what it waits for', () => {
  let env: RunnerEnv;
  const workers: ChildWorker[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop().catch(() => undefined);
    await env?.close();
  });

  test('stall notices: after kill -9 of the worker running a Bash, the client names the silent worker and the retry, status shows the command waiting, and the turn goes on on a new worker', async () => {
    env = await startRunnerEnv({ worker: false, responder });
    const repo = makeRepo({});
    workers.push(await startChildWorker(env.workerEnv));
    const notices: string[] = [];
    const engine = env.engine({ cwd: repo, stallNotice: (l) => notices.push(l) });
    const turn = collect(
      engine.submitMessage('run the long command', {
        timeouts: { modelHeartbeatMs: 5000, toolHeartbeatMs: 30_000, modelMaxAttempts: 4 },
      }),
    );
    await waitFor('the Bash to start', () => existsSync(join(repo, 'started.mark')), 60_000);
    await workers[0]!.kill9();
    const killed = Date.now();
    await waitFor(
      'a notice about the silent worker',
      () => notices.some((n) => /has not sent a heartbeat/.test(n)),
      30_000,
    );
    // `status` tells the truth: the command's worker is silent, it is not simply "running".
    const st = await runCli(['status', engine.sessionId], { env: env.workerEnv });
    expect(st.code).toBe(0);
    // (The session's worker is gone too, so the server alone answers: the turn's own label is not known.)
    expect(st.stdout).toMatch(/workflow\s+RUNNING: no worker answered its queries/);
    expect(st.stdout).toMatch(/waiting\s+the tool call: its worker \(\d+@[^)]+\) has not sent a heartbeat for \d+ s/);
    expect(st.stdout).not.toMatch(/activity\s+Bash/);
    expect(st.stdout).toMatch(/server\s+Temporal at /);
    // After the heartbeat timeout the call is retried, and no worker takes it: said too.
    await waitFor(
      'a notice about the retry',
      () => notices.some((n) => /is being retried|waits for a worker/.test(n)),
      60_000,
    );
    workers.push(await startChildWorker(env.workerEnv));
    const messages = await turn;
    const result = messages.at(-1);
    expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'done' });
    expect(notices.at(-1)).toBe('agent-runner: the turn goes on');
    for (const n of notices) expect(n).toMatch(/^agent-runner: /);
    console.log(
      `stall notices (${Math.round((Date.now() - killed) / 1000)} s after the kill):\n  ${notices.join('\n  ')}`,
    );
  });
});
