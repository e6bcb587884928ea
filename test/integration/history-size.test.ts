import { temporal } from '@temporalio/proto';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
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
});
