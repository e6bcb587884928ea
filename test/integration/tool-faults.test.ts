/**
 * A tool call that can never succeed (a NUL byte in a path, pattern or command; a name too long
 * for the file system) is answered with an is_error tool_result and the turn carries on, at
 * once: no activity attempt is retried (before, such a call held the turn for 20 attempts,
 * minutes, then failed it). Real dev server, real SDK against the local model server.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ParsedRequest, StepSpec } from '../../src/fake-model';
import { toolResultBlocks, toolResultText } from '../../src/fake-model/request';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { SDKResultMessage } from '../../src/common/sdk-messages';
import { transcriptPath } from '../../src/store/jsonl-store';
import { sessionStateQuery } from '../../src/workflows/messages';
import type { RunnerEnv } from '../helpers/runner-env';

jest.setTimeout(120_000);

let env: RunnerEnv;
let finalRequest: ParsedRequest | undefined;
let cwd = '';
let storeFile = '';

/** Each call, with the error text the model must get for it. */
const calls = (dir: string): Array<{ name: string; input: Record<string, unknown>; error: string }> => [
  {
    name: 'Write',
    input: { file_path: `${dir}/a\u0000b`, content: 'x' },
    error:
      '<tool_use_error>Write file_path cannot contain null bytes (\\0). Remove the null byte and try again.</tool_use_error>',
  },
  {
    name: 'Edit',
    input: { file_path: `${dir}/a.txt\u0000`, old_string: 'one', new_string: 'uno' },
    error:
      '<tool_use_error>Edit file_path cannot contain null bytes (\\0). Remove the null byte and try again.</tool_use_error>',
  },
  {
    name: 'Bash',
    input: { command: `touch ${dir}/ran\u0000` },
    error: `<tool_use_error>InputValidationError: ${JSON.stringify(
      [
        {
          code: 'custom',
          path: ['command'],
          message: 'command contains control characters that would be hidden in the approval dialog',
        },
      ],
      null,
      2,
    )}</tool_use_error>`,
  },
  {
    name: 'Read',
    input: { file_path: `${dir}/a\u0000.txt` },
    error:
      '<tool_use_error>Read file_path cannot contain null bytes (\\0). Remove the null byte and try again.</tool_use_error>',
  },
  {
    name: 'Glob',
    input: { pattern: '*.txt\u0000' },
    error:
      '<tool_use_error>Glob pattern cannot contain null bytes (\\0). Remove the null byte and try again.</tool_use_error>',
  },
  {
    name: 'Grep',
    input: { pattern: 'one', path: `${dir}\u0000` },
    error:
      '<tool_use_error>Grep path cannot contain null bytes (\\0). Remove the null byte and try again.</tool_use_error>',
  },
];

/** The model's answers per case (named in the prompt), and the request after its last tool call. */
const scripts: Record<string, (step: number) => StepSpec> = {
  nul: (step) =>
    step === 0
      ? {
          content: [
            ...calls(cwd).map((c) => ({ tool_use: { name: c.name, input: c.input } })),
            // Not a NUL: the permission check's realpath throws ENAMETOOLONG (an unforeseen exception).
            { tool_use: { name: 'Read', input: { file_path: `${cwd}/${'x'.repeat(300)}/f.txt` } } },
          ],
        }
      : { content: [{ text: 'done' }] },
  // Two calls the rules deny, then a command that makes the session file immutable (chattr +i:
  // not even root writes it), so its own result line cannot be written.
  'store-fails': (step) =>
    step < 2
      ? { content: [{ tool_use: { name: 'Bash', input: { command: `touch denied${step}` } } }] }
      : step === 2
        ? { content: [{ tool_use: { name: 'Bash', input: { command: `chattr +i ${storeFile}` } } }] }
        : { content: [{ text: 'never asked' }] },
  'broken-git': (step) =>
    [
      // The workspace is followed (a git repository): after this call, the runner's snapshot fails.
      {
        content: [{ tool_use: { name: 'Bash', input: { command: "printf '[core\\nbroken = = =\\n' > .git/config" } } }],
      },
      { content: [{ tool_use: { name: 'Write', input: { file_path: `${cwd}/b.txt`, content: 'b\n' } } }] },
      { content: [{ text: 'done' }] },
    ][step] ?? { content: [{ text: 'too many steps' }] },
};

beforeAll(async () => {
  env = await startRunnerEnv({
    responder: (req, ctx): StepSpec => {
      const name = /\[case:([\w-]+)\]/.exec(JSON.stringify(req.messages[0]))?.[1] ?? '';
      const step = scripts[name]?.(ctx.step);
      if (!step) throw new Error(`no script for ${name}`);
      if ('text' in (step.content?.[0] ?? {})) finalRequest = JSON.parse(JSON.stringify(req)) as ParsedRequest;
      return step;
    },
  });
});
afterAll(async () => env?.close());

test('tool faults: NUL bytes in every tool and a name too long get is_error results and the turn succeeds at once', async () => {
  cwd = makeRepo({ 'a.txt': 'one\ntwo\n' });
  const engine = env.engine({ cwd });
  const { result } = await env.runTurn(engine, '[case:nul] do it', {
    permissionMode: 'default',
    allowedTools: ['Write', 'Edit', 'Bash'],
  });
  await engine.end();

  expect(result).toMatchObject({ subtype: 'success', is_error: false, result: 'done', num_turns: 2 });
  const blocks = toolResultBlocks(finalRequest!);
  expect(blocks).toHaveLength(7);
  for (const block of blocks) expect(block['is_error']).toBe(true);
  expect(blocks.slice(0, 6).map(toolResultText)).toEqual(calls(cwd).map((c) => c.error));
  expect(toolResultText(blocks[6]!)).toMatch(/^<tool_use_error>Error: .*ENAMETOOLONG.*<\/tool_use_error>$/);
  // Nothing ran.
  expect(existsSync(join(cwd, 'ran'))).toBe(false);

  // No tool activity failed or was retried: every attempt was the first.
  const history = await env.client.workflow.getHandle(`${engine.workflowId}-turn-1`).fetchHistory();
  const events = history.events ?? [];
  expect(events.filter((e) => e.activityTaskFailedEventAttributes)).toEqual([]);
  const attempts = events.flatMap((e) =>
    e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt ?? 1] : [],
  );
  expect(attempts.every((a) => a === 1)).toBe(true);
  // Retries start at 1 s and double: a retried call would take seconds, 20 of them minutes.
  expect(result.duration_ms).toBeLessThan(20_000);
});

test("tool faults: a git failure from the repository's own broken state is an is_error result, not 20 retries", async () => {
  cwd = makeRepo({ 'a.txt': 'one\n' });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'init', '-q', '-b', 'main'], { cwd });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '-A'], { cwd });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'base'], { cwd });
  const engine = env.engine({ cwd });
  const { result } = await env.runTurn(engine, '[case:broken-git] do it');
  await engine.end();

  expect(result).toMatchObject({ subtype: 'success', is_error: false, result: 'done', num_turns: 3 });
  const blocks = toolResultBlocks(finalRequest!);
  expect(blocks).toHaveLength(2);
  for (const block of blocks) expect(block['is_error']).toBe(true);
  expect(toolResultText(blocks[0]!)).toMatch(
    /^<tool_use_error>Error: Bash ran, but the workspace could not be recorded after it: git .*config/,
  );
  // The tools did run: the model is told so.
  expect(readFileSync(join(cwd, 'b.txt'), 'utf8')).toBe('b\n');

  const history = await env.client.workflow.getHandle(`${engine.workflowId}-turn-1`).fetchHistory();
  const events = history.events ?? [];
  const attempts = events.flatMap((e) =>
    e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt ?? 1] : [],
  );
  expect(attempts.every((a) => a === 1)).toBe(true);
  expect(result.duration_ms).toBeLessThan(20_000);
});

test('failed turn: a turn that fails as a workflow reports the spend, model calls and denials it recorded', async () => {
  cwd = makeRepo({ 'a.txt': 'one\n' });
  const engine = env.engine({ cwd });
  const file = transcriptPath(env.dataDir, engine.sessionId);
  storeFile = file;
  try {
    const { result } = await env.runTurn(engine, '[case:store-fails] do it', {
      permissionMode: 'default',
      allowedTools: ['Bash(chattr *)'],
    });
    expect(result).toMatchObject({ subtype: 'error_during_execution', is_error: true });
    expect((result as { errors?: string[] }).errors?.join('\n')).toContain('Transcript store error');
    const r = result as SDKResultMessage & { total_cost_usd_known?: boolean };
    expect(r.num_turns).toBe(3);
    expect(r.usage.output_tokens).toBeGreaterThan(0);
    expect(r.total_cost_usd).toBeGreaterThan(0);
    expect(r.total_cost_usd_known).not.toBe(false);
    expect(Object.keys(r.modelUsage)).toEqual(['claude-sonnet-5-5']);
    expect(r.permission_denials.map((d) => d.tool_input)).toEqual([
      { command: 'touch denied0' },
      { command: 'touch denied1' },
    ]);
    // The session counts the failed turn's spend too (list/status): at least what the result says.
    const state = await env.client.workflow.getHandle(engine.workflowId).query(sessionStateQuery);
    expect(state.totalCostUsd).toBeGreaterThanOrEqual(r.total_cost_usd);
    expect(state.usage.output_tokens).toBeGreaterThanOrEqual(r.usage.output_tokens);
  } finally {
    execFileSync('chattr', ['-i', file]);
    await engine.end();
  }
});
