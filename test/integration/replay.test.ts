import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { workflowBundle } from '../../src/worker/worker';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

const FIXTURES = join(__dirname, '..', 'fixtures', 'histories');

/**
 * Replay guards determinism (DESIGN.md rule 4): histories recorded by earlier code must replay
 * on the current workflow code. Stored fixtures (encoded `History` protos) are refreshed with UPDATE_HISTORY_FIXTURES=1,
 * which should only be done deliberately (a change that breaks them needs `patched()`).
 */
describe('replay', () => {
  let env: RunnerEnv;
  afterAll(async () => env?.close());

  test('replay: a fresh session and turn history (tools, parallel reads, edits) replays without nondeterminism', async () => {
    env = await startRunnerEnv({
      scenario: {
        steps: [
          {
            content: [
              { tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.js' } } },
              { tool_use: { name: 'Glob', input: { pattern: '*.js' } } },
            ],
          },
          {
            content: [
              { tool_use: { name: 'Edit', input: { file_path: '{{cwd}}/a.js', old_string: '1', new_string: '2' } } },
            ],
          },
          { content: [{ tool_use: { name: 'Bash', input: { command: 'cat a.js' } } }] },
          { content: [{ text: 'done' }] },
        ],
      },
    });
    const engine = env.engine({ cwd: makeRepo({ 'a.js': 'module.exports = 1;\n' }) });
    const { result } = await env.runTurn(engine, 'change 1 to 2');
    expect(result.subtype).toBe('success');
    await engine.end();
    const state = await engine.state();
    const bundle = await workflowBundle();
    const histories = [
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
    ];
    for (const h of histories) {
      await Worker.runReplayHistory({ workflowBundle: bundle }, h.history, h.id);
      if (process.env['UPDATE_HISTORY_FIXTURES']) {
        mkdirSync(FIXTURES, { recursive: true });
        writeFileSync(
          join(FIXTURES, `${h.name}-v1.history.bin`),
          temporal.api.history.v1.History.encode(h.history).finish(),
        );
      }
    }
  });

  test('replay: stored histories of earlier versions still replay', async () => {
    expect(existsSync(FIXTURES)).toBe(true);
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.history.bin'));
    expect(files.length).toBeGreaterThanOrEqual(2);
    const bundle = await workflowBundle();
    for (const f of files) {
      const history = temporal.api.history.v1.History.decode(readFileSync(join(FIXTURES, f)));
      await Worker.runReplayHistory({ workflowBundle: bundle }, history, `fixture-${f}`);
    }
  });
});
