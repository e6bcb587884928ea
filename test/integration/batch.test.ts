/**
 * runBatch against a real dev server: idempotent submission in the awkward cases (a session
 * workflow that completed without a turn, two runs of the same batch at once, a re-run after
 * everything finished) and a failed turn workflow reported as an error result.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowNotFoundError } from '@temporalio/client';
import { runBatch, taskSessionId } from '../../src/client/batch';
import type { BatchEvent } from '../../src/client/batch';
import type { BatchTask } from '../../src/client/batch-tasks';
import { firstUserText } from '../../src/fake-model/request';
import { repeatedCompletedCalls } from '../../src/fake-model';
import type { SessionInput } from '../../src/common/session';
import { WORKFLOW_STATE_VERSION } from '../../src/common/turn';
import { sessionWorkflowId, turnWorkflowId } from '../../src/common/ids';
import { makeRepo, startRunnerEnv, testTurnOptions } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

jest.setTimeout(90_000);

function tasks(n: number, cwd: string, prefix = 't'): BatchTask[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}${i}`,
    line: i + 1,
    prompt: `task ${prefix}${i}: answer`,
    cwd,
    options: {},
  }));
}

async function exists(env: RunnerEnv, workflowId: string): Promise<boolean> {
  try {
    await env.client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return false;
    throw e;
  }
}

describe('runBatch', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  const responder = (req: Parameters<NonNullable<Parameters<typeof startRunnerEnv>[0]>['responder'] & object>[0]) => {
    const id = /task (\S+):/.exec(firstUserText(req))?.[1] ?? '?';
    return { delay_ms: 300, content: [{ text: `done ${id}` }] };
  };

  test('batch: a session workflow that completed without a turn gets its task run exactly once', async () => {
    env = await startRunnerEnv({ responder });
    const cwd = makeRepo({});
    const batchId = `empty-session-${Date.now()}`;
    const [task] = tasks(1, cwd);
    const sessionId = taskSessionId(batchId, task!.id);
    // A session started for the task whose submit never arrived: it idles out and completes.
    const input: SessionInput = {
      v: WORKFLOW_STATE_VERSION,
      sessionId,
      cwd,
      defaults: testTurnOptions(),
      idleTimeoutMs: 200,
    };
    const h = await env.client.workflow.start('sessionWorkflow', {
      workflowId: sessionWorkflowId(sessionId),
      taskQueue: env.taskQueue,
      args: [input],
    });
    await h.result();
    const summary = await runBatch({
      client: env.client,
      store: env.store,
      taskQueue: env.taskQueue,
      batchId,
      tasks: [task!],
      defaults: testTurnOptions(),
    });
    expect(summary.results).toHaveLength(1);
    expect(summary.results[0]).toMatchObject({
      subtype: 'success',
      result: 'done t0',
      task_id: 't0',
      batch_id: batchId,
    });
    expect(await exists(env, turnWorkflowId(sessionId, 1))).toBe(true);
    expect(await exists(env, turnWorkflowId(sessionId, 2))).toBe(false);
  });

  test("batch: a task's line is its session's last turn: a background command that fails after the answer is reported by the turn its end started", async () => {
    env = await startRunnerEnv({
      responder: (req) => {
        const step = req.messages.filter((m) => m.role === 'assistant').length;
        if (step === 0)
          return {
            content: [
              { tool_use: { name: 'Bash', input: { command: 'sleep 1; echo FAIL; exit 1', run_in_background: true } } },
            ],
          };
        if (step === 1) return { content: [{ text: 'started tests in background; reporting success' }] };
        return { content: [{ text: 'background tests FAILED' }] };
      },
    });
    const cwd = makeRepo({});
    const summary = await runBatch({
      client: env.client,
      store: env.store,
      taskQueue: env.taskQueue,
      batchId: `bg-${Date.now()}`,
      tasks: tasks(1, cwd),
      defaults: testTurnOptions(),
    });
    expect(summary.results).toHaveLength(1);
    const [r] = summary.results;
    expect(r).toMatchObject({ task_id: 't0', result: 'background tests FAILED' });
    // The session's total: three model calls over two turns.
    expect(env.fake.requests()).toHaveLength(3);
    expect(r!.total_cost_usd).toBeGreaterThan(0);
  });

  test('batch: two runs of the same batch at once start every task once and report the same results', async () => {
    env = await startRunnerEnv({ responder });
    const cwd = makeRepo({});
    const batchId = `twice-${Date.now()}`;
    const list = tasks(6, cwd);
    const sources: string[] = [];
    const run = (): ReturnType<typeof runBatch> =>
      runBatch({
        client: env.client,
        store: env.store,
        taskQueue: env.taskQueue,
        batchId,
        tasks: list,
        defaults: testTurnOptions(),
        concurrency: 6,
        onEvent: (e: BatchEvent) => {
          if (e.type === 'task_done') sources.push(e.source);
        },
      });
    const [a, b] = await Promise.all([run(), run()]);
    expect(a.results.map((r) => r.subtype)).toEqual(Array(6).fill('success'));
    expect(b.results.map((r) => r.result)).toEqual(a.results.map((r) => r.result));
    expect(b.results.map((r) => r.session_id)).toEqual(a.results.map((r) => r.session_id));
    for (const t of list) {
      const sid = taskSessionId(batchId, t.id);
      expect(await exists(env, turnWorkflowId(sid, 2))).toBe(false);
      const prompts = (await env.store.load(sid)).filter(
        (l) => l.type === 'user' && typeof l.message?.content === 'string',
      );
      expect(prompts).toHaveLength(1);
    }
    expect(env.fake.completedCalls()).toHaveLength(6);
    expect(repeatedCompletedCalls(env.fake.requests())).toEqual([]);

    // A third run after everything finished reports from the turn workflows and calls nothing.
    const third: string[] = [];
    const c = await runBatch({
      client: env.client,
      store: env.store,
      taskQueue: env.taskQueue,
      batchId,
      tasks: list,
      defaults: testTurnOptions(),
      onEvent: (e) => {
        if (e.type === 'task_done') third.push(e.source);
      },
    });
    expect(third).toEqual(Array(6).fill('finished-earlier'));
    expect(c.results.map((r) => r.result)).toEqual(a.results.map((r) => r.result));
    expect(c.results.map((r) => r.uuid)).toEqual(a.results.map((r) => r.uuid));
    expect(env.fake.completedCalls()).toHaveLength(6);
  });

  test('batch: a terminated turn is an error result; an aborted run leaves the rest unfinished', async () => {
    env = await startRunnerEnv({
      responder: (req) => {
        const id = /task (\S+):/.exec(firstUserText(req))?.[1] ?? '?';
        return { delay_ms: id === 't0' ? 20_000 : 100, content: [{ text: `done ${id}` }] };
      },
    });
    const cwd = makeRepo({});
    const batchId = `term-${Date.now()}`;
    const abort = new AbortController();
    const done: string[] = [];
    const sid0 = taskSessionId(batchId, 't0');
    const running = runBatch({
      client: env.client,
      store: env.store,
      taskQueue: env.taskQueue,
      batchId,
      tasks: tasks(4, cwd),
      defaults: testTurnOptions(),
      concurrency: 2,
      signal: abort.signal,
      onEvent: (e) => {
        if (e.type === 'task_done') done.push(e.task.id);
        // Stop the run once the second lane has finished two tasks (t0 is still running).
        if (done.length === 2) abort.abort();
      },
    });
    for (let i = 0; i < 100 && !(await exists(env, turnWorkflowId(sid0, 1))); i++) await sleep(100);
    const summary = await running;
    expect(summary.interrupted).toBe(true);
    expect(summary.unfinished.map((t) => t.id)).toContain('t0');
    await env.client.workflow.getHandle(turnWorkflowId(sid0, 1)).terminate('test');
    const again = await runBatch({
      client: env.client,
      store: env.store,
      taskQueue: env.taskQueue,
      batchId,
      tasks: tasks(4, cwd),
      defaults: testTurnOptions(),
      concurrency: 2,
    });
    expect(again.interrupted).toBe(false);
    const byId = Object.fromEntries(again.results.map((r) => [r.task_id, r]));
    // Reported as -p reports a failed turn workflow (src/client/turn-result.ts): it made no model call.
    expect(byId['t0']).toMatchObject({
      subtype: 'error_during_execution',
      is_error: true,
      num_turns: 0,
      errors: ['The turn failed: test'],
    });
    expect(['t1', 't2', 't3'].map((t) => byId[t]?.subtype)).toEqual(['success', 'success', 'success']);
  });
});
