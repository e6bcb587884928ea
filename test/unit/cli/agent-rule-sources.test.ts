import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applySettings } from '../../../src/cli/settings-options';
import type { TurnOptions } from '../../../src/common/turn';

const base: TurnOptions = { model: 'claude-sonnet-5-5', maxTokens: 1024, limits: {}, permissionMode: 'default' };

describe('Agent(<type>) rule sources', () => {
  test("applySettings: each type a deny rule names gets Claude Code's name of the rule's source, settings files first", () => {
    const root = mkdtempSync(join(tmpdir(), 'agent-rule-sources-'));
    const home = join(root, 'home');
    const cwd = join(root, 'repo');
    mkdirSync(join(home, '.claude'), { recursive: true });
    mkdirSync(join(cwd, '.claude'), { recursive: true });
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['Agent(Plan)'] } }));
    writeFileSync(
      join(cwd, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { deny: ['Task(reviewer)', 'Agent(Plan)', 'Bash(rm *)'] } }),
    );
    const options = applySettings(
      { ...base, disallowedTools: ['Agent(Explore)', 'Agent(reviewer)'] },
      {},
      { cwd, dataDir: join(root, 'data'), env: { HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude') } },
    );
    expect(options.agentRuleSources).toEqual({
      Plan: 'userSettings',
      reviewer: 'projectSettings',
      Explore: 'cliArg',
    });
  });

  test('applySettings: no rule naming a type, no agentRuleSources', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'agent-rule-sources-'));
    const options = applySettings(
      { ...base, disallowedTools: ['Agent', 'Bash'] },
      { settingSources: '' },
      { cwd, dataDir: join(cwd, 'data'), env: { HOME: cwd } },
    );
    expect(options).not.toHaveProperty('agentRuleSources');
  });
});
