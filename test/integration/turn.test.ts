import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SDKMessage } from '../../src/common/sdk-messages';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

const FIX_SCENARIO = {
  steps: [
    {
      content: [
        { text: 'Let me read the file.' },
        { tool_use: { name: 'Read', input: { file_path: '{{cwd}}/math.js' } } },
      ],
    },
    {
      expect: { lastToolResultContains: '1\texport const add = (a, b) => a - b;' },
      content: [
        {
          tool_use: { name: 'Edit', input: { file_path: '{{cwd}}/math.js', old_string: 'a - b', new_string: 'a + b' } },
        },
      ],
    },
    {
      expect: { lastToolResultContains: 'has been updated' },
      content: [{ tool_use: { name: 'Bash', input: { command: 'cat math.js', description: 'show file' } } }],
    },
    { expect: { lastToolResultContains: 'a + b' }, content: [{ text: 'Fixed add to use +.' }] },
  ],
};

function types(messages: SDKMessage[]): string[] {
  return messages.map((m) => (m.type === 'system' ? `system/${m.subtype}` : m.type));
}

describe('turnWorkflow on a real dev server', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('turn: reads, edits and runs a command, then ends with success', async () => {
    env = await startRunnerEnv({ scenario: FIX_SCENARIO });
    const repo = makeRepo({ 'math.js': 'export const add = (a, b) => a - b;\n' });
    const engine = env.engine({ cwd: repo });
    const { messages, result } = await env.runTurn(engine, 'fix add');

    expect(types(messages)).toEqual([
      'system/init',
      'assistant', // one message per content block, as Claude Code streams: the text…
      'assistant', // …and the Read call of the same response
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'result',
    ]);
    expect(result).toMatchObject({
      subtype: 'success',
      is_error: false,
      num_turns: 4,
      result: 'Fixed add to use +.',
      session_id: engine.sessionId,
    });
    expect(result.total_cost_usd).toBeGreaterThan(0);
    expect(result.usage.output_tokens).toBeGreaterThan(0);
    expect(Object.keys(result.modelUsage)).toEqual(['claude-sonnet-5-5']);
    expect(readFileSync(join(repo, 'math.js'), 'utf8')).toBe('export const add = (a, b) => a + b;\n');

    const lines = await env.store.load(engine.sessionId);
    const uuids = lines.map((l) => l.uuid);
    expect(new Set(uuids).size).toBe(uuids.length);
    expect(lines).toHaveLength(9); // prompt + session context + 4 assistant + 3 tool results
    expect(env.fake.requests().filter((r) => r.outcome === 'completed')).toHaveLength(4);
  });

  test('session: a second turn sees the first turn and totals accumulate', async () => {
    env = await startRunnerEnv({
      scenario: {
        steps: [
          { content: [{ text: 'first answer' }] },
          // The first prompt, the session's environment (a system message), the first answer, the second prompt.
          { expect: { messagesCount: 4 }, content: [{ text: 'second answer' }] },
        ],
      },
    });
    const engine = env.engine({ cwd: makeRepo({}) });
    const first = await env.runTurn(engine, 'one');
    const second = await env.runTurn(engine, 'two');
    expect(first.result).toMatchObject({ subtype: 'success', result: 'first answer' });
    expect(second.result).toMatchObject({ subtype: 'success', result: 'second answer' });
    const state = await engine.state();
    expect(state.turnCount).toBe(2);
    // As Claude Code: a result's total_cost_usd and modelUsage are the session's so far; usage is the turn's.
    expect(second.result.total_cost_usd).toBeCloseTo(state.totalCostUsd, 10);
    expect(second.result.total_cost_usd).toBeGreaterThan(first.result.total_cost_usd);
    const m1 = first.result.modelUsage['claude-sonnet-5-5'];
    const m2 = second.result.modelUsage['claude-sonnet-5-5'];
    expect(m2?.outputTokens).toBe((m1?.outputTokens ?? 0) + second.result.usage.output_tokens);
    expect(m2?.costUSD).toBeCloseTo(second.result.total_cost_usd, 10);
    // Following the finished turn from another engine (as `attach` does) reports the same totals.
    const other = env.engine({ cwd: makeRepo({}), sessionId: engine.sessionId });
    const pos = engine.position;
    if (!pos) throw new Error('no stream position');
    let followed: number | undefined;
    for await (const m of other.follow({ turnWorkflowId: pos.turnWorkflowId, offset: 0 })) {
      if (m.type === 'result') followed = m.total_cost_usd;
    }
    expect(followed).toBeCloseTo(state.totalCostUsd, 10);
  });

  test('maxTurns: the turn stops after N model calls with error_max_turns and every tool_use answered', async () => {
    const loop = { content: [{ tool_use: { name: 'Glob', input: { pattern: '*' } } }] };
    env = await startRunnerEnv({ scenario: { steps: [loop, loop, loop, loop] } });
    const engine = env.engine({ cwd: makeRepo({ 'a.txt': 'a' }) });
    const { result } = await env.runTurn(engine, 'loop', { limits: { maxTurns: 2 } });
    expect(result).toMatchObject({ subtype: 'error_max_turns', is_error: true, num_turns: 2 });
    expect(result.errors?.[0]).toContain('maximum number of turns (2)');
    const lines = await env.store.load(engine.sessionId);
    expect(lines.filter((l) => l.type === 'user')).toHaveLength(3); // prompt + 2 tool results
  });
});

describe('long turns', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('continue-as-new: a turn longer than maxStepsPerRun continues as new and streams every message once', async () => {
    const step = { content: [{ tool_use: { name: 'Glob', input: { pattern: '*.txt' } } }] };
    env = await startRunnerEnv({
      scenario: { steps: [step, step, step, step, step, { content: [{ text: 'finished' }] }] },
    });
    const engine = env.engine({ cwd: makeRepo({ 'a.txt': 'a' }) });
    const { messages, result } = await env.runTurn(engine, 'glob a lot', { maxStepsPerRun: 2 });
    expect(result).toMatchObject({ subtype: 'success', num_turns: 6, result: 'finished' });
    expect(messages.filter((m) => m.type === 'assistant')).toHaveLength(6);
    const uuids = messages.map((m) => m.uuid);
    expect(new Set(uuids).size).toBe(uuids.length);
    const state = await engine.state();
    const desc = await env.client.workflow.getHandle(state.lastTurnWorkflowId ?? '').describe();
    const runs = [];
    for await (const w of env.client.workflow.list({ query: `WorkflowId = '${desc.workflowId}'` })) runs.push(w);
    expect(runs.length).toBeGreaterThanOrEqual(3);
  });
});

describe('streaming to callers', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('stream: a caller that stops reading can continue the stream from where it stopped, in another engine', async () => {
    const read = { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } }] };
    env = await startRunnerEnv({ scenario: { steps: [read, read, { content: [{ text: 'end' }] }] } });
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const first = env.engine({ cwd: repo });
    const seen: SDKMessage[] = [];
    for await (const m of first.submitMessage('read twice')) {
      seen.push(m);
      if (m.type === 'assistant') break; // the caller goes away after the first assistant message
    }
    const position = first.position;
    expect(position).not.toBeNull();
    // A new process would build a new engine for the same session and follow the turn.
    const second = env.engine({ cwd: repo, sessionId: first.sessionId });
    for await (const m of second.follow(position!)) seen.push(m);
    expect(types(seen)).toEqual(['system/init', 'assistant', 'user', 'assistant', 'user', 'assistant', 'result']);
    expect(new Set(seen.map((m) => m.uuid)).size).toBe(seen.length);
    expect(seen.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'end' });
  });
});

describe('tool offer', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('tools: a tool the turn did not offer does not run; the model is told it does not exist', async () => {
    env = await startRunnerEnv({
      scenario: {
        steps: [
          { content: [{ tool_use: { name: 'Bash', input: { command: 'touch ran.txt' } } }] },
          {
            expect: { lastToolResultContains: 'No such tool available: Bash', lastToolResultIsError: true },
            content: [{ text: 'ok' }],
          },
        ],
      },
    });
    const repo = makeRepo({});
    const { result } = await env.runTurn(env.engine({ cwd: repo }), 'try bash', { tools: ['Read', 'Glob'] });
    expect(result.subtype).toBe('success');
    expect(existsSync(join(repo, 'ran.txt'))).toBe(false);
  });
});

describe('scoped permission rules', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('permissions: with --allowedTools "Bash(echo *)" "Edit(ok.txt)" an echo into ok.txt runs, another command is denied and reported', async () => {
    env = await startRunnerEnv({
      scenario: {
        steps: [
          { content: [{ tool_use: { name: 'Bash', input: { command: 'echo allowed > ok.txt' } } }] },
          { content: [{ tool_use: { name: 'Bash', input: { command: 'touch denied.txt' } } }] },
          { expect: { lastToolResultIsError: true }, content: [{ text: 'done' }] },
        ],
      },
    });
    const repo = makeRepo({});
    const { result } = await env.runTurn(env.engine({ cwd: repo }), 'run', {
      permissionMode: 'default',
      // The redirection is an edit of ok.txt: default mode asks before a command changes files.
      allowedTools: ['Bash(echo *)', 'Edit(ok.txt)'],
    });
    expect(result.subtype).toBe('success');
    expect(existsSync(join(repo, 'ok.txt'))).toBe(true);
    expect(existsSync(join(repo, 'denied.txt'))).toBe(false);
    expect(result.permission_denials).toEqual([
      expect.objectContaining({ tool_name: 'Bash', tool_input: { command: 'touch denied.txt' } }),
    ]);
  });
});
