/**
 * A session's context on a real dev server: memory files, git status and environment loaded on
 * the worker once per session and rendered into every request as Claude Code does; nested memory
 * after a Read in a subdirectory, once per turn; system prompt parts and memory never in workflow
 * history; an import cycle ends the turn with a setup error.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ParsedRequest, StepSpec } from '../../src/fake-model';
import { contentText } from '../../src/fake-model/request';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

const APPEND = 'APPENDED-SYSTEM-PROMPT-MARKER: answer tersely.';
const ROOT_MEMORY = 'ROOT-MEMORY-MARKER: use tabs.';

/** Kinds of the blocks of each message, e.g. `user: memory, gitStatus, text`. */
function layout(req: ParsedRequest): string[] {
  return req.messages.map((m) => {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    return `${m.role}: ${blocks
      .map((b) => {
        const t = String(b['text'] ?? '');
        if (b.type !== 'text') return b.type;
        if (t.startsWith('<system-reminder>\nCodebase and user instructions')) return 'memory';
        if (t.includes('# gitStatus')) return 'gitStatus';
        if (t.startsWith('<system-reminder>\nContents of ')) return `nested(${/Contents of (\S+):/.exec(t)?.[1]})`;
        if (t.startsWith('# Environment')) return 'environment';
        return 'text';
      })
      .join(', ')}`;
  });
}

describe('session context on a real dev server', () => {
  let env: RunnerEnv;
  let requests: ParsedRequest[];
  let steps: StepSpec[];
  afterEach(async () => env?.close());

  async function start(): Promise<void> {
    requests = [];
    env = await startRunnerEnv({
      responder: (req, ctx) => {
        requests.push(JSON.parse(JSON.stringify(req)) as ParsedRequest);
        const step = steps[ctx.step];
        if (!step) throw new Error(`no step ${ctx.step}`);
        return step;
      },
    });
  }

  test('context: memory, git status and environment once per session; nested memory once per turn; nothing in history', async () => {
    await start();
    const repo = makeRepo({
      'CLAUDE.md': `${ROOT_MEMORY}\n@docs/style.md\n`,
      'docs/style.md': 'Imported style guide.',
      'CLAUDE.local.md': 'Local notes.',
      'sub/CLAUDE.md': 'SUB-MEMORY-MARKER',
      'sub/a.txt': 'a',
      'sub/b.txt': 'b',
    });
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
    const configDir = mkdtempSync(join(tmpdir(), 'claude-config-'));
    writeFileSync(join(configDir, 'CLAUDE.md'), 'USER-MEMORY-MARKER');
    steps = [
      { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/sub/a.txt' } } }] },
      { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/sub/b.txt' } } }] },
      { content: [{ text: 'first turn done' }] },
      { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/sub/a.txt' } } }] },
      { content: [{ text: 'second turn done' }] },
    ];
    const engine = env.engine({ cwd: repo, userConfigDir: configDir });
    const first = await env.runTurn(engine, 'read the files', { appendSystemPrompt: APPEND });
    expect(first.result).toMatchObject({ subtype: 'success', result: 'first turn done' });
    const second = await env.runTurn(engine, 'again', { appendSystemPrompt: APPEND });
    expect(second.result).toMatchObject({ subtype: 'success', result: 'second turn done' });

    expect(requests).toHaveLength(5);
    for (const r of requests) {
      const system = contentText(r.system);
      expect(system.endsWith(`\n\n${APPEND}`)).toBe(true);
    }
    expect(layout(requests[2]!)).toEqual([
      'user: memory, gitStatus, text',
      'system: environment',
      'assistant: tool_use',
      `user: tool_result, nested(${join(repo, 'sub/CLAUDE.md')})`,
      'assistant: tool_use',
      'user: tool_result',
    ]);
    // The second turn: the session's context is not loaded again; the nested memory is.
    expect(layout(requests[4]!).slice(6)).toEqual([
      'assistant: text',
      'user: text',
      'assistant: tool_use',
      `user: tool_result, nested(${join(repo, 'sub/CLAUDE.md')})`,
    ]);
    const memory = contentText(requests[0]!.messages[0]!.content);
    expect(memory.indexOf('USER-MEMORY-MARKER')).toBeLessThan(memory.indexOf(ROOT_MEMORY));
    expect(memory).toContain(`Contents of ${join(repo, 'docs/style.md')} (project instructions`);
    expect(memory).toContain(`Contents of ${join(repo, 'CLAUDE.local.md')} (user's private project instructions`);

    // Content never travels through workflow history: not the appended prompt, not the memory.
    // (The check reads every payload: the turn's prompt, still carried in its input, is found.)
    const payloads = async (id: string): Promise<string> => {
      const history = await env.client.workflow.getHandle(id).fetchHistory();
      const out: string[] = [];
      const walk = (v: unknown): void => {
        if (v instanceof Uint8Array) out.push(Buffer.from(v).toString('utf8'));
        else if (Array.isArray(v)) v.forEach(walk);
        else if (v && typeof v === 'object') Object.values(v).forEach(walk);
      };
      walk(history);
      return out.join('\n');
    };
    expect(await payloads(`${engine.workflowId}-turn-1`)).toContain('read the files');
    for (const id of [engine.workflowId, `${engine.workflowId}-turn-1`, `${engine.workflowId}-turn-2`]) {
      const text = await payloads(id);
      for (const marker of [
        'APPENDED-SYSTEM-PROMPT-MARKER',
        'ROOT-MEMORY-MARKER',
        'USER-MEMORY-MARKER',
        'SUB-MEMORY',
      ]) {
        expect(text).not.toContain(marker);
      }
    }
  });

  test('context: a new session’s workspace is prepared and its context loaded at once, in one workflow task', async () => {
    await start();
    const repo = makeRepo({ 'CLAUDE.md': ROOT_MEMORY, 'a.txt': 'a\n' });
    const git = (...args: string[]): void => {
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo });
    };
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'init');
    steps = [{ content: [{ text: 'done' }] }];
    const engine = env.engine({ cwd: repo });
    const { result } = await env.runTurn(engine, 'hi');
    expect(result).toMatchObject({ subtype: 'success', result: 'done' });
    expect(layout(requests[0]!)).toEqual(['user: memory, gitStatus, text', 'system: environment']);
    const history = await env.client.workflow.getHandle(`${engine.workflowId}-turn-1`).fetchHistory();
    const kinds = (history.events ?? []).map((e) =>
      e.activityTaskScheduledEventAttributes
        ? `scheduled ${e.activityTaskScheduledEventAttributes.activityType?.name ?? ''}`
        : e.activityTaskCompletedEventAttributes
          ? 'completed'
          : null,
    );
    const setup = kinds.filter((k): k is string => k !== null).slice(0, 4);
    expect(setup.slice(0, 2).sort()).toEqual(['scheduled loadContext', 'scheduled prepareWorkspace']);
    expect(setup.slice(2)).toEqual(['completed', 'completed']);
  });

  test('context: a memory import cycle ends the turn with a setup error naming the files', async () => {
    await start();
    const repo = makeRepo({ 'CLAUDE.md': '@a.md', 'a.md': '@b.md', 'b.md': '@a.md' });
    mkdirSync(join(repo, '.git'));
    steps = [{ content: [{ text: 'never called' }] }];
    const { result } = await env.runTurn(env.engine({ cwd: repo }), 'hi');
    expect(result).toMatchObject({
      subtype: 'error_during_execution',
      is_error: true,
      terminal_reason: 'turn_setup_failed',
    });
    expect((result as { errors: string[] }).errors[0]).toContain(`memory import cycle in ${join(repo, 'b.md')}`);
    expect((result as { errors: string[] }).errors[0]).toContain('ContextError.MemoryImportCycle');
    expect(requests).toHaveLength(0);
  });
});
