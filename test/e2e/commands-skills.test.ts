/**
 * Custom slash commands, skills, plugins, deferred tools and `--bare` through the built CLI
 * (`npm run build` first), against the test dev server and the local model server: each path a
 * prompt can take (`-p`, stream-json input with the SDK's `initialize`, `batch` task prompts,
 * `--resume`), and a skill whose file changed between a turn and its resume.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ParsedRequest, StepSpec } from '../../src/fake-model';
import type { BatchResult } from '../../src/client/batch';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { runCli } from '../helpers/cli';

jest.setTimeout(240_000);

const MANY_TOOLS = join(__dirname, '..', 'fixtures', 'mcp', 'many-tools-server.js');
const FIXTURE_SERVER = join(__dirname, '..', 'fixtures', 'mcp', 'fixture-server.js');

const FIX_CI = [
  '---',
  'description: Fix the failing CI job',
  'argument-hint: <file> [reason]',
  'allowed-tools: Bash(touch allowed-by-command.txt)',
  'model: claude-haiku-4-5',
  '---',
  'Fix CI for $0 (reason: $1). Shell: !`echo shell-$((6*7))`. The file: @src/math.js',
  '',
].join('\n');

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

function repoAndHome(): { repo: string; home: string } {
  const repo = makeRepo({ 'src/math.js': 'export const add = (a, b) => a - b;\n' });
  write(repo, {
    '.claude/commands/fix-ci.md': FIX_CI,
    '.claude/commands/frontend/component.md':
      '---\ndescription: Make a component\n---\nMake the component $ARGUMENTS.\n',
    '.claude/skills/release-notes/SKILL.md':
      '---\nname: release-notes\ndescription: Writes release notes\nallowed-tools: Bash(touch notes.txt)\n---\nVersion one of the skill. Args: $ARGUMENTS\n',
    'plugins/demo/.claude-plugin/plugin.json': JSON.stringify({ name: 'demo', version: '1.0.0' }),
    'plugins/demo/commands/hello.md': '---\ndescription: Say hello\n---\nHello from the plugin: $ARGUMENTS\n',
    'plugins/demo/agents/helper.md': '---\nname: helper\ndescription: A helper agent\ntools: Read\n---\nYou help.\n',
    'plugins/demo/.mcp.json': JSON.stringify({
      mcpServers: { fixture: { command: process.execPath, args: [FIXTURE_SERVER] } },
    }),
  });
  const home = mkdtempSync(join(tmpdir(), 'cmd-home-'));
  write(home, { '.claude/commands/user-cmd.md': 'User command about $ARGUMENTS.\n' });
  return { repo, home };
}

/** Text of every block of a request's messages, joined (what the model was sent). */
function sent(req: ParsedRequest): string {
  return JSON.stringify(req.messages);
}

/** Assistant messages after the last user message that contains `marker` (the step of that conversation). */
function stepAfter(req: ParsedRequest, marker: string): number {
  let at = -1;
  req.messages.forEach((m, i) => {
    if (m.role === 'user' && JSON.stringify(m.content).includes(marker)) at = i;
  });
  return at < 0 ? -1 : req.messages.slice(at).filter((m) => m.role === 'assistant').length;
}

const tool = (name: string, input: Record<string, unknown>): StepSpec => ({ content: [{ tool_use: { name, input } }] });
const text = (t: string): StepSpec => ({ content: [{ text: t }] });

/** Every request the model got, with its headers. */
const seen: Array<{ request: ParsedRequest; headers: Record<string, unknown> }> = [];

/** One script per marker (a text of the prompt or the expanded command), step by step; `Done.` otherwise. */
function scripted(
  scripts: Record<string, StepSpec[]>,
): (req: ParsedRequest, ctx: { headers?: Record<string, unknown> }) => StepSpec {
  return (req, ctx) => {
    seen.push({ request: req, headers: ctx.headers ?? {} });
    for (const [marker, steps] of Object.entries(scripts)) {
      const step = stepAfter(req, marker);
      if (step >= 0 && steps[step]) return steps[step] as StepSpec;
    }
    return text('Done.');
  };
}

describe('commands, skills, plugins and deferred tools end to end', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  const cliEnv = (home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    ...env.workerEnv,
    HOME: home,
    TEMPORAL_ADDRESS: process.env['TEST_TEMPORAL_ADDRESS'] ?? env.workerEnv['TEMPORAL_ADDRESS'],
    ...extra,
  });
  const requestsWith = (marker: string): ParsedRequest[] =>
    seen.map((r) => r.request).filter((r) => sent(r).includes(marker));

  test('batch task prompts: a command with frontmatter and arguments, a namespaced one, an unknown one, a skill loaded, a plugin command, a user command, a deferred tool loaded then called', async () => {
    const { repo, home } = repoAndHome();
    env = await startRunnerEnv({
      responder: scripted({
        'Fix CI for src/math.js': [tool('Bash', { command: 'touch allowed-by-command.txt' }), text('fixed')],
        'Load the skill': [
          tool('Skill', { skill: 'release-notes', args: 'v1.2' }),
          tool('Bash', { command: 'touch notes.txt' }),
          text('noted'),
        ],
        'Use a deferred tool': [
          tool('ToolSearch', { query: 'select:mcp__many__many_2' }),
          tool('mcp__many__many_2', { value: 'hi' }),
          text('used'),
        ],
      }),
    });
    const mcp = JSON.stringify({
      mcpServers: { many: { command: process.execPath, args: [MANY_TOOLS, '--tools', '5', '--prefix', 'many'] } },
    });
    const tasks = [
      { id: 'fix', prompt: '/fix-ci src/math.js "flaky test"' },
      { id: 'ns', prompt: '/frontend:component Button' },
      { id: 'unknown', prompt: '/no-such-command some args' },
      { id: 'skill', prompt: 'Load the skill' },
      { id: 'plugin', prompt: '/demo:hello world' },
      { id: 'user', prompt: '/user-cmd caching' },
      { id: 'deferred', prompt: 'Use a deferred tool' },
    ].map((t) => ({ ...t, cwd: repo }));
    const file = join(repo, 'tasks.jsonl');
    writeFileSync(file, tasks.map((t) => JSON.stringify(t)).join('\n') + '\n');
    const out = join(repo, 'results.jsonl');
    const r = await runCli(
      [
        'batch',
        file,
        '--out',
        out,
        '--progress',
        'none',
        '--allowedTools',
        'Skill mcp__many',
        '--plugin-dir',
        join(repo, 'plugins/demo'),
        '--mcp-config',
        mcp,
      ],
      { env: cliEnv(home), cwd: repo },
    );
    const results = readFileSync(out, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as BatchResult);
    expect({ code: r.code, subtypes: results.map((x) => [x.task_id, x.subtype]).sort() }).toEqual({
      code: 0,
      subtypes: tasks.map((t) => [t.id, 'success']).sort(),
    });

    // The command: its block and expanded body, its model, its allowed-tools, its @file, no raw prompt.
    const [fix] = requestsWith('Fix CI for src/math.js');
    expect(fix?.model).toBe('claude-haiku-4-5');
    expect(sent(fix!)).toContain(
      '<command-message>fix-ci</command-message>\\n<command-name>/fix-ci</command-name>\\n<command-args>src/math.js \\"flaky test\\"</command-args>',
    );
    expect(sent(fix!)).toContain(
      'Fix CI for src/math.js (reason: flaky test). Shell: shell-42. The file: @src/math.js',
    );
    expect(sent(fix!)).toContain('Result of calling the Read tool:\\n1\\texport const add');
    expect(sent(fix!)).not.toContain('/fix-ci src/math.js \\"flaky test\\""');
    expect(existsSync(join(repo, 'allowed-by-command.txt'))).toBe(true);
    expect(requestsWith('Make the component Button.')).not.toHaveLength(0);
    expect(requestsWith('User command about caching.')).not.toHaveLength(0);
    expect(requestsWith('Hello from the plugin: world')).not.toHaveLength(0);
    const [unknown] = requestsWith('/no-such-command some args');
    expect(sent(unknown!)).toContain(
      "The user's message starts with the slash command /no-such-command, but no command with that name is available",
    );
    expect(sent(unknown!)).toContain('/demo:hello');

    // The skill: listed, loaded with the Skill tool, its allowed-tools apply after the load.
    const skill = requestsWith('Load the skill');
    expect(JSON.stringify(skill[0]?.messages)).toContain('- release-notes: Writes release notes');
    expect(skill[0]?.tools?.map((t) => t['name'])).toContain('Skill');
    expect(sent(skill[1]!)).toContain('Launching skill: release-notes');
    expect(sent(skill[1]!)).toContain('Version one of the skill. Args: v1.2');
    expect(existsSync(join(repo, 'notes.txt'))).toBe(true);

    // The deferred tool: named, not sent, loaded by ToolSearch, then sent with defer_loading and called.
    const deferred = requestsWith('Use a deferred tool');
    const names = (req: ParsedRequest | undefined): string[] => (req?.tools ?? []).map((t) => String(t['name']));
    expect(names(deferred[0])).toEqual(expect.arrayContaining(['ToolSearch', 'DeferredToolPlaceholder']));
    expect(names(deferred[0]).filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(JSON.stringify(deferred[0]?.messages)).toContain('mcp__many__many_2');
    expect(deferred[1]?.tools?.find((t) => t['name'] === 'mcp__many__many_2')).toMatchObject({ defer_loading: true });
    expect(sent(deferred[2]!)).toContain('many_2: hi');
    const beta = seen.find((x) => sent(x.request).includes('Use a deferred tool'))?.headers['anthropic-beta'];
    expect(String(beta)).toContain('advanced-tool-use-2025-11-20');
  });

  test('stream-json input: initialize lists the commands, skills and plugin agents; a command and an unknown /name run as turns', async () => {
    const { repo, home } = repoAndHome();
    env = await startRunnerEnv({ responder: scripted({}) });
    const lines = [
      { type: 'control_request', request_id: 'init', request: { subtype: 'initialize' } },
      { type: 'user', message: { role: 'user', content: '/frontend:component Card' } },
      { type: 'user', message: { role: 'user', content: '/nope' } },
    ];
    const r = await runCli(
      [
        '-p',
        '--input-format',
        'stream-json',
        '--output-format',
        'stream-json',
        '--verbose',
        '--plugin-dir',
        'plugins/demo',
      ],
      { env: cliEnv(home), cwd: repo, input: lines.map((l) => JSON.stringify(l)).join('\n') + '\n' },
    );
    expect(r.code).toBe(0);
    const out = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const init = out.find((m) => m['type'] === 'control_response') as {
      response: { response: { commands: Array<Record<string, unknown>>; agents: unknown[] } };
    };
    expect(init.response.response.commands.map((c) => [c['name'], c['description']])).toEqual(
      expect.arrayContaining([
        ['release-notes', 'Writes release notes (project)'],
        ['fix-ci', 'Fix the failing CI job (project)'],
        ['user-cmd', 'User command about $ARGUMENTS. (user)'],
        ['demo:hello', 'Say hello (plugin demo)'],
      ]),
    );
    // The plugin's agent beside the built-in types, as Claude Code lists them all.
    expect(init.response.response.agents).toEqual(
      expect.arrayContaining([
        { name: 'demo:helper', description: 'A helper agent' },
        expect.objectContaining({ name: 'general-purpose' }),
      ]),
    );
    const sysInit = out.find((m) => m['type'] === 'system' && m['subtype'] === 'init') as Record<string, unknown>;
    expect(sysInit['slash_commands']).toEqual(
      expect.arrayContaining(['fix-ci', 'frontend:component', 'demo:hello', 'compact']),
    );
    expect(sysInit['agents']).toEqual(expect.arrayContaining(['demo:helper', 'general-purpose']));
    expect(sysInit['plugins']).toEqual([
      { name: 'demo', path: join(repo, 'plugins/demo'), source: 'demo@inline', version: '1.0.0' },
    ]);
    expect(out.filter((m) => m['type'] === 'result').map((m) => m['subtype'])).toEqual(['success', 'success']);
    expect(requestsWith('Make the component Card.')).not.toHaveLength(0);
    expect(requestsWith('slash command /nope, but no command')).not.toHaveLength(0);
  });

  test('--resume: a command as the prompt of a resumed session; a skill is loaded from what the session stored, and sent as recorded after its file changed', async () => {
    const { repo, home } = repoAndHome();
    const skillFile = join(repo, '.claude/skills/release-notes/SKILL.md');
    const script = scripted({
      'Load it now': [tool('Skill', { skill: 'release-notes' }), text('loaded')],
      'Load it again': [tool('Skill', { skill: 'release-notes' }), text('loaded again')],
    });
    env = await startRunnerEnv({
      responder: (req, ctx) => {
        // The file changes while the turn runs (what a host that took the turn over would find):
        // the skill loads from the definitions the session stored when the turn started.
        if (stepAfter(req, 'Load it now') === 0) {
          writeFileSync(
            skillFile,
            '---\nname: release-notes\ndescription: Writes release notes\n---\nChanged mid-turn.\n',
          );
        }
        return script(req, ctx);
      },
    });
    const first = await runCli(['-p', 'Load it now', '--output-format', 'json', '--allowedTools', 'Skill'], {
      env: cliEnv(home),
      cwd: repo,
    });
    const sessionId = (JSON.parse(first.stdout.trim()) as { session_id: string }).session_id;
    expect(sent(requestsWith('Load it now')[1]!)).toContain('Version one of the skill.');
    write(repo, {
      '.claude/skills/release-notes/SKILL.md':
        '---\nname: release-notes\ndescription: Writes release notes\n---\nVersion two of the skill.\n',
    });
    const second = await runCli(
      ['-p', 'Load it again', '--resume', sessionId, '--output-format', 'json', '--allowedTools', 'Skill'],
      { env: cliEnv(home), cwd: repo },
    );
    expect(second.code).toBe(0);
    const again = requestsWith('Load it again');
    // The first turn's skill text is what was recorded then, whatever the file says now.
    expect(sent(again[0]!)).toContain('Version one of the skill.');
    expect(sent(again[0]!)).not.toContain('Version two');
    // A new load reads what the resumed run's client found.
    expect(sent(again[1]!)).toContain('Version two of the skill.');
    const third = await runCli(['-p', '/frontend:component Table', '--resume', sessionId, '--output-format', 'json'], {
      env: cliEnv(home),
      cwd: repo,
    });
    expect((JSON.parse(third.stdout.trim()) as { subtype: string }).subtype).toBe('success');
    const [table] = requestsWith('Make the component Table.');
    expect(sent(table!)).toContain('loaded again');
  });

  test('--bare: no CLAUDE.md, context or commands; a skill typed as a command is answered without the model; batch too', async () => {
    const { repo, home } = repoAndHome();
    write(repo, { 'CLAUDE.md': 'Project memory: answer in French.\n' });
    env = await startRunnerEnv({ responder: scripted({}) });
    const plain = await runCli(['-p', '/frontend:component Bare', '--bare', '--output-format', 'json'], {
      env: cliEnv(home),
      cwd: repo,
    });
    expect(plain.code).toBe(0);
    const [req] = requestsWith('/frontend:component Bare');
    expect(req?.messages.map((m) => m.role)).toEqual(['user']);
    expect(sent(req!)).not.toContain('French');
    // --bare's tools in 2.1.328's order: by name, the tool-search placeholder second to last.
    expect((req?.tools ?? []).map((t) => t['name'])).toEqual(['Bash', 'Edit', 'DeferredToolPlaceholder', 'Read']);
    expect(JSON.stringify(req?.system)).toContain(`CWD: ${repo}\\nDate: `);
    const skill = await runCli(['-p', '/release-notes v3', '--bare', '--output-format', 'json'], {
      env: cliEnv(home),
      cwd: repo,
    });
    expect(JSON.parse(skill.stdout.trim())).toMatchObject({
      subtype: 'success',
      num_turns: 0,
      result: "/release-notes isn't available in this environment.",
    });
    const file = join(repo, 'bare-tasks.jsonl');
    writeFileSync(file, `${JSON.stringify({ id: 'b', prompt: '/release-notes v4', cwd: repo })}\n`);
    const out = join(repo, 'bare-results.jsonl');
    const b = await runCli(['batch', file, '--bare', '--out', out, '--progress', 'none'], {
      env: cliEnv(home),
      cwd: repo,
    });
    expect(b.code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8').trim())).toMatchObject({
      result: "/release-notes isn't available in this environment.",
    });
  });
});
