/**
 * Recording scenarios of issue 22: custom slash commands, skills and the Skill tool, plugins,
 * deferred tools and ToolSearch, `--bare`.
 */
import { join } from 'node:path';
import type { ContentSpec, StepSpec } from '../../../src/fake-model';
import type { RecordingScenario } from './scenario';
import { RECORDING_FILES } from './scenario';

const tool = (name: string, input: Record<string, unknown>): ContentSpec => ({ tool_use: { name, input } });
const text = (t: string): ContentSpec => ({ text: t });
const done: StepSpec = { content: [text('Done.')] };
const user = (content: unknown): unknown => ({ type: 'user', message: { role: 'user', content } });

/** The fixture MCP servers. */
const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'mcp');
const MANY_TOOLS = join(FIXTURES, 'many-tools-server.js');
const FIXTURE_SERVER = join(FIXTURES, 'fixture-server.js');

/** A command with every frontmatter field and every kind of expansion in its body. */
const FIX_CI = [
  '---',
  'description: Fix the failing CI job',
  'argument-hint: <file> [reason] [more]',
  'allowed-tools: Bash(touch allowed-by-command.txt), Read',
  '---',
  'Fix CI for $1 (reason: $2; third: $3; fourth: $4).',
  'Zero-based: $0. All arguments: $ARGUMENTS. Indexed: $ARGUMENTS[0] and $ARGUMENTS[1].',
  '',
  'The file: @src/math.js',
  'A missing file: @src/missing.js',
  '',
  'Shell: !`echo shell-output-$((6*7))`',
  '',
  'Done when the tests pass.',
  '',
].join('\n');

const COMMAND_FILES = {
  ...RECORDING_FILES,
  '.claude/commands/fix-ci.md': FIX_CI,
  '.claude/commands/plain.md': 'A command with no frontmatter. Arguments: $ARGUMENTS\n',
  '.claude/commands/no-args.md': '---\ndescription: Takes no arguments\n---\nA body without placeholders.\n',
  '.claude/commands/frontend/component.md':
    '---\ndescription: Make a component\n---\nMake the component $ARGUMENTS in the frontend.\n',
  '.claude/commands/ns/sub/deep.md': 'Deeply namespaced: $ARGUMENTS\n',
  '.claude/commands/both.md': '---\ndescription: Project version\n---\nProject body of both.\n',
  '.claude/commands/with-model.md':
    '---\ndescription: Runs on Haiku\nmodel: claude-haiku-4-5\n---\nA command whose frontmatter picks the model.\n',
  '.claude/commands/hidden.md':
    '---\ndescription: Not for the model\ndisable-model-invocation: true\n---\nHidden body $ARGUMENTS\n',
  '.claude/commands/shell-write.md':
    '---\ndescription: Runs a writing shell line without permission\n---\nResult: !`touch shell-made.txt && echo made`\n',
  '.claude/commands/shell-write-allowed.md':
    '---\ndescription: Runs a writing shell line it allows\nallowed-tools: Bash(touch:*)\n---\nResult: !`touch allowed-made.txt && echo made`\n',
  '.claude/commands/shell-fails.md':
    '---\ndescription: A shell line that fails\n---\nResult: !`cat no-such-file.txt`\n',
  '.claude/commands/shell-outside.md':
    '---\ndescription: A shell line outside the working directory\n---\nResult: !`ls /nonexistent-dir`\n',
};

const USER_COMMANDS = {
  '.claude/commands/user-cmd.md':
    '---\ndescription: A user command\nargument-hint: [topic]\n---\nUser command about $ARGUMENTS.\n',
  '.claude/commands/both.md': '---\ndescription: User version\n---\nUser body of both.\n',
  '.claude/commands/tools/lint.md': '---\ndescription: Lint from the user folder\n---\nLint $ARGUMENTS\n',
};

/** A skill with frontmatter and a supporting file; a user skill; one the model may not invoke. */
const SKILL_FILES = {
  ...RECORDING_FILES,
  '.claude/skills/release-notes/SKILL.md': [
    '---',
    'name: release-notes',
    'description: Writes release notes from the git log. Use when asked for a changelog or release notes.',
    'allowed-tools: Bash(touch release-notes.txt), Read',
    '---',
    '# Release notes',
    '',
    'Run `git log --oneline` and group the commits. Arguments: $ARGUMENTS',
    'See [the template](template.md).',
    '',
  ].join('\n'),
  '.claude/skills/release-notes/template.md': '## Changes\n- …\n',
  '.claude/skills/manual-only/SKILL.md':
    '---\nname: manual-only\ndescription: Only for people\ndisable-model-invocation: true\n---\nManual body.\n',
  '.claude/skills/no-frontmatter/SKILL.md': 'A skill with no frontmatter at all.\n',
};
const USER_SKILLS = {
  '.claude/skills/user-skill/SKILL.md':
    '---\nname: user-skill\ndescription: A skill from the user folder\n---\nUser skill body.\n',
};

/** A plugin with a command, an agent, a skill, a hook and an MCP server. */
function pluginFiles(dir: string): Record<string, string> {
  return {
    [`${dir}/.claude-plugin/plugin.json`]: JSON.stringify(
      { name: 'demo', version: '1.0.0', description: 'A demo plugin', author: { name: 'Conformance' } },
      null,
      2,
    ),
    [`${dir}/commands/hello.md`]:
      '---\ndescription: Say hello from the plugin\n---\nHello from the plugin: $ARGUMENTS\n',
    [`${dir}/agents/helper.md`]:
      '---\nname: helper\ndescription: A helper agent from the plugin\ntools: Read\n---\nYou are the plugin helper.\n',
    [`${dir}/skills/plug-skill/SKILL.md`]:
      '---\nname: plug-skill\ndescription: A skill from the plugin\n---\nPlugin skill body.\n',
    [`${dir}/hooks/hooks.json`]: JSON.stringify(
      {
        hooks: {
          UserPromptSubmit: [
            { hooks: [{ type: 'command', command: 'echo "plugin hook saw the prompt (root ${CLAUDE_PLUGIN_ROOT})"' }] },
          ],
        },
      },
      null,
      2,
    ),
    [`${dir}/.mcp.json`]: JSON.stringify(
      { mcpServers: { fixture: { command: process.execPath, args: [FIXTURE_SERVER] } } },
      null,
      2,
    ),
  };
}

function mcpConfig(servers: Record<string, number>): string {
  return JSON.stringify({
    mcpServers: Object.fromEntries(
      Object.entries(servers).map(([p, n]) => [
        p,
        { command: process.execPath, args: [MANY_TOOLS, '--tools', String(n), '--prefix', p] },
      ]),
    ),
  });
}
const FEW_MCP = mcpConfig({ few: 3 });
const MANY_MCP = mcpConfig({ alpha: 20, beta: 20, gamma: 20 });

/** Tool deferral under each ENABLE_TOOL_SEARCH value, MCP tool count, tool subset and model. */
function deferralVariants(): NonNullable<RecordingScenario['variants']> {
  const out: NonNullable<RecordingScenario['variants']> = [];
  for (const value of [undefined, 'true', 'false', 'auto', 'auto:1', 'auto:50']) {
    const env = value === undefined ? {} : { ENABLE_TOOL_SEARCH: value };
    const label = value === undefined ? 'ENABLE_TOOL_SEARCH unset' : `ENABLE_TOOL_SEARCH=${value}`;
    out.push({ id: `${label}, no MCP`, env });
    out.push({ id: `${label}, 3 MCP tools`, env, args: ['--mcp-config', FEW_MCP] });
    out.push({ id: `${label}, 60 MCP tools`, env, args: ['--mcp-config', MANY_MCP] });
  }
  out.push(
    { id: '--tools Read,WebFetch,NotebookEdit', args: ['--tools', 'Read,WebFetch,NotebookEdit'] },
    {
      id: '--tools Read,WebFetch,NotebookEdit, 3 MCP tools',
      args: ['--tools', 'Read,WebFetch,NotebookEdit', '--mcp-config', FEW_MCP],
    },
    { id: '--tools "" (none), 3 MCP tools', args: ['--tools', '', '--mcp-config', FEW_MCP] },
    { id: '--model claude-haiku-4-5', args: ['--model', 'claude-haiku-4-5'] },
    { id: '--model claude-3-5-haiku-20241022', args: ['--model', 'claude-3-5-haiku-20241022'] },
    {
      id: '--disallowedTools ToolSearch, 3 MCP tools',
      args: ['--disallowedTools', 'ToolSearch', '--mcp-config', FEW_MCP],
    },
  );
  return out;
}

/** The scenarios of issue 22. */
export const COMMAND_SCENARIOS: readonly RecordingScenario[] = [
  {
    name: 'command-frontmatter-args',
    title: 'a project command with frontmatter, $ARGUMENTS/$n, @file and a ! shell line (-p)',
    issue: 22,
    files: COMMAND_FILES,
    homeFiles: USER_COMMANDS,
    prompt: '/fix-ci src/math.js "two words" third',
    steps: [
      {
        content: [
          tool('Bash', { command: 'touch allowed-by-command.txt', description: 'allowed by the command' }),
          tool('Bash', { command: 'touch not-allowed.txt', description: 'not allowed by the command' }),
        ],
      },
      done,
    ],
  },
  {
    name: 'command-plain-and-namespaced',
    title: 'commands without frontmatter, namespaced, from HOME, and a name in both places (stream-json input)',
    issue: 22,
    files: COMMAND_FILES,
    homeFiles: USER_COMMANDS,
    stdin: [
      user('/plain one two'),
      user('/frontend:component Button'),
      user('/ns:sub:deep x y'),
      user('/user-cmd caching'),
      user('/tools:lint src'),
      user('/both'),
      user('/no-args ignored words'),
    ],
    args: ['--replay-user-messages'],
    steps: [done, done, done, done, done, done, done],
  },
  {
    name: 'command-model-frontmatter',
    title: 'a command whose frontmatter sets model: the request of that turn',
    issue: 22,
    files: COMMAND_FILES,
    prompt: '/with-model',
    steps: [done],
  },
  {
    name: 'command-unknown-p',
    title: 'an unknown /name through -p',
    issue: 22,
    files: COMMAND_FILES,
    prompt: '/no-such-command some args',
    steps: [done],
  },
  {
    name: 'command-unknown-stream',
    title: 'an unknown /name, then a path-like /text, then a known command, through stream-json input',
    issue: 22,
    files: COMMAND_FILES,
    stdin: [user('/no-such-command some args'), user('/usr/bin/env is a path'), user('/fix-ci src/math.js')],
    steps: [done, done, done],
  },
  {
    name: 'command-shell-permissions',
    title:
      '! shell lines: a writing command not allowed, one allowed by allowed-tools, one that fails, one outside the cwd',
    issue: 22,
    files: COMMAND_FILES,
    stdin: [user('/shell-write'), user('/shell-write-allowed'), user('/shell-fails'), user('/shell-outside')],
    steps: [done, done, done, done],
  },
  {
    name: 'stream-input-queued-after-tool-turn',
    title: 'stream-json input written all at once: the line queued behind a turn with a tool call is dropped',
    issue: 22,
    stdin: [user('First: text only.'), user('Second: a tool.'), user('Third: never answered.')],
    steps: [
      { content: [text('T1.')] },
      { content: [tool('Bash', { command: 'echo hi', description: 'a read-only command' })] },
      { content: [text('T2.')] },
      { content: [text('T3.')] },
    ],
  },
  {
    name: 'stream-input-paced',
    title: 'the same stream-json input, each line sent after the previous result (as the Agent SDK does)',
    issue: 22,
    stdin: [user('First: text only.'), user('Second: a tool.'), user('Third: answered.')],
    stdinPaced: true,
    steps: [
      { content: [text('T1.')] },
      { content: [tool('Bash', { command: 'echo hi', description: 'a read-only command' })] },
      { content: [text('T2.')] },
      { content: [text('T3.')] },
    ],
  },
  {
    name: 'command-resume',
    title: 'a command as the prompt of a --resume run',
    issue: 22,
    files: COMMAND_FILES,
    prompt: 'First turn, no command.',
    resume: { prompt: '/plain after resume', args: [] },
    steps: [done, done],
  },
  {
    name: 'command-via-skill-tool',
    title:
      'the model invokes commands through the Skill tool: allowed by Skill(fix-ci), not allowed, disable-model-invocation, unknown',
    issue: 22,
    files: COMMAND_FILES,
    homeFiles: USER_COMMANDS,
    args: ['--allowedTools', 'Skill(fix-ci)'],
    steps: [
      { content: [tool('Skill', { skill: 'fix-ci', args: 'src/math.js flaky' })] },
      { content: [tool('Skill', { skill: 'plain', args: 'x' })] },
      { content: [tool('Skill', { skill: 'hidden' })] },
      { content: [tool('Skill', { skill: 'no-such-skill' })] },
      done,
    ],
  },
  {
    name: 'sdk-initialize-commands',
    title: "the Agent SDK's initialize result: commands, agents, models (with project and user commands and skills)",
    issue: 22,
    files: { ...COMMAND_FILES, ...SKILL_FILES },
    homeFiles: { ...USER_COMMANDS, ...USER_SKILLS },
    sdk: { prompts: ['/plain from the SDK'], options: { model: 'claude-sonnet-5-5', maxTurns: 3 } },
    steps: [done, done],
  },
  {
    name: 'skill-listed-and-loaded',
    title: 'skills listed to the model, the Skill tool loads them, allowed-tools apply only after the load',
    issue: 22,
    git: true,
    files: SKILL_FILES,
    homeFiles: USER_SKILLS,
    // A project skill needs a rule for the Skill tool in default mode (see command-via-skill-tool).
    args: ['--allowedTools', 'Skill'],
    steps: [
      { content: [tool('Bash', { command: 'touch release-notes.txt', description: 'before the skill is loaded' })] },
      { content: [text('Loading the skill.'), tool('Skill', { skill: 'release-notes', args: 'v1.2' })] },
      { content: [tool('Bash', { command: 'touch release-notes.txt', description: 'after the skill is loaded' })] },
      { content: [tool('Skill', { skill: 'user-skill' })] },
      { content: [tool('Skill', { skill: 'no-frontmatter', args: 'a b' })] },
      { content: [tool('Skill', { skill: 'manual-only' })] },
      done,
    ],
  },
  {
    name: 'skill-as-command',
    title: 'a skill invoked as a slash command, and a disable-model-invocation skill invoked by the user',
    issue: 22,
    files: SKILL_FILES,
    homeFiles: USER_SKILLS,
    stdin: [user('/release-notes v2.0'), user('/manual-only now')],
    steps: [done, done],
  },
  {
    name: 'plugin-dir',
    title: "--plugin-dir: a plugin's command, agent, skill, hook and MCP server",
    issue: 22,
    files: { ...RECORDING_FILES, ...pluginFiles('plugins/demo') },
    args: ['--plugin-dir', '{{repo}}/plugins/demo', '--allowedTools', 'mcp__plugin_demo_fixture'],
    stdin: [user('/demo:hello world'), user('/hello bare name')],
    steps: [
      {
        content: [
          tool('Skill', { skill: 'demo:plug-skill' }),
          tool('ToolSearch', { query: 'select:mcp__plugin_demo_fixture__add' }),
        ],
      },
      { content: [tool('mcp__plugin_demo_fixture__add', { a: 2, b: 3 })] },
      done,
      done,
    ],
  },
  {
    name: 'plugin-settings-enabled',
    title: 'a plugin from a local marketplace enabled in settings (enabledPlugins, extraKnownMarketplaces)',
    issue: 22,
    files: {
      ...RECORDING_FILES,
      ...pluginFiles('market/plugins/demo'),
      'market/.claude-plugin/marketplace.json': JSON.stringify(
        {
          name: 'local-market',
          owner: { name: 'Conformance' },
          plugins: [{ name: 'demo', source: './plugins/demo', description: 'A demo plugin' }],
        },
        null,
        2,
      ),
      '.claude/settings.json': JSON.stringify(
        {
          extraKnownMarketplaces: { 'local-market': { source: { source: 'directory', path: '{{repo}}/market' } } },
          enabledPlugins: { 'demo@local-market': true },
        },
        null,
        2,
      ),
    },
    homeFiles: { '.claude.json': JSON.stringify({ projects: { '{{repo}}': { hasTrustDialogAccepted: true } } }) },
    prompt: '/demo:hello from settings',
    steps: [done],
  },
  {
    name: 'deferred-tools-toolsearch',
    title:
      'deferred tools: the reminder, ToolSearch select:/keyword/+required queries, no match, loaded and unloaded tools called',
    issue: 22,
    files: {
      ...RECORDING_FILES,
      'nb.ipynb': JSON.stringify({
        cells: [
          { cell_type: 'code', id: 'c1', metadata: {}, source: ['print(1)'], outputs: [], execution_count: null },
        ],
        metadata: {},
        nbformat: 4,
        nbformat_minor: 5,
      }),
    },
    args: ['--permission-mode', 'acceptEdits', '--allowedTools', 'WebFetch'],
    steps: [
      { content: [tool('ToolSearch', { query: 'select:NotebookEdit,CronList' })] },
      { content: [tool('ToolSearch', { query: 'schedule recurring prompt', max_results: 3 })] },
      { content: [tool('ToolSearch', { query: '+notebook cell' })] },
      { content: [tool('ToolSearch', { query: 'select:NoSuchTool' }), tool('ToolSearch', { query: 'zzzz qqqq' })] },
      { content: [tool('Read', { file_path: '{{cwd}}/nb.ipynb' })] },
      {
        content: [tool('NotebookEdit', { notebook_path: '{{cwd}}/nb.ipynb', cell_id: 'c1', new_source: 'print(2)' })],
      },
      { content: [tool('WebFetch', { url: 'https://example.com', prompt: 'not loaded yet' })] },
      done,
    ],
  },
  {
    name: 'deferred-mcp-large',
    title: 'MCP tools of 3 servers of 20 tools: deferred, then one loaded and called',
    issue: 22,
    args: ['--mcp-config', MANY_MCP, '--allowedTools', 'mcp__beta'],
    steps: [
      { content: [tool('ToolSearch', { query: 'select:mcp__beta__beta_7' })] },
      { content: [tool('mcp__beta__beta_7', { value: 'hi' })] },
      done,
    ],
  },
  {
    name: 'deferred-mcp-env',
    title: 'ENABLE_TOOL_SEARCH=false: the same 60 MCP tools, none deferred',
    issue: 22,
    env: { ENABLE_TOOL_SEARCH: 'false' },
    args: ['--mcp-config', MANY_MCP],
    steps: [done],
  },
  {
    name: 'deferral-matrix',
    title: 'which tools are deferred: ENABLE_TOOL_SEARCH values, MCP tool counts, --tools subsets, models',
    issue: 22,
    prompt: 'Say done.',
    steps: [done],
    respond: () => done,
    variants: deferralVariants(),
  },
  {
    name: 'bare',
    title: '--bare: no CLAUDE.md, settings, hooks, plugins, skills, commands',
    issue: 22,
    files: {
      ...COMMAND_FILES,
      ...SKILL_FILES,
      'CLAUDE.md': 'Project memory: always answer in French.\n',
      '.claude/settings.json': JSON.stringify({
        hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo hook-ran > hook-ran.txt' }] }] },
        permissions: { allow: ['Bash(touch settings-allowed.txt)'] },
      }),
    },
    homeFiles: {
      ...USER_COMMANDS,
      ...USER_SKILLS,
      '.claude/CLAUDE.md': 'User memory: be brief.\n',
      '.claude.json': JSON.stringify({ projects: { '{{repo}}': { hasTrustDialogAccepted: true } } }),
    },
    args: ['--bare'],
    stdin: [user('Plain prompt.'), user('/plain after bare'), user('/release-notes v3')],
    steps: [
      {
        content: [
          tool('Bash', { command: 'touch settings-allowed.txt', description: 'allowed by the settings unless bare' }),
        ],
      },
      done,
      done,
      done,
    ],
  },
  {
    name: 'not-bare-settings',
    title: 'the same repository without --bare (settings allow rule, hook, CLAUDE.md, commands, skills)',
    issue: 22,
    files: {
      ...COMMAND_FILES,
      ...SKILL_FILES,
      'CLAUDE.md': 'Project memory: always answer in French.\n',
      '.claude/settings.json': JSON.stringify({
        hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo hook-ran > hook-ran.txt' }] }] },
        permissions: { allow: ['Bash(touch settings-allowed.txt)'] },
      }),
    },
    homeFiles: {
      ...USER_COMMANDS,
      ...USER_SKILLS,
      '.claude/CLAUDE.md': 'User memory: be brief.\n',
      '.claude.json': JSON.stringify({ projects: { '{{repo}}': { hasTrustDialogAccepted: true } } }),
    },
    stdin: [user('Plain prompt.')],
    steps: [
      {
        content: [
          tool('Bash', { command: 'touch settings-allowed.txt', description: 'allowed by the settings unless bare' }),
        ],
      },
      done,
    ],
  },
];
