import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Responder, StepSpec } from '../../src/fake-model';
import { billedUsage, repeatedCompletedCalls } from '../../src/fake-model';
import type { SDKResultMessage } from '../../src/common/sdk-messages';
import { installRuntimeLogging } from '../../src/worker/logging';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { collect, expectIntactTranscript, startChildWorker } from './helpers/fault-env';
import type { ChildWorker } from './helpers/fault-env';

installRuntimeLogging('WARN');

const HEARTBEAT_MS = 1000;
const TIMEOUTS = { modelHeartbeatMs: HEARTBEAT_MS, toolHeartbeatMs: 2000, modelMaxAttempts: 6 };

/**
 * Two Bash steps and an answer; tool-use ids are new on every attempt, as the real API's are, so
 * that an attempt's tool calls can be told apart from another's. `slow` shapes step 0 by attempt.
 */
function script(slow: (attempt: number) => Partial<StepSpec>): Responder {
  return (req, { attempt }) => {
    const step = req.messages.filter((m) => m.role === 'assistant').length;
    if (step >= 2) return { content: [{ text: 'both steps done' }] };
    return {
      ...(step === 0 ? slow(attempt) : {}),
      content: [
        { text: `Step ${step}, attempt ${attempt}. `.repeat(4) },
        {
          tool_use: { id: `toolu_s${step}_a${attempt}`, name: 'Bash', input: { command: `echo ${step} >> steps.log` } },
        },
      ],
    };
  };
}

function toolUseIds(content: unknown): string[] {
  return (Array.isArray(content) ? (content as Array<Record<string, unknown>>) : [])
    .filter((b) => b['type'] === 'tool_use')
    .map((b) => String(b['id']));
}

describe('faults: a slow first byte and a superseded model-call attempt', () => {
  let env: RunnerEnv;
  let worker: ChildWorker | undefined;
  afterEach(async () => {
    await worker?.stop().catch(() => undefined);
    worker = undefined;
    await env?.close();
  });

  test('slow first byte: the model stalls before its first event for 3.5x the heartbeat timeout; the turn succeeds with a consistent transcript and no retry', async () => {
    env = await startRunnerEnv({ responder: script(() => ({ delay_ms: 3.5 * HEARTBEAT_MS })) });
    const repo = makeRepo({});
    const engine = env.engine({ cwd: repo });
    const { result } = await env.runTurn(engine, 'run both steps', { timeouts: TIMEOUTS });
    expect(result).toMatchObject({ subtype: 'success', result: 'both steps done', num_turns: 3 });
    expectIntactTranscript(env.dataDir, engine.sessionId);
    // Heartbeats kept the first attempt alive: it was not retried.
    expect(
      env.fake
        .requests()
        .filter((r) => r.step === 0)
        .map((r) => [r.attempt, r.outcome]),
    ).toEqual([[1, 'completed']]);
    expect(readFileSync(join(repo, 'steps.log'), 'utf8')).toBe('0\n1\n');
  });

  test('superseded attempt: an attempt cut off from Temporal (no heartbeats) finishes after its retry began; its line wins and the turn follows it', async () => {
    // Attempt 1 of step 0 sends no heartbeat and gets its first byte after 4 s: Temporal times it
    // out after 1 s and starts attempt 2, which streams slowly. Attempt 1 writes its line first;
    // attempt 2, whose result the workflow takes, must report that line, not its own response.
    env = await startRunnerEnv({
      worker: false,
      responder: script((attempt) => (attempt === 1 ? { delay_ms: 4000 } : { chunk_delay_ms: 400 })),
    });
    const repo = makeRepo({});
    const engine = env.engine({ cwd: repo });
    worker = await startChildWorker({ ...env.workerEnv, FAULT_SILENT_ATTEMPTS: '1' }, { stickyMs: 1000 });
    const messages = await collect(engine.submitMessage('run both steps', { timeouts: TIMEOUTS }));
    const result = messages.at(-1) as SDKResultMessage;
    expect(result).toMatchObject({ subtype: 'success', result: 'both steps done', num_turns: 3 });
    expectIntactTranscript(env.dataDir, engine.sessionId);

    const log = env.fake.requests();
    const step0 = log.filter((r) => r.step === 0);
    expect(step0.map((r) => [r.attempt, r.outcome])).toEqual(
      expect.arrayContaining([
        [1, 'completed'],
        [2, 'completed'],
      ]),
    );
    // The first writer's line is the one the conversation continued from.
    const lines = await env.store.load(engine.sessionId);
    const first = lines.find((e) => e.type === 'assistant');
    expect(toolUseIds(first?.message?.content)).toEqual(['toolu_s0_a1']);
    const results = lines.flatMap((e) =>
      Array.isArray(e.message?.content)
        ? e.message.content.filter((b) => b.type === 'tool_result').map((b) => String(b['tool_use_id']))
        : [],
    );
    expect(results).toEqual(['toolu_s0_a1', 'toolu_s1_a1']);
    expect(readFileSync(join(repo, 'steps.log'), 'utf8')).toBe('0\n1\n');
    // Both attempts of step 0 were billed, and both are counted.
    expect(result.usage).toMatchObject(billedUsage(log));
    expect(repeatedCompletedCalls(log)).toEqual([{ conversationKey: step0[0]!.conversationKey, step: 0, count: 2 }]);
  }, 120_000);
});
