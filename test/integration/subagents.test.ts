/**
 * Subagents end to end: the Agent tool as a child turn workflow (foreground and background), the
 * session's task table and its notification turn, the spawn-depth limit, one budget, and a worker
 * killed while a subagent runs. Real Temporal, the real SDK against the fake model server, routed
 * by marker (docs/fake-model.md "Routing by marker").
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SDKMessage, SDKResultMessage } from '../../src/common/sdk-messages';
import { routeByMarker } from '../../src/fake-model';
import type { MarkedScript } from '../../src/fake-model/router';
import type { ParsedRequest } from '../../src/fake-model';
import type { QueryEngine } from '../../src/client/query-engine';
import type { AgentDefinition } from '../../src/common/agents';
import { sessionAgentTypes } from '../../src/client/agent-types';
import { makeRepo, startRunnerEnv, testTurnOptions } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { startWorkerProcess } from '../helpers/worker-process';
import { toolResultText } from '../helpers/tool-results';
import type { WorkerProcess } from '../helpers/worker-process';

jest.setTimeout(120_000);

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

function resultsOf(messages: readonly SDKMessage[]): SDKResultMessage[] {
  return messages.filter((m): m is SDKResultMessage => m.type === 'result');
}

/** The agent id in the request's tool_results (a launch text or a hand-back). */
function agentIdIn(req: ParsedRequest): string {
  const m = /agentId: (a[0-9a-f]{16})/.exec(JSON.stringify(req.messages));
  if (!m?.[1]) throw new Error('no agentId in the request');
  return m[1];
}

describe('subagents', () => {
  let env: RunnerEnv;
  const workers: WorkerProcess[] = [];
  /** Every routed request as `<script>#<step>`, in arrival order. */
  let routes: string[];
  /** Tool names offered in each routed request, by `<script>#<step>`. */
  let toolsOf: Map<string, string[]>;
  /** The last message of each routed request (JSON), by `<script>#<step>`. */
  let lastMessageOf: Map<string, string>;

  async function start(scripts: MarkedScript[], opts: { worker?: boolean } = {}): Promise<void> {
    routes = [];
    toolsOf = new Map();
    lastMessageOf = new Map();
    env = await startRunnerEnv({
      ...(opts.worker === false ? { worker: false } : {}),
      responder: routeByMarker(scripts, {
        onRoute: (req, ctx) => {
          const key = `${ctx.script}#${ctx.scriptStep}`;
          routes.push(key);
          toolsOf.set(
            key,
            (req.tools ?? []).map((t) => String((t as { name?: string }).name)),
          );
          lastMessageOf.set(key, JSON.stringify(req.messages.at(-1)?.content ?? ''));
        },
      }),
    });
  }

  function engine(repo: string, subagents: Record<string, unknown> = {}): QueryEngine {
    return env.engine({ cwd: repo, defaults: testTurnOptions({ subagents }) });
  }

  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop().catch(() => undefined);
    await env?.close();
  });

  test("subagents: a foreground Agent call runs a child turn; its report is the tool_result (Claude Code's hand-back) and its spend counts in the parent's modelUsage", async () => {
    await start([
      {
        marker: '[as:main]',
        steps: [
          {
            content: [
              {
                tool_use: {
                  name: 'Agent',
                  input: { description: 'Count', prompt: '[as:helper] Count the files.', run_in_background: false },
                },
              },
            ],
          },
          { content: [{ text: 'The helper counted one file.' }] },
        ],
      },
      {
        marker: '[as:helper]',
        steps: [
          { content: [{ tool_use: { name: 'Bash', input: { command: 'ls | wc -l' } } }] },
          { content: [{ text: 'There is 1 file.' }] },
        ],
      },
    ]);
    const repo = makeRepo({ 'a.txt': 'a' });
    const e = engine(repo);
    const messages = await collect(e.submitMessage('[as:main] Do the task.'));
    const [result] = resultsOf(messages);
    expect(result).toMatchObject({ subtype: 'success', result: 'The helper counted one file.' });
    const handback = toolResultText(messages, 'toolu_as_main_0_0');
    expect(handback).toContain('<tools-used-before-summary>Bash</tools-used-before-summary>');
    expect(handback).toContain('\n  There is 1 file.\n');
    expect(handback).toMatch(/agentId: a[0-9a-f]{16} \(use SendMessage/);
    expect(handback).toMatch(/<usage>subagent_tokens: \d+\ntool_uses: 1\nduration_ms: \d+<\/usage>/);
    expect(routes).toEqual(['[as:main]#0', '[as:helper]#0', '[as:helper]#1', '[as:main]#1']);
    // The child's output tokens are in modelUsage (one budget), not in the turn's own usage.
    const mu = Object.values(result!.modelUsage);
    const modelOut = mu.reduce((n, u) => n + u.outputTokens, 0);
    expect(modelOut).toBeGreaterThan(result!.usage.output_tokens);
    // The helper's lines are its sidechain: the session's leaf is still the parent's answer.
    const lines = await env.store.load(e.sessionId);
    expect(lines.filter((l) => /-agent-a[0-9a-f]{16}-1$/.test(l.turnId ?? '')).length).toBeGreaterThan(0);
  });

  test('subagents: a background Agent call (the default) returns the launch text at once; its end starts a notification turn with a second result', async () => {
    await start([
      {
        marker: '[as:main]',
        steps: [
          { content: [{ tool_use: { name: 'Agent', input: { description: 'Count', prompt: '[as:helper] Count.' } } }] },
          { content: [{ text: 'The helper is running.' }] },
          { content: [{ text: 'The helper counted one file.' }] },
        ],
      },
      {
        marker: '[as:helper]',
        steps: [{ delay_ms: 1500, content: [{ text: 'There is 1 file.' }] }],
      },
    ]);
    const repo = makeRepo({});
    const e = engine(repo);
    const first = await collect(e.submitMessage('[as:main] Do the task.'));
    expect(toolResultText(first, 'toolu_as_main_0_0')).toMatch(/^Async agent launched successfully\./);
    expect(resultsOf(first).map((r) => r.result)).toEqual(['The helper is running.']);
    const later = await collect(e.followTasks());
    // As Claude Code 2.1.328: the ended agent's run (its messages, task_updated, task_notification), then the turn's init.
    const init = later.findIndex((m) => m.type === 'system' && m.subtype === 'init');
    const notified = later.findIndex((m) => m.type === 'system' && m.subtype === 'task_notification');
    expect(notified).toBeGreaterThanOrEqual(0);
    expect(init).toBeGreaterThan(notified);
    expect(later.slice(0, notified).filter((m) => m.type === 'assistant').length).toBeGreaterThan(0);
    expect(
      later
        .slice(0, notified)
        .every((m) => m.type === 'system' || ('parent_tool_use_id' in m && m.parent_tool_use_id !== null)),
    ).toBe(true);
    expect(resultsOf(later).map((r) => r.result)).toEqual(['The helper counted one file.']);
    // The notification turn's first line, as the model saw it.
    const text = lastMessageOf.get('[as:main]#2') ?? '';
    expect(text).toContain('<task-notification>');
    expect(text).toContain('<status>completed</status>');
    expect(text).toContain('<result>There is 1 file.</result>');
    const status = await e.state();
    expect(status.tasks?.entries.map((t) => t.status)).toEqual(['completed']);
    expect(status.tasks?.stats).toMatchObject({ spawned: 1, started_in_background: 1, completed: 1 });
  });

  test('subagents: a client that asks for the task turns only after they ended still gets each one (turns are followed by number)', async () => {
    await start([
      {
        marker: '[as:main]',
        steps: [
          { content: [{ tool_use: { name: 'Agent', input: { description: 'Count', prompt: '[as:helper] Count.' } } }] },
          { content: [{ text: 'The helper is running.' }] },
          { content: [{ text: 'The helper counted one file.' }] },
        ],
      },
      { marker: '[as:helper]', steps: [{ content: [{ text: 'There is 1 file.' }] }] },
    ]);
    const e = engine(makeRepo({}));
    const first = await collect(e.submitMessage('[as:main] Do the task.'));
    expect(resultsOf(first).map((r) => r.result)).toEqual(['The helper is running.']);
    // Wait until the notification turn has ended: nothing runs when followTasks is called.
    for (let i = 0; i < 300; i++) {
      const s = await e.state();
      if (s.turnCount >= 2 && !s.busy) break;
      await sleep(100);
    }
    expect(await e.state()).toMatchObject({ turnCount: 2, busy: false });
    const later = await collect(e.followTasks());
    // As Claude Code 2.1.328: the ended agent's run (its messages, task_updated, task_notification), then the turn's init.
    const init = later.findIndex((m) => m.type === 'system' && m.subtype === 'init');
    const notified = later.findIndex((m) => m.type === 'system' && m.subtype === 'task_notification');
    expect(notified).toBeGreaterThanOrEqual(0);
    expect(init).toBeGreaterThan(notified);
    expect(later.slice(0, notified).filter((m) => m.type === 'assistant').length).toBeGreaterThan(0);
    expect(
      later
        .slice(0, notified)
        .every((m) => m.type === 'system' || ('parent_tool_use_id' in m && m.parent_tool_use_id !== null)),
    ).toBe(true);
    expect(resultsOf(later).map((r) => r.result)).toEqual(['The helper counted one file.']);
  });

  test.each([
    ['--disallowedTools Agent', ['Agent']],
    ["Claude Code's other name, Task", ['Task']],
  ])(
    'subagents: a deny rule for the Agent tool (%s) refuses the call as any tool is refused: no child runs, the denial is reported',
    async (_what, disallowedTools) => {
      await start([
        {
          marker: '[as:main]',
          steps: [
            {
              content: [
                {
                  tool_use: {
                    name: 'Agent',
                    input: { description: 'Look', prompt: '[as:helper] Look.', run_in_background: false },
                  },
                },
              ],
            },
            { content: [{ text: 'Done.' }] },
          ],
        },
        { marker: '[as:helper]', steps: [{ content: [{ text: 'Looked.' }] }] },
      ]);
      const e = env.engine({ cwd: makeRepo({}), defaults: testTurnOptions({ subagents: {}, disallowedTools }) });
      const messages = await collect(e.submitMessage('[as:main] Do the task.'));
      expect(toolResultText(messages, 'toolu_as_main_0_0')).toBe(
        'Permission to use Agent has been denied by a permission rule (Agent).',
      );
      expect(routes.filter((r) => r.startsWith('[as:helper]'))).toEqual([]);
      const result = resultsOf(messages)[0];
      expect(result?.permission_denials).toEqual([
        expect.objectContaining({ tool_name: 'Agent', tool_use_id: 'toolu_as_main_0_0' }),
      ]);
    },
  );

  test('subagents: an Agent call with isolation "remote" (not built) is refused with a tool error, not run unisolated in the session\'s tree', async () => {
    await start([
      {
        marker: '[as:main]',
        steps: [
          {
            content: [
              {
                tool_use: {
                  name: 'Agent',
                  input: {
                    description: 'Edit',
                    prompt: '[as:helper] Edit.',
                    run_in_background: false,
                    isolation: 'remote',
                  },
                },
              },
            ],
          },
          { content: [{ text: 'Done.' }] },
        ],
      },
      { marker: '[as:helper]', steps: [{ content: [{ text: 'Edited.' }] }] },
    ]);
    const messages = await collect(engine(makeRepo({})).submitMessage('[as:main] Do the task.'));
    expect(resultsOf(messages)[0]).toMatchObject({ subtype: 'success' });
    expect(toolResultText(messages, 'toolu_as_main_0_0')).toContain(
      'isolation: "remote" is not available in agent-runner yet',
    );
    expect(routes).toEqual(['[as:main]#0', '[as:main]#1']);
  });

  test('subagents: the spawn-depth limit (CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH=1): a depth-1 agent is not offered Agent', async () => {
    await start([
      {
        marker: '[as:main]',
        steps: [
          {
            content: [
              {
                tool_use: {
                  name: 'Agent',
                  input: { description: 'Look', prompt: '[as:helper] Look.', run_in_background: false },
                },
              },
            ],
          },
          { content: [{ text: 'Done.' }] },
        ],
      },
      { marker: '[as:helper]', steps: [{ content: [{ text: 'Looked.' }] }] },
    ]);
    const e = engine(makeRepo({}), { maxSpawnDepth: 1 });
    const messages = await collect(e.submitMessage('[as:main] Do the task.'));
    expect(resultsOf(messages)[0]).toMatchObject({ subtype: 'success' });
    expect(toolsOf.get('[as:main]#0')).toContain('Agent');
    expect(toolsOf.get('[as:helper]#0')).not.toContain('Agent');
    expect(toolsOf.get('[as:helper]#0')).toContain('Bash');
  });

  test('subagents: a worker killed (kill -9) while a foreground subagent runs a tool: a new worker finishes it; no completed model call is repeated', async () => {
    await start(
      [
        {
          marker: '[as:main]',
          steps: [
            {
              content: [
                {
                  tool_use: {
                    name: 'Agent',
                    input: { description: 'Slow', prompt: '[as:helper] Run it.', run_in_background: false },
                  },
                },
              ],
            },
            { content: [{ text: 'The helper finished.' }] },
          ],
        },
        {
          marker: '[as:helper]',
          steps: [
            {
              content: [
                { tool_use: { name: 'Bash', input: { command: 'touch started && sleep 3 && echo ok > done.txt' } } },
              ],
            },
            { content: [{ text: 'Ran it.' }] },
          ],
        },
      ],
      { worker: false },
    );
    const repo = makeRepo({});
    workers.push(await startWorkerProcess(env.workerEnv));
    const e = engine(repo);
    const turn = collect(e.submitMessage('[as:main] Do the task.'));
    await waitFor('the helper to start its command', () => existsSync(join(repo, 'started')));
    await workers[0]!.kill9();
    workers.push(await startWorkerProcess(env.workerEnv));
    const messages = await turn;
    expect(resultsOf(messages)[0]).toMatchObject({ subtype: 'success', result: 'The helper finished.' });
    // Every model call ran once: none of the parent's nor the helper's was made again.
    expect(routes).toEqual(['[as:main]#0', '[as:helper]#0', '[as:helper]#1', '[as:main]#1']);
    expect(env.fake.requests().every((r) => r.outcome === 'completed')).toBe(true);
    const lines = await env.store.load(e.sessionId);
    const uuids = lines.map((l) => l.uuid);
    expect(new Set(uuids).size).toBe(uuids.length);
  });

  test('subagents: TaskStop of a running background agent: the session cancels its turn, its notification says killed, the stats count it', async () => {
    await start([
      {
        marker: '[as:main]',
        steps: [
          { content: [{ tool_use: { name: 'Agent', input: { description: 'Wait', prompt: '[as:helper] Wait.' } } }] },
          (req) => ({ content: [{ tool_use: { name: 'TaskStop', input: { task_id: agentIdIn(req) } } }] }),
          { content: [{ text: 'Stopped it.' }] },
          { content: [{ text: 'Noted.' }] },
        ],
      },
      {
        marker: '[as:helper]',
        steps: [
          { content: [{ tool_use: { name: 'Bash', input: { command: 'touch started && sleep 60' } } }] },
          { content: [{ text: 'Never.' }] },
        ],
      },
    ]);
    const repo = makeRepo({});
    const e = engine(repo);
    const first = await collect(e.submitMessage('[as:main] Do the task.'));
    expect(JSON.parse(toolResultText(first, 'toolu_as_main_1_0'))).toMatchObject({
      message: expect.stringMatching(/^Successfully stopped task: a[0-9a-f]{16} \(Wait\)$/),
      task_type: 'local_agent',
    });
    const later = await collect(e.followTasks());
    expect(resultsOf(later).map((r) => r.result)).toEqual(['Noted.']);
    expect(lastMessageOf.get('[as:main]#3')).toContain('<status>killed</status>');
    const status = await e.state();
    expect(status.tasks?.entries.map((t) => [t.status, t.killedBy])).toEqual([['killed', 'parent']]);
    expect(status.tasks?.stats.killed).toEqual({ parent: 1, user: 0, system: 0 });
  });

  test('subagents: SendMessage to a finished background agent runs it again from its own conversation; its new end notifies again', async () => {
    await start([
      {
        marker: '[as:main]',
        steps: [
          { content: [{ tool_use: { name: 'Agent', input: { description: 'Count', prompt: '[as:helper] Count.' } } }] },
          { content: [{ text: 'Waiting.' }] },
          // The notification turn: continue the agent.
          (req) => ({
            content: [{ tool_use: { name: 'SendMessage', input: { to: agentIdIn(req), message: 'And the dirs?' } } }],
          }),
          { content: [{ text: 'Asked again.' }] },
          { content: [{ text: 'All counted.' }] },
        ],
      },
      {
        marker: '[as:helper]',
        steps: [{ content: [{ text: 'One file.' }] }, { content: [{ text: 'No dirs.' }] }],
      },
    ]);
    const e = engine(makeRepo({ 'a.txt': 'a' }));
    await collect(e.submitMessage('[as:main] Do the task.'));
    const later = await collect(e.followTasks());
    expect(resultsOf(later).map((r) => r.result)).toEqual(['Asked again.', 'All counted.']);
    // The second run saw its first run's conversation, then the message.
    expect(routes.filter((r) => r.startsWith('[as:helper]'))).toEqual(['[as:helper]#0', '[as:helper]#1']);
    expect(lastMessageOf.get('[as:helper]#1')).toContain('And the dirs?');
    expect(lastMessageOf.get('[as:main]#4')).toContain('<result>No dirs.</result>');
  });

  test("subagents: SendMessage resumes an agent with its type's restrictions: a read-only Explore agent is not offered Write on its second run", async () => {
    await start([
      {
        marker: '[as:main]',
        steps: [
          {
            content: [
              {
                tool_use: {
                  name: 'Agent',
                  input: { description: 'Look', prompt: '[as:helper] Look.', subagent_type: 'Explore' },
                },
              },
            ],
          },
          { content: [{ text: 'Waiting.' }] },
          (req) => ({
            content: [{ tool_use: { name: 'SendMessage', input: { to: agentIdIn(req), message: 'Now write it.' } } }],
          }),
          { content: [{ text: 'Asked again.' }] },
          { content: [{ text: 'Done.' }] },
        ],
      },
      { marker: '[as:helper]', steps: [{ content: [{ text: 'Looked.' }] }, { content: [{ text: 'Cannot write.' }] }] },
    ]);
    const e = engine(makeRepo({ 'a.txt': 'a' }));
    await collect(e.submitMessage('[as:main] Do the task.'));
    await collect(e.followTasks());
    const first = toolsOf.get('[as:helper]#0') ?? [];
    const second = toolsOf.get('[as:helper]#1') ?? [];
    expect(first).toContain('Read');
    expect(first).not.toContain('Write');
    expect(second).toEqual(first);
  });

  test("subagents: an agent type's maxTurns narrows the session's --max-turns, never widens it", async () => {
    const read = { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } }] };
    await start([
      {
        marker: '[as:main]',
        steps: [
          {
            content: [
              {
                tool_use: {
                  name: 'Agent',
                  input: {
                    description: 'Long',
                    prompt: '[as:long] Go.',
                    subagent_type: 'long',
                    run_in_background: false,
                  },
                },
              },
            ],
          },
          { content: [{ text: 'Handed back.' }] },
        ],
      },
      { marker: '[as:long]', steps: [read, read, read, read, read, { content: [{ text: 'Read five times.' }] }] },
    ]);
    const long: AgentDefinition = {
      agentType: 'long',
      description: 'runs long',
      maxTurns: 500,
      prompt: { text: 'You run long.' },
      source: 'project',
    };
    const e = env.engine({
      cwd: makeRepo({ 'a.txt': 'a' }),
      defaults: testTurnOptions({ subagents: {}, limits: { maxTurns: 2 } }),
      agentTypes: [...sessionAgentTypes({}), long],
    });
    await collect(e.submitMessage('[as:main] Do the task.'));
    // The agent stopped at the session's 2 calls, not its type's 500.
    expect(routes.filter((r) => r.startsWith('[as:long]'))).toEqual(['[as:long]#0', '[as:long]#1']);
  });

  test('subagents: SendMessage to a running background agent is queued and joins its next model call', async () => {
    await start([
      {
        marker: '[as:main]',
        steps: [
          { content: [{ tool_use: { name: 'Agent', input: { description: 'Count', prompt: '[as:helper] Count.' } } }] },
          (req) => ({
            content: [{ tool_use: { name: 'SendMessage', input: { to: agentIdIn(req), message: 'Count dirs too.' } } }],
          }),
          { content: [{ text: 'Sent.' }] },
          { content: [{ text: 'Done.' }] },
        ],
      },
      {
        marker: '[as:helper]',
        steps: [
          { content: [{ tool_use: { name: 'Bash', input: { command: 'sleep 2; ls | wc -l' } } }] },
          { content: [{ text: 'One file, no dirs.' }] },
        ],
      },
    ]);
    const e = engine(makeRepo({ 'a.txt': 'a' }));
    const first = await collect(e.submitMessage('[as:main] Do the task.'));
    expect(resultsOf(first).map((r) => r.result)).toEqual(['Sent.']);
    expect(toolResultText(first, 'toolu_as_main_1_0')).toContain('queued');
    const later = await collect(e.followTasks());
    expect(resultsOf(later).map((r) => r.result)).toEqual(['Done.']);
    expect(lastMessageOf.get('[as:helper]#1')).toContain('Count dirs too.');
    expect(lastMessageOf.get('[as:main]#3')).toContain('<result>One file, no dirs.</result>');
  });
});
