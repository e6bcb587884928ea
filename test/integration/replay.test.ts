import { Worker } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { workflowBundle } from '../../src/worker/worker';
import { budgetPoolWorkflowId, turnWorkflowId } from '../../src/common/ids';
import type { BudgetPoolInput } from '../../src/common/budget-pool';
import { closeBudgetPool, setBudgetPoolLimit } from '../../src/client/budget-pool';
import { sessionStateQuery, turnProgressQuery } from '../../src/workflows/messages';
import { makeRepo, startRunnerEnv, testTurnOptions } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import type { StepSpec } from '../../src/fake-model';
import {
  addHistoryFixture,
  historyFixtureFiles,
  readHistoryFixture,
  recordingFixtures,
} from '../helpers/history-fixtures';

type History = temporal.api.history.v1.IHistory;

/** Polls `check` every 50 ms until it returns a value other than undefined. */
async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Replays each history on the current code, then (with UPDATE_HISTORY_FIXTURES=1) stores it as a
 * new fixture of its name: the writer adds the next version, it never replaces one.
 */
async function replayAndKeep(histories: Array<{ name: string; id: string; history: History }>): Promise<void> {
  const bundle = await workflowBundle();
  for (const h of histories) {
    await Worker.runReplayHistory({ workflowBundle: bundle }, h.history, h.id);
    if (recordingFixtures()) addHistoryFixture(h.name, h.history);
  }
}

const bash = (command: string) => ({ content: [{ tool_use: { name: 'Bash', input: { command, description: 'x' } } }] });
const done = { content: [{ text: 'Done.' }] };

/** The model's answers, by script name. */
const SCRIPTS: Record<string, StepSpec[]> = {
  edit: [
    {
      content: [
        { tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.js' } } },
        { tool_use: { name: 'Glob', input: { pattern: '*.js' } } },
      ],
    },
    {
      content: [{ tool_use: { name: 'Edit', input: { file_path: '{{cwd}}/a.js', old_string: '1', new_string: '2' } } }],
    },
    { content: [{ tool_use: { name: 'Bash', input: { command: 'cat a.js' } } }] },
    { content: [{ text: 'done' }] },
  ],
  answer: [done],
  sleeps: [bash('sleep 24'), done],
  asks: [bash('touch asked.txt'), done],
  pool: [bash('echo one'), bash('echo two'), done],
};

/**
 * Replay guards determinism (DESIGN.md rule 4): histories recorded by earlier code must replay
 * on the current workflow code. Stored fixtures (encoded `History` protos, test/fixtures/histories)
 * are added with UPDATE_HISTORY_FIXTURES=1, which should only be done deliberately; each patch of
 * src/workflows/patches.ts names the fixture that replays its old behaviour
 * (test/unit/workflows/patches.test.ts checks them).
 */
describe('replay', () => {
  let env: RunnerEnv;
  beforeAll(async () => {
    env = await startRunnerEnv({
      // Each prompt names its script (`[case:x]`); a step is the number of answers since that prompt.
      responder: (req): StepSpec => {
        const at = req.messages.findLastIndex((m) => m.role === 'user' && /\[case:/.test(JSON.stringify(m.content)));
        const name = /\[case:([\w-]+)\]/.exec(JSON.stringify(req.messages[at]?.content))?.[1] ?? '';
        const step = req.messages.slice(at).filter((m) => m.role === 'assistant').length;
        const spec = SCRIPTS[name]?.[step];
        if (!spec) throw new Error(`no step ${step} in script ${name}`);
        return spec;
      },
    });
  });
  afterAll(async () => env?.close());

  test('replay: a fresh session and turn history (tools, parallel reads, edits) replays without nondeterminism', async () => {
    const engine = env.engine({ cwd: makeRepo({ 'a.js': 'module.exports = 1;\n' }) });
    const { result } = await env.runTurn(engine, '[case:edit] change 1 to 2');
    expect(result.subtype).toBe('success');
    await engine.end();
    const state = await engine.state();
    await replayAndKeep([
      {
        name: 'session',
        id: engine.workflowId,
        history: await env.client.workflow.getHandle(engine.workflowId).fetchHistory(),
      },
      {
        name: 'turn',
        id: state.lastTurnWorkflowId ?? '',
        history: await env.client.workflow.getHandle(state.lastTurnWorkflowId ?? '').fetchHistory(),
      },
    ]);
  });

  test('replay: a session steered while it runs (limits and interrupt forwarded, an approval wait, a turn that fails as a workflow) replays', async () => {
    const engine = env.engine({
      cwd: makeRepo({}),
      defaults: testTurnOptions({ permissionMode: 'default', approvals: { timeoutMs: 1000, onTimeout: 'deny' } }),
    });
    expect((await env.runTurn(engine, '[case:answer] just answer')).result.subtype).toBe('success');
    // An approval the timeout answers: the turn tells its session it waits, then that it does not.
    const asked = await env.runTurn(engine, '[case:asks] this needs approval');
    expect(asked.result.permission_denials).toHaveLength(1);

    const session = env.client.workflow.getHandle(engine.workflowId);
    const bashRuns = async (turn: string): Promise<true | undefined> => {
      const p = await env.client.workflow.getHandle(turn).query(turnProgressQuery);
      return p.activity.startsWith('runTool') ? true : undefined;
    };
    // Turn 3: limits changed and an interrupt, both sent to the session, which forwards them.
    const interrupted = env.runTurn(engine, '[case:sleeps] sleep, then stop', { permissionMode: 'bypassPermissions' });
    await waitFor('turn 3 in Bash', () => bashRuns(turnWorkflowId(engine.sessionId, 3)));
    await engine.setLimits({ maxTurns: 7 });
    await engine.interrupt('replay test');
    expect((await interrupted).result.subtype).toBe('error_during_execution');
    // Turn 4 fails as a workflow (terminated): the session re-reads its totals from the store.
    const failing = env.runTurn(engine, '[case:sleeps] sleep, then fail', { permissionMode: 'bypassPermissions' });
    const turn4 = turnWorkflowId(engine.sessionId, 4);
    await waitFor('turn 4 in Bash', () => bashRuns(turn4));
    await env.client.workflow.getHandle(turn4).terminate('replay test: a turn that fails');
    expect((await failing).result.is_error).toBe(true);
    // The client has the failed turn's result from the turn; the session counts it once it has re-read the store.
    await waitFor('the session to count turn 4', async () =>
      (await session.query(sessionStateQuery)).turnCount === 4 ? true : undefined,
    );
    await engine.end();
    // Its last turn failed, so the session ends as failed (the Web UI lists it so).
    await expect(session.result()).rejects.toMatchObject({ cause: { type: 'AgentResult.error_during_execution' } });
    await replayAndKeep([{ name: 'session-steered', id: engine.workflowId, history: await session.fetchHistory() }]);
  });

  test('replay: a budget pool (join, spend, exhausted, leave, continue-as-new, refill, close) replays', async () => {
    const poolId = `replay-${Date.now()}`;
    const input: BudgetPoolInput = { poolId, limitUsd: 0.000001, maxSignalsPerRun: 3 };
    const first = await env.client.workflow.start('budgetPoolWorkflow', {
      workflowId: budgetPoolWorkflowId(poolId),
      taskQueue: env.taskQueue,
      args: [input],
    });
    const engine = env.engine({ cwd: makeRepo({}) });
    const { result } = await env.runTurn(engine, '[case:pool] pool member', { budgetPoolId: first.workflowId });
    expect(result.subtype).toBe('error_max_budget_usd');
    await engine.end();
    // join + report + leave: the third signal makes the pool continue as new.
    const latest = await waitFor('the pool to continue as new', async () => {
      const d = await env.client.workflow.getHandle(first.workflowId).describe();
      return d.runId !== first.firstExecutionRunId ? d.runId : undefined;
    });
    await setBudgetPoolLimit(env.client, poolId, 5);
    await closeBudgetPool(env.client, poolId);
    await replayAndKeep([
      {
        name: 'pool-first-run',
        id: first.workflowId,
        history: await env.client.workflow.getHandle(first.workflowId, first.firstExecutionRunId).fetchHistory(),
      },
      {
        name: 'pool-last-run',
        id: first.workflowId,
        history: await env.client.workflow.getHandle(first.workflowId, latest).fetchHistory(),
      },
    ]);
  });

  test('replay: stored histories of earlier versions still replay', async () => {
    const files = historyFixtureFiles();
    expect(files.length).toBeGreaterThanOrEqual(2);
    const bundle = await workflowBundle();
    for (const f of files) {
      await Worker.runReplayHistory({ workflowBundle: bundle }, readHistoryFixture(f), `fixture-${f}`);
    }
  });
});
