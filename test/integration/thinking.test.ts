/**
 * Extended thinking across everything that rebuilds a request from the store: the next call of a
 * tool turn after its worker was killed, a compaction, a resumed session and a fork. The API
 * requires thinking blocks back exactly as it sent them; the fake model checks their signatures
 * (and that `redacted_thinking` data is what it issued) and answers 400 otherwise, so a request
 * that changed, dropped or reordered a block fails the turn.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { COMPACT_INSTRUCTION } from '../../src/activities/model/compact';
import { forkSession } from '../../src/client/fork-session';
import type { SDKMessage, SDKResultMessage } from '../../src/common/sdk-messages';
import type { ParsedRequest, StepSpec } from '../../src/fake-model';
import { thinkingSignature } from '../../src/fake-model/thinking-signatures';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { startWorkerProcess } from '../helpers/worker-process';
import type { WorkerProcess } from '../helpers/worker-process';

const REDACTED = 'RkFLRS1SRURBQ1RFRC1USElOS0lORw==';

/** The thinking and redacted_thinking blocks of the request's assistant messages, in order. */
function thinkingBlocks(req: ParsedRequest): unknown[] {
  return req.messages
    .filter((m) => m.role === 'assistant' && Array.isArray(m.content))
    .flatMap((m) => (m.content as Array<Record<string, unknown>>).filter((b) => /thinking/.test(String(b['type']))));
}

function lastUserText(req: ParsedRequest): string {
  const last = [...req.messages].reverse().find((m) => m.role === 'user');
  if (!last) return '';
  return typeof last.content === 'string'
    ? last.content
    : last.content.map((b) => (b.type === 'text' ? String(b['text']) : '')).join('\n');
}

async function collect(gen: AsyncGenerator<SDKMessage>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const m of gen) out.push(m);
  return out;
}

async function waitFor(what: string, cond: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const FIRST_THOUGHT = 'The user wants the slow command run. I will call Bash.';

describe('thinking blocks: kept with their signatures wherever a request is rebuilt', () => {
  let env: RunnerEnv | undefined;
  const workers: WorkerProcess[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop().catch(() => undefined);
    await env?.close();
    env = undefined;
  });

  test('thinking: a worker killed between a thinking tool turn and the next call; the next request carries the same signed blocks', async () => {
    const requests: ParsedRequest[] = [];
    env = await startRunnerEnv({
      worker: false,
      responder: (req, ctx): StepSpec => {
        requests.push(JSON.parse(JSON.stringify(req)) as ParsedRequest);
        if (ctx.step === 0) {
          return {
            content: [
              { thinking: FIRST_THOUGHT },
              { redacted_thinking: REDACTED },
              { text: 'Running it.' },
              { tool_use: { name: 'Bash', input: { command: 'touch started && sleep 4 && echo done > done.txt' } } },
            ],
          };
        }
        return { content: [{ thinking: 'It may not have finished.' }, { text: 'The outcome is unknown.' }] };
      },
    });
    const repo = makeRepo({});
    workers.push(await startWorkerProcess(env.workerEnv));
    const engine = env.engine({ cwd: repo });
    const turn = collect(engine.submitMessage('run the slow command'));
    await waitFor('the Bash tool to start', () => existsSync(join(repo, 'started')));
    await workers[0]!.kill9();
    workers.push(await startWorkerProcess(env.workerEnv));
    const messages = await turn;
    const result = messages.at(-1) as SDKResultMessage;
    expect(result).toMatchObject({
      type: 'result',
      subtype: 'success',
      num_turns: 2,
      result: 'The outcome is unknown.',
    });
    const next = requests.filter((r) => r.messages.some((m) => m.role === 'assistant'));
    expect(next.length).toBeGreaterThanOrEqual(1);
    for (const r of next) {
      expect(thinkingBlocks(r)).toEqual([
        { type: 'thinking', thinking: FIRST_THOUGHT, signature: thinkingSignature(FIRST_THOUGHT) },
        { type: 'redacted_thinking', data: REDACTED },
      ]);
      // In their place: before the text and the tool call of their response.
      const assistant = r.messages.find((m) => m.role === 'assistant');
      expect((assistant?.content as Array<{ type: string }>).map((b) => b.type)).toEqual([
        'thinking',
        'redacted_thinking',
        'text',
        'tool_use',
      ]);
    }
    // The thinking the API counted is in the result (the fake model reports it with the beta).
    expect(result.usage.output_tokens_details?.thinking_tokens).toBeGreaterThan(0);
    expect(result.modelUsage['claude-sonnet-5-5']?.thinkingTokens).toBe(
      result.usage.output_tokens_details?.thinking_tokens,
    );
  });

  test('thinking: blocks come back after a compaction (the recent messages kept verbatim), a resume and a fork', async () => {
    const requests: ParsedRequest[] = [];
    env = await startRunnerEnv({
      responder: (req, ctx): StepSpec => {
        requests.push(JSON.parse(JSON.stringify(req)) as ParsedRequest);
        if (lastUserText(req).includes(COMPACT_INSTRUCTION)) return { content: [{ text: 'Summary: a.txt was read.' }] };
        if (ctx.step === 0) {
          return {
            content: [
              { thinking: 'Read a.txt first.' },
              { tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } },
            ],
          };
        }
        return { content: [{ thinking: `Answer ${ctx.step}.` }, { text: `answer ${ctx.step}` }] };
      },
    });
    const repo = makeRepo({ 'a.txt': 'hello\n' });
    const engine = env.engine({ cwd: repo });
    expect((await env.runTurn(engine, 'read a.txt')).result.subtype).toBe('success');
    const signed = {
      type: 'thinking',
      thinking: 'Read a.txt first.',
      signature: thinkingSignature('Read a.txt first.'),
    };

    expect((await env.runTurn(engine, '/compact')).result.subtype).toBe('success');
    requests.length = 0;
    expect((await env.runTurn(engine, 'and now?')).result.subtype).toBe('success');
    const afterCompaction = requests.at(-1);
    expect(afterCompaction && thinkingBlocks(afterCompaction)).toContainEqual(signed);
    await engine.endAndWait();

    // A resumed session (a new engine on the same id) and a fork of it.
    const resumed = env.engine({ cwd: repo, sessionId: engine.sessionId });
    requests.length = 0;
    expect((await env.runTurn(resumed, 'resumed')).result.subtype).toBe('success');
    expect(thinkingBlocks(requests.at(-1)!)).toContainEqual(signed);
    const forkId = '0b4c7a52-8d3e-4e0e-9a55-5f0f4d6c2e11';
    await forkSession(env.store, engine.sessionId, forkId);
    const forked = env.engine({ cwd: repo, sessionId: forkId });
    requests.length = 0;
    expect((await env.runTurn(forked, 'forked')).result.subtype).toBe('success');
    expect(thinkingBlocks(requests.at(-1)!)).toContainEqual(signed);
  });
});
