/**
 * AskUserQuestion through the durable approvals queue on a real Temporal dev server: the call
 * waits with no worker running and no client, is answered much later from another process with
 * `approvals approve --answers`, and the turn resumes with the answers in Claude Code 2.1.328's
 * words, nothing lost.
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { listApprovals } from '../../src/client/approvals';
import type { SDKMessage } from '../../src/common/sdk-messages';
import { sessionWorkflowId } from '../../src/common/ids';
import { BIN, runCli } from '../helpers/cli';
import type { RunnerEnv } from '../helpers/runner-env';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import { startWorkerProcess } from '../helpers/worker-process';

/** How long nobody answers while the client and every worker are down (the "10 minutes later", shortened). */
const WAIT_MS = Number(process.env['ASK_USER_QUESTION_WAIT_MS'] ?? 20_000);

jest.setTimeout(WAIT_MS + 240_000);

const QUESTION = 'Which database should the service use?';
const questions = [
  {
    question: QUESTION,
    header: 'Database',
    options: [
      { label: 'PostgreSQL', description: 'Relational, already deployed' },
      { label: 'SQLite', description: 'A file, no server' },
    ],
    multiSelect: false,
  },
];

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

test('AskUserQuestion: the question waits through a kill of -p and of the worker; answered later with approvals approve --answers, the turn resumes with the answers', async () => {
  env = await startRunnerEnv({
    worker: false,
    scenario: {
      steps: [
        { content: [{ tool_use: { name: 'AskUserQuestion', input: { questions } } }] },
        { content: [{ text: 'Done.' }] },
      ],
    },
  });
  const e = env;
  const repo = makeRepo({});
  let worker = await startWorkerProcess(e.workerEnv);
  const p = spawn(
    process.execPath,
    [BIN, '-p', 'ask me', '--cwd', repo, '--tools', 'Read,AskUserQuestion', '--wait-for-approval'],
    { env: e.workerEnv, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  p.stdout.resume();
  p.stderr.resume();
  const pExited = new Promise((resolve) => p.once('exit', resolve));
  const pending = await waitFor('the question', async () => {
    const list = await listApprovals(e.client, e.store);
    return list.length ? list : undefined;
  });
  expect(pending).toHaveLength(1);
  const approval = pending[0]!;
  expect(approval).toMatchObject({ toolName: 'AskUserQuestion', reason: 'Answer questions?', input: { questions } });

  p.kill('SIGKILL');
  await pExited;
  await worker.kill9();
  await sleep(WAIT_MS);
  worker = await startWorkerProcess(e.workerEnv);
  try {
    // A bad answer is refused with a clear error and the question still waits.
    const bad = await runCli(['approvals', 'approve', approval.approvalId, '--answers', '{"x": 1}'], {
      env: e.workerEnv,
    });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--answers: the answer to "x" must be a string');

    const answered = await runCli(
      ['approvals', 'approve', approval.approvalId, '--answers', JSON.stringify({ [QUESTION]: 'PostgreSQL' })],
      { env: e.workerEnv },
    );
    expect(answered).toMatchObject({ code: 0 });

    const engine = e.engine({ cwd: repo, sessionId: approval.sessionId });
    const messages: SDKMessage[] = [];
    for await (const m of engine.follow({ turnWorkflowId: approval.turnWorkflowId, offset: 0 })) messages.push(m);
    expect(messages.at(-1)).toMatchObject({
      type: 'result',
      subtype: 'success',
      result: 'Done.',
      permission_denials: [],
    });
    const toolResult = messages.find((m) => m.type === 'user' && JSON.stringify(m).includes(approval.toolUseId));
    expect(toolResult).toMatchObject({
      message: {
        content: [
          {
            type: 'tool_result',
            tool_use_id: approval.toolUseId,
            content: `Your questions have been answered: "${QUESTION}"="PostgreSQL". You can now continue with these answers in mind.`,
          },
        ],
      },
      tool_use_result: { questions, answers: { [QUESTION]: 'PostgreSQL' } },
    });
    const lines = await e.store.load(approval.sessionId);
    expect(
      lines.filter((l) => l.type === 'user' && JSON.stringify(l.message?.content ?? '').includes(approval.toolUseId)),
    ).toHaveLength(1);
    await e.client.workflow
      .getHandle(sessionWorkflowId(approval.sessionId))
      .terminate('test done')
      .catch(() => undefined);
  } finally {
    await worker.stop();
  }
});
