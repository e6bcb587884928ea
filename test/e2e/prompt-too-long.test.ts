/**
 * A prompt over the model's limits (`git diff | agent-runner -p` with a 2 MB diff): one clear
 * error result, exit 1, no compaction and no retry, and nothing left running. The prompt travels
 * by reference, so neither the Update nor the turn's input carries it. Needs `npm run build`.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SDKResultMessage } from '../../src/common/sdk-messages';
import { sessionWorkflowId, turnWorkflowId } from '../../src/common/ids';
import { runCli } from '../helpers/cli';
import { makeRepo, startRunnerEnv, temporalAddress } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

describe('CLI: a prompt over the model’s context window', () => {
  let env: RunnerEnv;
  afterAll(async () => env?.close());

  test('prompt too long: a 2 MB prompt on stdin ends in one error result saying so (exit 1); the session and turn are closed', async () => {
    env = await startRunnerEnv({
      contextWindow: 200_000,
      responder: () => ({ content: [{ text: 'should not be reached' }] }),
    });
    const repo = makeRepo({ 'README.md': '# repo\n' });
    const sessionId = randomUUID();
    const diff = `diff --git a/x b/x\n${'+ a line of a very large change\n'.repeat(70_000)}`;
    expect(diff.length).toBeGreaterThan(2_000_000);
    const started = Date.now();
    const run = await runCli(['-p', '--output-format', 'json', '--cwd', repo, '--session-id', sessionId], {
      env: { ...env.workerEnv, TEMPORAL_ADDRESS: temporalAddress() },
      input: diff,
      timeoutMs: 120_000,
    });
    const ms = Date.now() - started;
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0] ?? '') as SDKResultMessage;
    expect(result).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true });
    expect(result.errors?.join('\n')).toMatch(
      /Prompt is too long: the prompt alone is over the model's context window/,
    );
    // One request: no compaction of a prompt that cannot fit, no retry of a 400.
    expect(env.fake.requests().map((r) => [r.status, r.outcome])).toEqual([[400, 'http_error']]);
    // Nothing left running: the turn has ended, and the session closes on the CLI's endSession
    // (a workflow task away), not 15 minutes later.
    for (const id of [turnWorkflowId(sessionId, 1), sessionWorkflowId(sessionId)]) {
      let status = '';
      for (const until = Date.now() + 10_000; Date.now() < until; await sleep(100)) {
        status = (await env.client.workflow.getHandle(id).describe()).status.name;
        if (status !== 'RUNNING') break;
      }
      // Ended, and listed as failed (an error result fails the workflow: docs/architecture.md).
      expect([id, status]).toEqual([id, 'FAILED']);
    }
    // The prompt is kept whole in the store (not lost), under its line.
    const prompt = (await env.store.load(sessionId)).find((l) => l.type === 'user');
    expect(prompt?.message?.content).toBe(diff.replace(/\n$/, '')); // the CLI drops the final newline of stdin
    console.log(`prompt too long: ${diff.length} bytes → error result in ${ms} ms`);
  }, 180_000);
});
