/**
 * Durable approvals on a real Temporal dev server: a turn waits for a person across restarts of
 * the `-p` process and of every worker, is answered from another process, and finishes with
 * nothing lost and no tool run twice; a waiting turn holds no activity slot; a timeout applies
 * the default decision and the denial is reported.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RUNNING_SESSION_QUERY_MS, listApprovals } from '../../src/client/approvals';
import type { SDKMessage } from '../../src/common/sdk-messages';
import { SA } from '../../src/common/search-attributes';
import { sessionWorkflowId } from '../../src/common/ids';
import { BIN, runCli } from '../helpers/cli';
import type { RunnerEnv } from '../helpers/runner-env';
import { makeRepo, startRunnerEnv, testTurnOptions } from '../helpers/runner-env';
import { startWorkerProcess } from '../helpers/worker-process';

/** How long nobody answers while everything is down (the issue asks for a minute). */
const WAIT_MS = Number(process.env['APPROVAL_RESTART_WAIT_MS'] ?? 60_000);

jest.setTimeout(WAIT_MS + 240_000);

const bash = (command: string) => ({ content: [{ tool_use: { name: 'Bash', input: { command, description: 'x' } } }] });
const done = { content: [{ text: 'Done.' }] };

let env: RunnerEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

test('approvals: a turn waits through a kill of -p and of every worker; approved a minute later from another process, it finishes with the tool run once', async () => {
  env = await startRunnerEnv({
    worker: false,
    scenario: { steps: [bash('echo ran >> ran.txt'), done] },
  });
  const e = env;
  const repo = makeRepo({});
  let worker = await startWorkerProcess(e.workerEnv);
  const p = spawn(
    process.execPath,
    [BIN, '-p', 'run it', '--cwd', repo, '--wait-for-approval', '--output-format', 'stream-json', '--verbose'],
    { env: e.workerEnv, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  p.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  p.stdout.resume();
  const pExited = new Promise((resolve) => p.once('exit', resolve));
  const pending = await waitFor('a pending approval', async () => {
    const list = await listApprovals(e.client, e.store);
    return list.length ? list : undefined;
  });
  expect(pending).toHaveLength(1);
  const approval = pending[0]!;
  expect(approval).toMatchObject({ toolName: 'Bash', input: { command: 'echo ran >> ran.txt' }, onTimeout: 'deny' });
  await waitFor('the waiting notice', async () => (stderr.includes('waiting for approval') ? true : undefined));

  // Everything goes away: the client, then every worker.
  p.kill('SIGKILL');
  await pExited;
  await worker.kill9();
  await sleep(WAIT_MS);
  worker = await startWorkerProcess(e.workerEnv);
  try {
    // Still waiting, and visible from a new process.
    const listed = await runCli(['approvals', 'list', '--json'], { env: e.workerEnv });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout.trim())).toMatchObject({ approvalId: approval.approvalId, toolName: 'Bash' });
    const status = await runCli(['status', approval.sessionId, '--json'], { env: e.workerEnv });
    expect(JSON.parse(status.stdout).turn.activity).toContain('waitApproval Bash');

    const approved = await runCli(['approvals', 'approve', approval.approvalId], { env: e.workerEnv });
    expect(approved).toMatchObject({ code: 0 });
    expect(approved.stdout).toContain(`approved: ${approval.approvalId} (Bash)`);

    const engine = e.engine({ cwd: repo, sessionId: approval.sessionId });
    const messages: SDKMessage[] = [];
    for await (const m of engine.follow({ turnWorkflowId: approval.turnWorkflowId, offset: 0 })) messages.push(m);
    const result = messages.at(-1);
    expect(result).toMatchObject({ type: 'result', subtype: 'success', permission_denials: [] });
    expect(readFileSync(join(repo, 'ran.txt'), 'utf8')).toBe('ran\n');
    const lines = await e.store.load(approval.sessionId);
    const results = lines.filter((l) => JSON.stringify(l.message?.content ?? '').includes(approval.toolUseId));
    expect(results.filter((l) => l.type === 'user')).toHaveLength(1);
    // Answering again is refused: the approval is gone.
    const again = await runCli(['approvals', 'answer', JSON.stringify({ id: approval.approvalId, behavior: 'deny' })], {
      env: e.workerEnv,
    });
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ ok: false, approvalId: approval.approvalId });
    await e.client.workflow
      .getHandle(sessionWorkflowId(approval.sessionId))
      .terminate('test done')
      .catch(() => undefined);
  } finally {
    await worker.stop();
  }
});

test('approvals: a waiting turn holds no activity slot, and its timeout denies the call (permission_denials)', async () => {
  env = await startRunnerEnv({
    worker: false,
    scenario: {
      scripts: [
        {
          name: 'waits',
          match: { promptContains: 'needs approval' },
          steps: [bash('echo waited >> waited.txt'), done],
        },
        { name: 'busy', match: { promptContains: 'runs tools' }, steps: [bash('echo one'), bash('echo two'), done] },
      ],
    },
  });
  const e = env;
  // One activity slot: if the waiting turn held it, the other turn's tools could not run.
  e.config.worker.maxConcurrentActivityTaskExecutions = 1;
  await e.startWorker();
  const repo = makeRepo({});
  const waiting = e.engine({
    cwd: repo,
    defaults: testTurnOptions({
      permissionMode: 'default',
      approvals: { timeoutMs: 20_000, onTimeout: 'deny' },
    }),
  });
  const waitingTurn = e.runTurn(waiting, 'this needs approval');
  await waitFor('the approval', async () => {
    const list = await listApprovals(e.client, e.store, { sessionId: waiting.sessionId });
    return list.length ? list : undefined;
  });
  const started = Date.now();
  const busy = await e.runTurn(e.engine({ cwd: repo }), 'this runs tools');
  expect(busy.result).toMatchObject({ subtype: 'success', num_turns: 3 });
  // The other turn finished while this one was still waiting.
  expect((await listApprovals(e.client, e.store, { sessionId: waiting.sessionId })).length).toBe(1);
  expect(Date.now() - started).toBeLessThan(20_000);

  const { messages, result } = await waitingTurn;
  expect(result).toMatchObject({
    subtype: 'success',
    permission_denials: [{ tool_name: 'Bash', tool_input: { command: 'echo waited >> waited.txt', description: 'x' } }],
  });
  const toolResult = messages.find((m) => m.type === 'user' && JSON.stringify(m).includes('in time'));
  expect(toolResult).toBeDefined();
  expect(() => readFileSync(join(repo, 'waited.txt'))).toThrow();
});

test('approvals: listing asks no idle session, so sessions whose workers are gone do not hold it', async () => {
  // Idle sessions left running on the server by a process whose worker is gone (as every test
  // and every finished `-p` leaves them until their idle timeout is processed).
  const old = await startRunnerEnv({ scenario: { steps: [done] } });
  const repo = makeRepo({});
  const orphaned: string[] = [];
  for (let i = 0; i < 3; i++) {
    const engine = old.engine({ cwd: repo });
    await old.runTurn(engine, 'hello');
    orphaned.push(engine.sessionId);
  }
  // Their worker gone only once they show as idle (the session sets AgentStatus after the turn).
  await waitFor('idle sessions', async () => {
    for (const id of orphaned) {
      const d = await old.client.workflow.getHandle(sessionWorkflowId(id)).describe();
      if (d.typedSearchAttributes.get(SA.status) !== 'success') return undefined;
    }
    return true;
  });
  await old.close();
  env = await startRunnerEnv({ worker: false, scenario: { steps: [done] } });
  const started = Date.now();
  const list = await listApprovals(env.client, env.store);
  // A query to a session without a worker waits for the server's query timeout (about 30 s
  // each, measured on the dev server): asking these three one by one took 88 s.
  expect(Date.now() - started).toBeLessThan(20_000);
  expect(list.filter((a) => orphaned.includes(a.sessionId))).toEqual([]);
});

test('approvals: a session left running by a dead worker holds the listing at most a few seconds, and is named', async () => {
  env = await startRunnerEnv({ worker: false, scenario: { steps: [bash('touch started && sleep 120'), done] } });
  const e = env;
  const repo = makeRepo({});
  const worker = await startWorkerProcess(e.workerEnv);
  const engine = e.engine({ cwd: repo });
  const turn = engine.start('run it', testTurnOptions());
  await waitFor('the command to start', async () => (readFileSync(join(repo, 'started')) ? true : undefined));
  await worker.kill9();
  await turn.catch(() => undefined);
  const unanswered: string[] = [];
  const started = Date.now();
  const list = await listApprovals(e.client, e.store, { onUnanswered: (id) => unanswered.push(id) });
  // Its AgentStatus still says `running`: asked with a deadline, not the server's 30 s query timeout.
  expect(Date.now() - started).toBeLessThan(RUNNING_SESSION_QUERY_MS + 10_000);
  expect(unanswered).toContain(engine.sessionId);
  expect(list.filter((a) => a.sessionId === engine.sessionId)).toEqual([]);
});
