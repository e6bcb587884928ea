import { resolvePrompt } from '../../../src/client/slash-commands';
import type { CommandDefinition, Definitions } from '../../../src/config-files/definitions/types';

const def = (name: string, extra: Partial<CommandDefinition> = {}): CommandDefinition => ({
  kind: 'command',
  name,
  description: name,
  argumentHint: '',
  allowedTools: [],
  disableModelInvocation: false,
  body: 'Body $ARGUMENTS\n',
  path: `/repo/.claude/commands/${name}.md`,
  scope: 'project',
  ...extra,
});
const defs: Definitions = {
  v: 1,
  commands: [
    def('fix-ci', { allowedTools: ['Bash(touch x)', 'Read(./src/**)', 'Bad(('], model: 'haiku' }),
    def('frontend:component'),
  ],
  agents: [],
  plugins: [],
};
const turn = { allowedTools: ['Edit'], cwd: '/repo' };

describe('resolvePrompt', () => {
  test("a custom command: its model (alias resolved) and allowed-tools (canonical, added to the turn's) apply to its turn; a bad rule is warned about", () => {
    const r = resolvePrompt('/fix-ci src/math.js "two words"', { definitions: defs }, turn);
    expect(r.command).toEqual({ name: 'custom', command: 'fix-ci' });
    expect(r.overrides?.model).toMatch(/^claude-haiku/);
    expect(r.overrides?.allowedTools).toEqual(['Edit', 'Bash(touch x)', 'Read(//repo/src/**)']);
    expect(r.replayText).toBe(
      '<command-message>fix-ci</command-message>\n<command-name>/fix-ci</command-name>\n<command-args>src/math.js "two words"</command-args>',
    );
    expect(r.warnings).toEqual([expect.stringContaining('allowed-tools')]);
  });
  test('namespaced names, unknown names, paths, runner commands, plain text', () => {
    expect(resolvePrompt('/frontend:component Button', { definitions: defs }, turn).command).toEqual({
      name: 'custom',
      command: 'frontend:component',
    });
    expect(resolvePrompt('/no-such-command x', { definitions: defs }, turn).command).toEqual({
      name: 'unknown',
      command: 'no-such-command',
    });
    expect(resolvePrompt('/usr/bin/env is a path', { definitions: defs }, turn).command).toBeUndefined();
    expect(resolvePrompt('/compact keep the API', { definitions: defs }, turn).command).toEqual({
      name: 'compact',
      withInstructions: true,
    });
    expect(resolvePrompt('fix it', { definitions: defs }, turn).command).toBeUndefined();
  });
  test('--bare: a skill name is answered as unavailable, anything else is plain text', () => {
    const bare = { definitions: { ...defs, commands: [] }, bare: { skillNames: ['release-notes'] } };
    expect(resolvePrompt('/release-notes v3', bare, turn).command).toEqual({
      name: 'unavailable',
      command: 'release-notes',
    });
    expect(resolvePrompt('/plain after bare', bare, turn).command).toBeUndefined();
  });
});
