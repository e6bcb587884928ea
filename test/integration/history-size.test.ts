import { temporal } from '@temporalio/proto';
import { routeByMarker } from '../../src/fake-model';
import { turnWorkflowId } from '../../src/common/ids';
import { makeRepo, startRunnerEnv, testTurnOptions } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

/** DESIGN.md rule 1: a step (model call + tool call) adds a bounded number of bytes to history. */
const MAX_BYTES_PER_STEP = 4096;
const ONE_MB = 1024 * 1024;

describe('workflow history size', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('history: steps with 1 MB tool inputs and outputs add under 4 KB of history each', async () => {
    const steps = 6;
    const big = 'x'.repeat(ONE_MB);
    env = await startRunnerEnv({
      scenario: {
        steps: [
          // Each step is one model call and one tool call: 1 MB in the model's tool input (Write),
          // or 1 MB printed by a command (Bash).
          ...Array.from({ length: steps }, (_, i) => ({
            content: [
              i % 2 === 0
                ? { tool_use: { name: 'Write', input: { file_path: `{{cwd}}/out-${i}.txt`, content: big } } }
                : { tool_use: { name: 'Bash', input: { command: `head -c ${ONE_MB} /dev/zero | tr '\\0' y` } } },
            ],
          })),
          { content: [{ text: 'done' }] },
        ],
      },
    });
    const engine = env.engine({ cwd: makeRepo({}) });
    // Each 1 MB step is past the context window: auto-compaction is off so that every step is measured
    // (the scripted model restarts its steps after a compaction).
    const { result } = await env.runTurn(engine, 'write big files', { compaction: { autoCompactRatio: 0 } });
    expect(result).toMatchObject({ subtype: 'success', num_turns: steps + 1 });

    const state = await engine.state();
    const handle = env.client.workflow.getHandle(state.lastTurnWorkflowId ?? '');
    const history = await handle.fetchHistory();
    const bytes = temporal.api.history.v1.History.encode(history).finish().length;
    const perStep = bytes / (steps + 1);
    // Printed so the figure is visible in CI logs.
    console.log(`turn history: ${bytes} bytes, ${history.events?.length} events, ${perStep.toFixed(0)} bytes per step`);
    if (process.env['DUMP_HISTORY']) {
      for (const e of history.events ?? []) {
        console.log(e.eventType, temporal.api.history.v1.HistoryEvent.encode(e).finish().length);
      }
    }
    expect(perStep).toBeLessThan(MAX_BYTES_PER_STEP);
    const transcriptBytes = JSON.stringify(await env.store.load(engine.sessionId)).length;
    expect(transcriptBytes).toBeGreaterThan(steps * ONE_MB); // the content went to the store instead
  });

  test('history: a foreground Agent step with a 1 MB prompt and a 1 MB report adds no content to the parent history (under 12 KB: known gap), and a child step under 4 KB', async () => {
    const big = 'x'.repeat(ONE_MB);
    env = await startRunnerEnv({
      responder: routeByMarker([
        {
          marker: '[as:main]',
          steps: [
            {
              content: [
                {
                  tool_use: {
                    name: 'Agent',
                    input: { description: 'Big', prompt: `[as:helper] ${big}`, run_in_background: false },
                  },
                },
              ],
            },
            { content: [{ text: 'done' }] },
          ],
        },
        {
          marker: '[as:helper]',
          steps: [
            {
              content: [{ tool_use: { name: 'Bash', input: { command: `head -c ${ONE_MB} /dev/zero | tr '\\0' y` } } }],
            },
            { content: [{ text: big }] },
          ],
        },
      ]),
    });
    const engine = env.engine({ cwd: makeRepo({}), defaults: testTurnOptions({ subagents: {} }) });
    const { result } = await env.runTurn(engine, '[as:main] go', { compaction: { autoCompactRatio: 0 } });
    expect(result).toMatchObject({ subtype: 'success', num_turns: 2 });
    const lines = await env.store.load(engine.sessionId);
    const childId = lines.map((l) => l.turnId ?? '').find((id) => /-agent-a[0-9a-f]{16}-1$/.test(id));
    expect(childId).toBeDefined();
    // Bytes of the events from the first scheduling of `from` up to the next scheduling of `to`.
    const between = async (id: string, from: string, to: string): Promise<number> => {
      const events = (await env.client.workflow.getHandle(id).fetchHistory()).events ?? [];
      const typeOf = (e: (typeof events)[number]): string | null | undefined =>
        e.activityTaskScheduledEventAttributes?.activityType?.name;
      const start = events.findIndex((e) => typeOf(e) === from);
      const end = events.findIndex((e, i) => i > start && typeOf(e) === to);
      expect(start).toBeGreaterThanOrEqual(0);
      expect(end).toBeGreaterThan(start);
      return events
        .slice(start, end)
        .reduce((n, e) => n + temporal.api.history.v1.HistoryEvent.encode(e).finish().length, 0);
    };
    // The parent's Agent call: planAgent, the child's start and end, the hand-back, up to the next model call.
    const agentStep = await between(turnWorkflowId(engine.sessionId, 1), 'planAgent', 'callModel');
    // The child's first step: its model call and its Bash run, up to its next model call.
    const childStep = await between(childId ?? '', 'callModel', 'callModel');
    console.log(`subagent steps: parent Agent call ${agentStep} bytes, child model call + Bash ${childStep} bytes`);
    expect(childStep).toBeLessThan(MAX_BYTES_PER_STEP);
    // KNOWN GAP (issue 20 item 7): the parent's Agent call is about 10 KB, over the 4 KB of a
    // step: the child's whole TurnInput (options included) in StartChildWorkflowExecution, its
    // TurnOutcome (events, read-file state) in ChildWorkflowExecutionCompleted, the plan, and the
    // taskStarted/taskFinished signals with a TaskRecord each. None grows with content (1 MB in,
    // 1 MB out here); this bound holds it there until the child's options go by ref and its
    // outcome is trimmed.
    expect(agentStep).toBeLessThan(3 * MAX_BYTES_PER_STEP);
  });
});
