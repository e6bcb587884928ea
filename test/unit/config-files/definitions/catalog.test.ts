import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  findCommand,
  loadDefinitions,
  modelInvocable,
  PluginError,
} from '../../../../src/config-files/definitions/catalog';
import { enabledPluginDirs } from '../../../../src/config-files/definitions/plugins';

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'defs-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

const plugin = (dir: string): Record<string, string> => ({
  [`${dir}/.claude-plugin/plugin.json`]: JSON.stringify({ name: 'demo', version: '1.0.0' }),
  [`${dir}/commands/hello.md`]: '---\ndescription: Say hello from the plugin\n---\nHello from the plugin: $ARGUMENTS\n',
  [`${dir}/agents/helper.md`]:
    '---\nname: helper\ndescription: A helper agent\ntools: Read, Grep\nmodel: haiku\n---\nYou are the plugin helper.\n',
  [`${dir}/skills/plug-skill/SKILL.md`]:
    '---\nname: plug-skill\ndescription: A skill from the plugin\n---\nPlugin skill body.\n',
  [`${dir}/hooks/hooks.json`]: JSON.stringify({
    hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo "root ${CLAUDE_PLUGIN_ROOT}"' }] }] },
  }),
  [`${dir}/.mcp.json`]: JSON.stringify({
    mcpServers: { fixture: { command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/server.js'] } },
  }),
});

describe('loadDefinitions', () => {
  const home = tree({
    '.claude/commands/both.md': '---\ndescription: User version\n---\nUser body of both.\n',
    '.claude/commands/tools/lint.md': 'Lint $ARGUMENTS\n',
    '.claude/skills/user-skill/SKILL.md':
      '---\nname: user-skill\ndescription: A skill from the user folder\n---\nUser skill body.\n',
    '.claude/agents/reviewer.md': '---\ndescription: Reviews diffs\n---\nReview.\n',
  });
  const repo = tree({
    '.claude/commands/both.md': '---\ndescription: Project version\n---\nProject body of both.\n',
    '.claude/commands/ns/sub/deep.md': 'Deeply namespaced: $ARGUMENTS\n',
    '.claude/commands/fix-ci.md':
      '---\ndescription: Fix the failing CI job\nargument-hint: <file> [reason]\nallowed-tools: Bash(touch x), Read\nmodel: claude-haiku-4-5\n---\nFix $1\n',
    '.claude/commands/hidden.md': '---\ndisable-model-invocation: true\n---\nHidden\n',
    '.claude/skills/release-notes/SKILL.md':
      '---\nname: release-notes\ndescription: Writes release notes\n---\n# Release notes\n',
    '.claude/skills/no-frontmatter/SKILL.md': 'A skill with no frontmatter at all.\n',
    ...plugin('plugins/demo'),
  });

  it("names commands by folder (ns/sub/deep.md is ns:sub:deep), the user's command wins a name clash, skills come first", () => {
    const { definitions } = loadDefinitions({ cwd: repo, userConfigDir: join(home, '.claude') });
    expect(definitions.commands.map((c) => `${c.kind}:${c.name}:${c.scope}`)).toEqual([
      'skill:user-skill:user',
      'skill:no-frontmatter:project',
      'skill:release-notes:project',
      'command:both:user',
      'command:fix-ci:project',
      'command:hidden:project',
      'command:ns:sub:deep:project',
      'command:tools:lint:user',
    ]);
    expect(findCommand(definitions, 'both')?.body).toBe('User body of both.\n');
  });

  it('reads the frontmatter fields, and the first body line as the description', () => {
    const { definitions } = loadDefinitions({ cwd: repo, userConfigDir: false });
    expect(findCommand(definitions, 'fix-ci')).toMatchObject({
      description: 'Fix the failing CI job',
      argumentHint: '<file> [reason]',
      allowedTools: ['Bash(touch x)', 'Read'],
      model: 'claude-haiku-4-5',
      disableModelInvocation: false,
    });
    expect(findCommand(definitions, 'ns:sub:deep')?.description).toBe('Deeply namespaced: $ARGUMENTS');
    expect(findCommand(definitions, 'no-frontmatter')).toMatchObject({
      description: 'A skill with no frontmatter at all.',
      baseDir: join(repo, '.claude/skills/no-frontmatter'),
    });
    expect(modelInvocable(definitions).map((c) => c.name)).not.toContain('hidden');
  });

  it('--setting-sources: no user folder, no project folder', () => {
    const { definitions } = loadDefinitions({ cwd: repo, userConfigDir: false, project: false });
    expect(definitions.commands).toEqual([]);
  });

  it('a plugin brings namespaced commands, skills, agents, hooks with CLAUDE_PLUGIN_ROOT and MCP servers named plugin:<name>:<server>', () => {
    const dir = join(repo, 'plugins/demo');
    const loaded = loadDefinitions({ cwd: repo, userConfigDir: join(home, '.claude'), pluginDirs: ['plugins/demo'] });
    expect(loaded.definitions.plugins).toEqual([{ name: 'demo', path: dir, source: 'demo@inline', version: '1.0.0' }]);
    expect(loaded.definitions.commands.filter((c) => c.plugin).map((c) => c.name)).toEqual([
      'demo:hello',
      'demo:plug-skill',
    ]);
    expect(loaded.definitions.agents).toEqual([
      expect.objectContaining({
        name: 'demo:helper',
        tools: ['Read', 'Grep'],
        model: 'haiku',
        prompt: 'You are the plugin helper.\n',
        scope: 'plugin',
      }),
      expect.objectContaining({ name: 'reviewer', description: 'Reviews diffs', scope: 'user' }),
    ]);
    expect(loaded.hooks.UserPromptSubmit?.[0]?.command).toBe(`export CLAUDE_PLUGIN_ROOT='${dir}'; echo "root ${dir}"`);
    expect(loaded.mcp.servers['plugin:demo:fixture']).toEqual({
      type: 'stdio',
      command: 'node',
      args: [`${dir}/server.js`],
      env: { CLAUDE_PLUGIN_ROOT: dir },
    });
  });

  it('a --plugin-dir that does not exist is a PluginError', () => {
    expect(() => loadDefinitions({ cwd: repo, userConfigDir: false, pluginDirs: ['nope'] })).toThrow(PluginError);
  });
});

describe('enabledPluginDirs', () => {
  const root = tree({
    ...plugin('market/plugins/demo'),
    'market/.claude-plugin/marketplace.json': JSON.stringify({
      name: 'local-market',
      plugins: [
        { name: 'demo', source: './plugins/demo' },
        { name: 'remote', source: { source: 'github', repo: 'x/y' } },
      ],
    }),
  });
  const markets = [
    { file: 's.json', root, value: { 'local-market': { source: { source: 'directory', path: 'market' } } } },
  ];

  it('finds a plugin a local marketplace lists; a later false disables it', () => {
    const warn = jest.fn();
    expect(
      enabledPluginDirs(
        { marketplaces: markets, enabledPlugins: [{ file: 's.json', value: { 'demo@local-market': true } }] },
        warn,
      ),
    ).toEqual([{ dir: join(root, 'market/plugins/demo'), source: 'demo@local-market' }]);
    expect(
      enabledPluginDirs(
        {
          marketplaces: markets,
          enabledPlugins: [
            { file: 'a.json', value: { 'demo@local-market': true } },
            { file: 'b.json', value: { 'demo@local-market': false } },
          ],
        },
        warn,
      ),
    ).toEqual([]);
  });

  it('skips, with a warning, plugins that are not local and marketplaces it does not know', () => {
    const warn = jest.fn();
    const found = enabledPluginDirs(
      {
        marketplaces: markets,
        enabledPlugins: [{ file: 's.json', value: { 'remote@local-market': true, 'x@other': true } }],
      },
      warn,
    );
    expect(found).toEqual([]);
    expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([
      expect.stringContaining('only plugins in a local directory'),
      expect.stringContaining('no local marketplace "other"'),
    ]);
  });
});
