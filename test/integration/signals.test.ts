import { installRuntimeLogging } from '../../src/worker/logging';
import type { TurnOutcome } from '../../src/common/turn';
import type { SDKResultMessage } from '../../src/common/sdk-messages';
import type { QueryEngine } from '../../src/client/query-engine';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { startSlowToolsWorker } from '../helpers/slow-tools-worker';

installRuntimeLogging('WARN');

/** Polls `check` every 50 ms until it returns a value other than undefined (or `timeoutMs` passes). */
async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The result message of a turn, streamed from its start. */
async function resultOf(engine: QueryEngine, turnWorkflowId: string): Promise<SDKResultMessage> {
  let result: SDKResultMessage | undefined;
  for await (const m of engine.follow({ turnWorkflowId, offset: 0 })) if (m.type === 'result') result = m;
  if (!result) throw new Error('no result');
  return result;
}

describe('interrupting a running turn', () => {
  let env: RunnerEnv;
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
    await env?.close();
  });

  test('interrupt: mid parallel batch (a later read-only tool done, an earlier one in flight) keeps the chain whole', async () => {
    env = await startRunnerEnv({
      worker: false,
      scenario: {
        steps: [
          {
            content: [
              { tool_use: { id: 'toolu_slow_read_1', name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } },
              { tool_use: { id: 'toolu_fast_glob_1', name: 'Glob', input: { pattern: '*.txt' } } },
            ],
          },
          { expect: { messagesCount: 3 }, content: [{ text: 'second turn ok' }] },
        ],
      },
    });
    const slow = await startSlowToolsWorker(env, 30_000);
    closers.push(() => slow.close());
    const engine = env.engine({ cwd: makeRepo({ 'a.txt': 'alpha\n' }) });
    const started = await engine.start('read a.txt and list the txt files');
    // The Glob (second in the batch) finishes while the Read (first) is still running.
    await waitFor('the Glob result', async () => {
      const lines = await env.store.load(engine.sessionId);
      return lines.some(
        (l) => JSON.stringify(l.message?.content ?? '').includes('toolu_fast_glob_1') && l.type === 'user',
      )
        ? true
        : undefined;
    });
    const t0 = Date.now();
    await engine.interrupt('stop now');
    const first = await resultOf(engine, started.turnWorkflowId);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(first).toMatchObject({ subtype: 'error_during_execution', is_error: true });
    expect(first.errors).toContain('[interrupted] stop now');

    const outcome: TurnOutcome = await env.client.workflow.getHandle(started.turnWorkflowId).result();
    const chain = await env.store.chain(engine.sessionId, outcome.leafUuid);
    const results = chain.flatMap((l) =>
      Array.isArray(l.message?.content)
        ? l.message.content.filter((b) => b.type === 'tool_result').map((b) => String(b['tool_use_id']))
        : [],
    );
    expect(results.sort()).toEqual(['toolu_fast_glob_1', 'toolu_slow_read_1']);

    const second = await env.runTurn(engine, 'go on');
    expect(second.result).toMatchObject({ subtype: 'success', result: 'second turn ok' });
  });
});
