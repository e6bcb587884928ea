import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ParsedRequest } from '../../src/fake-model';
import type { StepSpec } from '../../src/fake-model';
import { installRuntimeLogging } from '../../src/worker/logging';
import { makeRepo, startRunnerEnv, testTurnOptions } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { lastUserText, textStep, toolCall, waitFor } from '../helpers/model-requests';
import { startWorkerProcess } from '../helpers/worker-process';
import type { WorkerProcess } from '../helpers/worker-process';
import { NOTIFICATION_HEAD } from '../../src/activities/agents/texts';

installRuntimeLogging('WARN');

const LAUNCH =
  /^Command running in background with ID: (b[0-9a-z]{8})\. Output is being written to: (\S+\.output)\. You will be notified when it completes\. To check interim output, use Read on that file path\.$/;

const tool = toolCall;
const text = textStep;

/** Every request the model got, with the last user text (to find launches and notifications). */
function recorder(play: (req: ParsedRequest, step: number, seen: string[]) => StepSpec): {
  seen: string[];
  responder: (req: ParsedRequest, ctx: { step: number }) => StepSpec;
} {
  const seen: string[] = [];
  return {
    seen,
    responder: (req, ctx) => {
      seen.push(lastUserText(req));
      return play(req, ctx.step, seen);
    },
  };
}

/** The task id and output file of the launch text in `seen`. */
function launched(seen: string[]): { id: string; file: string } {
  for (const s of seen) {
    const m = LAUNCH.exec(s);
    if (m) return { id: m[1]!, file: m[2]! };
  }
  throw new Error(`no launch text in ${JSON.stringify(seen)}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('background Bash (run_in_background) as a task of the session', () => {
  let env: RunnerEnv | undefined;
  const workers: WorkerProcess[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.kill9().catch(() => undefined);
    await env?.close();
    env = undefined;
  });

  test("background Bash: the launch text is Claude Code's, the output file fills, and its exit starts a notification turn with 2.1.328's text", async () => {
    const r = recorder((_req, step) =>
      step === 0
        ? tool('Bash', { command: 'echo built; sleep 1', description: 'Build', run_in_background: true }, 'toolu_bg_1')
        : step === 1
          ? text('The build is running.')
          : text('Build done.'),
    );
    env = await startRunnerEnv({ responder: r.responder });
    const engine = env.engine({ cwd: makeRepo({ 'a.txt': 'a\n' }) });
    const first = await env.runTurn(engine, 'build it in the background');
    expect(first.result).toMatchObject({ subtype: 'success', result: 'The build is running.' });
    const { id, file } = launched(r.seen);
    await waitFor('the notification turn', () => (r.seen.length >= 3 ? true : undefined));
    expect(r.seen[2]).toBe(
      `${NOTIFICATION_HEAD}<task-notification>\n<task-id>${id}</task-id>\n<tool-use-id>toolu_bg_1</tool-use-id>\n<output-file>${file}</output-file>\n<status>completed</status>\n<summary>Background command "Build" completed (exit code 0)</summary>\n</task-notification>\n</system-reminder>`,
    );
    expect(readFileSync(file, 'utf8')).toBe('built\n\n[exited with code 0]\n');
    // The notification turn answered; the transcript has it after the notification line.
    const s = env.store;
    await waitFor('the answer of the notification turn', async () =>
      (await s.load(engine.sessionId)).some(
        (l) => l.type === 'assistant' && JSON.stringify(l.message).includes('Build done.'),
      )
        ? true
        : undefined,
    );
  }, 90_000);

  test('background Bash: a failing command notifies failed with its exit code', async () => {
    const r = recorder((_req, step) =>
      step === 0
        ? tool('Bash', { command: 'echo oops; exit 3', description: 'Fail', run_in_background: true }, 'toolu_bg_2')
        : text(step === 1 ? 'Started.' : 'It failed.'),
    );
    env = await startRunnerEnv({ responder: r.responder });
    const engine = env.engine({ cwd: makeRepo({ 'a.txt': 'a\n' }) });
    await env.runTurn(engine, 'run the failing thing');
    const { file } = launched(r.seen);
    await waitFor('the notification turn', () => (r.seen.length >= 3 ? true : undefined));
    expect(r.seen[2]).toContain(
      '<status>failed</status>\n<summary>Background command "Fail" failed with exit code 3</summary>',
    );
    expect(readFileSync(file, 'utf8')).toBe('oops\n\n[exited with code 3]\n');
  }, 90_000);

  test('background Bash: past its timeout the command is killed and the notification says so, with the note', async () => {
    const r = recorder((_req, step) =>
      step === 0
        ? tool(
            'Bash',
            { command: 'echo started; sleep 30', description: 'Wait', run_in_background: true, timeout: 2000 },
            'toolu_bg_3',
          )
        : text(step === 1 ? 'Waiting.' : 'It was stopped.'),
    );
    env = await startRunnerEnv({ responder: r.responder });
    const engine = env.engine({ cwd: makeRepo({ 'a.txt': 'a\n' }) });
    const t0 = Date.now();
    await env.runTurn(engine, 'wait in the background');
    const { file } = launched(r.seen);
    await waitFor('the notification turn', () => (r.seen.length >= 3 ? true : undefined));
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(r.seen[2]).toContain(
      '<status>killed</status>\n<summary>Background command "Wait" was stopped after reaching its background time limit</summary>\n<note>If the work in progress still needs it, start it again with `run_in_background` and a longer `timeout`.',
    );
    expect(readFileSync(file, 'utf8')).toBe('started\n\n[killed]\n');
  }, 90_000);

  test("background Bash: TaskStop kills the command's process group, answers with 2.1.328's JSON, and no notification turn follows", async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const r = recorder((_req, step, seen) =>
      step === 0
        ? tool(
            'Bash',
            { command: `echo $$ > ${repo}/pid; sleep 30`, description: 'Wait', run_in_background: true },
            'toolu_bg_4',
          )
        : step === 1
          ? tool('TaskStop', { task_id: launched(seen).id }, 'toolu_stop_4')
          : text(step === 2 ? 'Stopped.' : 'Unexpected.'),
    );
    env = await startRunnerEnv({ responder: r.responder });
    // `subagents` set: the task tools (TaskStop among them) are offered.
    const engine = env.engine({ cwd: repo, defaults: testTurnOptions({ subagents: {} }) });
    // The pid file is written as the command starts; TaskStop comes at step 1.
    const first = await env.runTurn(engine, 'start and stop');
    expect(first.result).toMatchObject({ subtype: 'success', result: 'Stopped.' });
    const { id, file } = launched(r.seen);
    expect(r.seen[2]).toBe(
      JSON.stringify({
        message: `Successfully stopped task: ${id} (echo $$ > ${repo}/pid; sleep 30)`,
        task_id: id,
        task_type: 'local_bash',
        command: `echo $$ > ${repo}/pid; sleep 30`,
      }),
    );
    await waitFor(
      'the [killed] trailer',
      () => (readFileSync(file, 'utf8').endsWith('\n[killed]\n') ? true : undefined),
      20_000,
    );
    const pid = Number(readFileSync(join(repo, 'pid'), 'utf8'));
    await waitFor('the command to die', () => (!alive(pid) ? true : undefined), 10_000);
    await new Promise((res) => setTimeout(res, 3000));
    expect(r.seen).toHaveLength(3);
  }, 90_000);

  test('background Bash: kill -9 of the worker running the command kills it too; the task fails as lost (outcome unknown), it is not re-run, and the model is told', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const r = recorder((_req, step) =>
      step === 0
        ? tool(
            'Bash',
            {
              command: `echo run >> ${repo}/runs; echo $$ > ${repo}/pid; sleep 60`,
              description: 'Long',
              run_in_background: true,
            },
            'toolu_bg_5',
          )
        : text(step === 1 ? 'Running.' : 'Lost.'),
    );
    env = await startRunnerEnv({ responder: r.responder, worker: false });
    workers.push(await startWorkerProcess(env.workerEnv));
    const engine = env.engine({ cwd: repo });
    await env.runTurn(engine, 'run the long thing');
    await waitFor('the command to start', () => (existsSync(join(repo, 'pid')) ? true : undefined));
    const pid = Number(readFileSync(join(repo, 'pid'), 'utf8'));
    expect(alive(pid)).toBe(true);
    await workers[0]!.kill9();
    await waitFor('the command to die with its worker', () => (!alive(pid) ? true : undefined), 10_000);
    workers.push(await startWorkerProcess(env.workerEnv));
    await waitFor('the notification turn', () => (r.seen.length >= 3 ? true : undefined), 60_000);
    expect(r.seen[2]).toContain('<status>failed</status>');
    expect(r.seen[2]).toContain('has an unknown outcome: the worker running it stopped');
    expect(r.seen[2]).toContain('<note>The command was not run again');
    expect(readFileSync(join(repo, 'runs'), 'utf8')).toBe('run\n');
  }, 120_000);
});
