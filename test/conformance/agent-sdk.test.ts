/**
 * The official Claude Agent SDK as a client of agent-runner: `query()` from the pinned
 * `@anthropic-ai/claude-agent-sdk` (installed on demand into .cache/claude-code) with
 * `pathToClaudeCodeExecutable` pointing at bin/agent-runner.js. The SDK spawns it with
 * `--output-format stream-json --verbose --input-format stream-json`, sends `initialize`, the
 * user messages and control requests on stdin, and reads the messages back.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findTemporalCli } from '../../src/host/dev-server';
import { ensureClaudeCode } from './install';
import type { ScriptedModel, StreamMessage } from './run';
import { RUNNER_BIN, baseEnv, createRepo, ensureRunnerBuilt, promptFor, startScriptedModel } from './run';
import type { ConformanceScenario } from './scenarios';
import { DEFAULT_FILES } from './scenarios';

jest.setTimeout(300_000);

const CLIENT = join(__dirname, 'sdk-client.mjs');

const SDK_SCENARIOS: ConformanceScenario[] = [
  {
    name: 'sdk-read-edit',
    title: 'one turn with tools',
    steps: [
      { content: [{ text: 'Reading.' }, { tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } }] },
      {
        content: [
          { tool_use: { name: 'Edit', input: { file_path: '{{cwd}}/a.txt', old_string: 'two', new_string: 'TWO' } } },
        ],
      },
      { content: [{ text: 'Edited a.txt.' }] },
    ],
  },
  {
    name: 'sdk-two-turns',
    title: 'two user messages in one session',
    steps: [{ content: [{ text: 'First answer.' }] }, { content: [{ text: 'Second answer.' }] }],
  },
  {
    name: 'sdk-can-use-tool',
    title: 'canUseTool denies one call and allows another with a changed input',
    steps: [
      { content: [{ tool_use: { name: 'Bash', input: { command: 'echo denied > denied.txt', description: 'x' } } }] },
      { content: [{ tool_use: { name: 'Write', input: { file_path: '{{cwd}}/out.txt', content: 'original\n' } } }] },
      { content: [{ text: 'Done.' }] },
    ],
  },
  {
    name: 'sdk-interrupt',
    title: 'interrupt() during a long tool call',
    steps: [
      { content: [{ tool_use: { name: 'Bash', input: { command: 'sleep 24', description: 'Wait a long time' } } }] },
      { content: [{ text: 'Should not be needed.' }] },
    ],
  },
];

interface ClientEvent {
  event: string;
  /** The SDK message, on `message` events. */
  message?: StreamMessage;
  /** The error text, on `error` and `interrupt-failed` events. */
  error?: string;
  result?: Record<string, unknown>;
  atMs?: number;
}

let model: ScriptedModel;
let sdkEntry = '';
const roots: string[] = [];

beforeAll(async () => {
  sdkEntry = ensureClaudeCode((l) => process.stderr.write(`[conformance] ${l}\n`)).sdkEntry;
  ensureRunnerBuilt();
  model = await startScriptedModel(SDK_SCENARIOS);
});

afterAll(async () => {
  await model?.close();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

/** Runs the SDK client for a scenario; returns its events, stderr, and the repository. */
async function runClient(
  scenario: string,
  extra: {
    prompts?: string[];
    interruptOnTool?: string;
    setPermissionMode?: string;
    setModel?: string;
    canUseTool?: Record<string, { deny?: string; updatedInput?: Record<string, unknown> }>;
    options?: Record<string, unknown>;
  } = {},
): Promise<{ events: ClientEvent[]; messages: StreamMessage[]; stderr: string; repo: string; code: number | null }> {
  const s = SDK_SCENARIOS.find((x) => x.name === scenario);
  if (!s) throw new Error(`no scenario ${scenario}`);
  const root = mkdtempSync(join(tmpdir(), `conformance-${scenario}-`));
  roots.push(root);
  const repo = join(root, 'repo');
  createRepo(repo, DEFAULT_FILES);
  mkdirSync(join(root, 'home'));
  const env = {
    ...baseEnv(join(root, 'home'), model.server.baseUrl),
    AGENT_RUNNER_DATA_DIR: join(root, 'runner-data'),
    TEMPORAL_CLI_PATH: findTemporalCli(),
  };
  const config = {
    sdkEntry,
    prompts: extra.prompts ?? [promptFor(s)],
    ...(extra.interruptOnTool ? { interruptOnTool: extra.interruptOnTool } : {}),
    ...(extra.setPermissionMode ? { setPermissionMode: extra.setPermissionMode } : {}),
    ...(extra.setModel ? { setModel: extra.setModel } : {}),
    ...(extra.canUseTool
      ? { canUseTool: JSON.parse(JSON.stringify(extra.canUseTool).replaceAll('{{cwd}}', repo)) as unknown }
      : {}),
    options: {
      pathToClaudeCodeExecutable: RUNNER_BIN,
      cwd: repo,
      env,
      model: 'claude-sonnet-5-5',
      maxTurns: 5,
      permissionMode: 'acceptEdits',
      allowedTools: ['Bash'],
      ...(extra.options ?? {}),
    },
  };
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
    (resolve, reject) => {
      const child = spawn(process.execPath, [CLIENT, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the SDK client timed out\n${out}\n${err}`));
      }, 120_000);
      child.once('close', (c) => {
        clearTimeout(timer);
        resolve({ code: c, stdout: out, stderr: err });
      });
    },
  );
  const events = stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as ClientEvent);
  const messages = events.filter((e) => e.event === 'message').map((e) => e.message as StreamMessage);
  return { events, messages, stderr, repo, code };
}

function describeRun(r: { events: ClientEvent[]; stderr: string }): string {
  return `events:\n${r.events.map((e) => JSON.stringify(e).slice(0, 300)).join('\n')}\nstderr:\n${r.stderr.slice(-3000)}`;
}

describe('Claude Agent SDK query() with agent-runner as its executable', () => {
  test('sdk-read-edit: one turn with tool calls streams init, assistant, tool results and the result', async () => {
    const r = await runClient('sdk-read-edit');
    const context = describeRun(r);
    expect({ code: r.code, errors: r.events.filter((e) => e.event === 'error'), context }).toMatchObject({
      code: 0,
      errors: [],
    });
    const types = r.messages.map((m) => (m['subtype'] ? `${String(m['type'])}/${String(m['subtype'])}` : m['type']));
    expect(types).toEqual([
      'system/init',
      'assistant',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'result/success',
    ]);
    const result = r.messages[r.messages.length - 1] ?? {};
    expect(result).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'Edited a.txt.' });
    expect(new Set(r.messages.map((m) => m['session_id'])).size).toBe(1);
    expect(readFileSync(join(r.repo, 'a.txt'), 'utf8')).toBe('one\nTWO\nthree\nfour\nfive\n');
    const init = r.events.find((e) => e.event === 'initialization')?.result;
    // A repository with no commands or skills: only the built-in commands are listed (Claude Code lists its own too).
    expect(init).toMatchObject({ output_style: 'default', current_permission_mode: 'acceptEdits' });
    const commands = (init as { commands: Array<{ name: string; builtin?: boolean }> }).commands;
    expect(commands.map((c) => c.name)).toEqual(expect.arrayContaining(['clear', 'compact']));
    expect(commands.every((c) => c.builtin === true)).toBe(true);
  });

  test('sdk-two-turns: streaming input runs each user message as a turn of one session', async () => {
    const s = SDK_SCENARIOS[1];
    if (!s) throw new Error('scenario missing');
    const r = await runClient('sdk-two-turns', {
      prompts: [promptFor(s), 'And a second question.'],
      setPermissionMode: 'default',
      setModel: 'claude-sonnet-5-5',
    });
    expect({ code: r.code, context: describeRun(r) }).toMatchObject({ code: 0 });
    const results = r.messages.filter((m) => m['type'] === 'result');
    expect(results.map((m) => m['result'])).toEqual(['First answer.', 'Second answer.']);
    // As Claude Code: each result's total_cost_usd and modelUsage are the session's so far (both
    // turns in the second), usage is the turn's own.
    type Result = {
      total_cost_usd: number;
      usage: { output_tokens: number };
      modelUsage: Record<string, { outputTokens: number; costUSD: number }>;
    };
    const [r1, r2] = results as unknown as [Result, Result];
    const m1 = r1.modelUsage['claude-sonnet-5-5'];
    const m2 = r2.modelUsage['claude-sonnet-5-5'];
    expect(m2?.outputTokens).toBe((m1?.outputTokens ?? 0) + r2.usage.output_tokens);
    expect(r2.total_cost_usd).toBeGreaterThan(r1.total_cost_usd);
    expect(r2.total_cost_usd).toBeCloseTo(m2?.costUSD ?? 0, 9);
    expect(new Set(r.messages.map((m) => m['session_id'])).size).toBe(1);
    // The second turn's request carried the first turn: one assistant message in its history.
    const second = model.requests.filter((q) => JSON.stringify(q.messages).includes('And a second question.'));
    expect(second.length).toBeGreaterThan(0);
    expect(second[0]?.messages.filter((m) => m.role === 'assistant')).toHaveLength(1);
  });

  test('sdk-interrupt: interrupt() stops a running tool, the turn ends with an error result, the query ends', async () => {
    const r = await runClient('sdk-interrupt', { interruptOnTool: 'Bash' });
    const context = describeRun(r);
    const asked = r.events.find((e) => e.event === 'interrupting')?.atMs;
    expect({
      asked: asked !== undefined,
      acked: r.events.some((e) => e.event === 'interrupted'),
      context,
    }).toMatchObject({
      asked: true,
      acked: true,
    });
    const result = r.messages.find((m) => m['type'] === 'result');
    expect(result).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true });
    // As with Claude Code 2.1.328, the SDK then rejects: "Claude Code returned an error result: …".
    const end = r.events.find((e) => e.event === 'done' || e.event === 'error');
    expect(end?.event === 'done' || String(end?.error).includes('returned an error result')).toBe(true);
    // Well before the 60 s sleep would have finished.
    if (!((end?.atMs ?? Infinity) - (asked ?? 0) < 20_000)) {
      throw new Error(`the query did not end soon after interrupt()\n${context}`);
    }
  });

  test('sdk-can-use-tool: canUseTool denies one call and allows another with a changed input', async () => {
    const r = await runClient('sdk-can-use-tool', {
      options: { permissionMode: 'default', allowedTools: [] },
      canUseTool: {
        Bash: { deny: 'No shell today.' },
        Write: { updatedInput: { file_path: '{{cwd}}/out.txt', content: 'changed\n' } },
      },
    });
    const context = describeRun(r);
    expect({ code: r.code, errors: r.events.filter((e) => e.event === 'error'), context }).toMatchObject({
      code: 0,
      errors: [],
    });
    const asked = r.events.filter((e) => e.event === 'can_use_tool') as unknown as Array<{
      toolName: string;
      input: unknown;
    }>;
    expect(asked.map((a) => a.toolName)).toEqual(['Bash', 'Write']);
    expect(asked[0]?.input).toEqual({ command: 'echo denied > denied.txt', description: 'x' });
    // The changed input ran; the denied call did not.
    expect(readFileSync(join(r.repo, 'out.txt'), 'utf8')).toBe('changed\n');
    expect(() => readFileSync(join(r.repo, 'denied.txt'))).toThrow();
    const results = r.messages.filter((m) => m['type'] === 'user');
    const bash = JSON.stringify(results[0]);
    expect(bash).toContain('No shell today.');
    expect(bash).toContain('"is_error":true');
    const result = r.messages.find((m) => m['type'] === 'result');
    expect(result).toMatchObject({
      subtype: 'success',
      permission_denials: [
        { tool_name: 'Bash', tool_input: { command: 'echo denied > denied.txt', description: 'x' } },
      ],
    });
  });
});
