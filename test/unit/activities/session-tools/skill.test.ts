import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSkill } from '../../../../src/activities/session-tools/skill';
import type { CommandDefinition, Definitions } from '../../../../src/config-files/definitions/types';
import type { ToolPermission } from '../../../../src/common/tools';

const cwd = mkdtempSync(join(tmpdir(), 'skill-'));
writeFileSync(join(cwd, 'a.txt'), 'hello\n');
const def = (name: string, extra: Partial<CommandDefinition> = {}): CommandDefinition => ({
  kind: 'skill',
  name,
  description: name,
  argumentHint: '',
  allowedTools: [],
  disableModelInvocation: false,
  body: 'Do it: $ARGUMENTS. See @a.txt. Now: !`echo $((6*7))`\n',
  path: join(cwd, name, 'SKILL.md'),
  baseDir: join(cwd, name),
  scope: 'project',
  ...extra,
});
const defs: Definitions = {
  v: 1,
  commands: [
    def('plain'),
    def('with-tools', { allowedTools: ['Bash(touch made.txt)'], body: 'Make: !`touch made.txt && echo ok`\n' }),
    def('manual', { disableModelInvocation: true }),
  ],
  agents: [],
  plugins: [],
};
const check = (allow: string[] = []): ToolPermission => ({
  behavior: 'check',
  mode: 'default',
  rules: { allow, deny: [], ask: [] },
});
const run = (input: unknown, permission: ToolPermission = check()) =>
  runSkill(input, { defs, cwd, permission, env: process.env, signal: new AbortController().signal });

describe('the Skill tool', () => {
  test("loads a skill: 'Launching skill', then its directory and text (arguments, ! lines run, @ files attached)", async () => {
    const out = await run({ skill: 'plain', args: 'x y' });
    expect(out).toMatchObject({
      content: 'Launching skill: plain',
      isError: false,
      outcome: 'ok',
      structured: { success: true, commandName: 'plain' },
    });
    expect(out.followUp).toEqual([
      {
        type: 'text',
        text: `Base directory for this skill: ${join(cwd, 'plain')}\n\nDo it: x y. See @a.txt. Now: 42\n`,
      },
    ]);
    expect(out.attachments).toEqual([
      { type: 'file_read', path: join(cwd, 'a.txt'), content: '1\thello\n2\t', style: 'skill' },
    ]);
    expect(out.allowedRules).toBeUndefined();
  });
  test('a skill with allowed-tools needs an allow rule for Skill (outside bypassPermissions); its rules then apply to its ! lines and come back for the turn', async () => {
    const denied = await run({ skill: 'with-tools' });
    expect(denied).toMatchObject({ outcome: 'denied', isError: true });
    expect(denied.content).toBe(
      'Execute skill: with-tools. The user can add the allow rule Skill(with-tools) to .claude/settings.local.json to let it run without asking.',
    );
    const allowed = await run({ skill: 'with-tools' }, check(['Skill(with-tools)']));
    expect(allowed).toMatchObject({ outcome: 'ok', allowedRules: ['Bash(touch made.txt)'] });
    expect(allowed.followUp?.[0]).toMatchObject({ text: expect.stringContaining('Make: ok') });
  });
  test("unknown skills and skills only people may run are refused with Claude Code's texts", async () => {
    expect((await run({ skill: 'nope' })).content).toBe('<tool_use_error>Unknown skill: nope</tool_use_error>');
    expect((await run({ skill: 'manual' })).content).toMatch(
      /^<tool_use_error>Skill manual cannot be used with Skill tool due to disable-model-invocation\./,
    );
    expect(await run({})).toMatchObject({ outcome: 'invalid', isError: true });
  });
});
