/**
 * A turn workflow that fails after it has spent (terminated during its second model call) is
 * reported the same way by every client, with what it spent: through `QueryEngine` (what `-p`,
 * `attach` and the Agent SDK use) and through `batch`; and a batch `--retry-failed` run keeps the
 * failed attempt's spend in the task's totals.
 */
import { summaryTable } from '../../src/cli/progress';
import type { BatchResult } from '../../src/client/batch';
import { runBatch, taskAttemptSessionId, taskCostUsd, taskSessionId } from '../../src/client/batch';
import type { BatchTask } from '../../src/client/batch-tasks';
import type { SDKResultMessage } from '../../src/common/sdk-messages';
import { turnWorkflowId } from '../../src/common/ids';
import type { StepSpec } from '../../src/fake-model';
import { makeRepo, startRunnerEnv, testTurnOptions } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

jest.setTimeout(120_000);

const PROMPT = 'run one command, then answer';

let env: RunnerEnv;
let cwd: string;
/** Whether the next second call hangs (so that the test can terminate the turn during it). */
let hangSecondCall = true;
/** Resolves when a second call arrives that hangs. */
let secondCallArrived: () => void = () => undefined;

function nextHang(): Promise<void> {
  hangSecondCall = true;
  return new Promise<void>((resolve) => (secondCallArrived = resolve));
}

beforeAll(async () => {
  env = await startRunnerEnv({
    responder: (_req, ctx): StepSpec => {
      if (ctx.step === 0) return { content: [{ tool_use: { name: 'Bash', input: { command: 'echo one' } } }] };
      if (hangSecondCall) {
        hangSecondCall = false;
        secondCallArrived();
        return { delay_ms: 60_000, content: [{ text: 'too late' }] };
      }
      return { content: [{ text: 'done' }] };
    },
  });
  cwd = makeRepo({ 'a.txt': 'a\n' });
});
afterAll(async () => env?.close());

/**
 * The figures two reports of the same failed turn must agree on. The cost is not among them: the
 * model server caches the prompt prefix, so the second conversation reads what the first wrote.
 */
function figures(r: SDKResultMessage): Record<string, unknown> {
  const u = r.usage;
  return {
    subtype: r.subtype,
    is_error: r.is_error,
    num_turns: r.num_turns,
    prompt_tokens: u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens,
    output_tokens: u.output_tokens,
    total_cost_usd_known: r.total_cost_usd_known,
    errors: r.is_error ? r.errors : undefined,
  };
}

test('failed turn: QueryEngine and batch report a failed turn workflow alike, with what it spent', async () => {
  // Through QueryEngine (-p): terminated while its second model call waits.
  const engine = env.engine({ cwd });
  const arrived = nextHang();
  const stream = (async () => {
    const out: SDKResultMessage[] = [];
    for await (const m of engine.submitMessage(PROMPT)) if (m.type === 'result') out.push(m);
    return out;
  })();
  await arrived;
  await env.client.workflow.getHandle(turnWorkflowId(engine.sessionId, 1)).terminate('stopped by the test');
  const [viaEngine] = await stream;
  await engine.end();
  expect(viaEngine).toMatchObject({
    subtype: 'error_during_execution',
    is_error: true,
    num_turns: 1,
    total_cost_usd_known: true,
    errors: ['The turn failed: stopped by the test'],
  });
  expect(viaEngine!.total_cost_usd).toBeGreaterThan(0);
  expect(viaEngine!.usage.output_tokens).toBeGreaterThan(0);

  // Through batch: the same conversation, terminated at the same point.
  const batchId = `failed-${Date.now()}`;
  const task: BatchTask = { id: 't0', line: 1, prompt: PROMPT, cwd, options: {} };
  const batchArrived = nextHang();
  const running = runBatch({
    client: env.client,
    store: env.store,
    taskQueue: env.taskQueue,
    batchId,
    tasks: [task],
    defaults: testTurnOptions(),
  });
  await batchArrived;
  await env.client.workflow.getHandle(turnWorkflowId(taskSessionId(batchId, 't0'), 1)).terminate('stopped by the test');
  const first = (await running).results[0]!;
  expect(figures(first)).toEqual(figures(viaEngine!));
  expect(first.total_cost_usd).toBeGreaterThan(0);

  // --retry-failed: a new attempt succeeds; the failed attempt's spend stays the task's.
  const retried = (
    await runBatch({
      client: env.client,
      store: env.store,
      taskQueue: env.taskQueue,
      batchId,
      tasks: [task],
      defaults: testTurnOptions(),
      retryFailed: true,
    })
  ).results[0]!;
  expect(retried).toMatchObject({ subtype: 'success', result: 'done' });
  expect(retried.session_id).toBe(taskAttemptSessionId(batchId, 't0', 1));
  expect(retried.earlier_attempts).toEqual([
    {
      session_id: first.session_id,
      subtype: 'error_during_execution',
      num_turns: 1,
      total_cost_usd: first.total_cost_usd,
      total_cost_usd_known: true,
    },
  ]);
  const both = first.total_cost_usd + retried.total_cost_usd;
  expect(taskCostUsd(retried)).toBeCloseTo(both, 12);
  const summary = (r: BatchResult): string =>
    summaryTable([{ task, result: r }], [], 1000)
      .split('\n')
      .at(-1)!;
  expect(summary(retried)).toContain(`· $${both.toFixed(4)} ·`);

  // A later plain run reports the latest attempt, and still counts the earlier one.
  const later = (
    await runBatch({
      client: env.client,
      store: env.store,
      taskQueue: env.taskQueue,
      batchId,
      tasks: [task],
      defaults: testTurnOptions(),
    })
  ).results[0]!;
  expect(later.session_id).toBe(retried.session_id);
  expect(later.earlier_attempts).toEqual(retried.earlier_attempts);
  expect(summary(later)).toContain(`· $${both.toFixed(4)} ·`);
});
