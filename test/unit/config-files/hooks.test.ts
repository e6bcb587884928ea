import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { missingHookCommands, programOf } from '../../../src/cli/hook-check';
import { HooksConfigError, parseHooksSection } from '../../../src/config-files/hooks';
import { loadSettings } from '../../../src/config-files';
import { hooksFromSettings, stopHookBlockCap } from '../../../src/cli/hook-options';
import { UsageError } from '../../../src/cli/turn-options';

describe('parseHooksSection', () => {
  it('flattens matcher groups into commands that name their source', () => {
    const h = parseHooksSection(
      {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: 'a', timeout: 5 },
              { type: 'command', command: 'b' },
            ],
          },
        ],
      },
      'f.json',
    );
    expect(h.PreToolUse).toEqual([
      { matcher: 'Bash', command: 'a', timeoutSec: 5, source: 'f.json: hooks.PreToolUse[0].hooks[0]' },
      { matcher: 'Bash', command: 'b', source: 'f.json: hooks.PreToolUse[0].hooks[1]' },
    ]);
  });
  it.each([
    [
      { Stop: [{ hooks: [{ type: 'command' }] }] },
      'f.json: hooks.Stop[0].hooks[0].command: expected a non-empty string',
    ],
    [{ Stop: [{ hooks: [{ type: 'prompt', prompt: 'x' }] }] }, 'f.json: hooks.Stop[0].hooks[0].type'],
    [{ Stop: {} }, 'f.json: hooks.Stop: expected an array'],
    [{ Stop: [{ hooks: [{ type: 'command', command: 'x', timeout: -1 }] }] }, 'f.json: hooks.Stop[0].hooks[0].timeout'],
  ])('names the file and field of a malformed section', (raw, msg) => {
    expect(() => parseHooksSection(raw, 'f.json')).toThrow(HooksConfigError);
    expect(() => parseHooksSection(raw, 'f.json')).toThrow(msg);
  });
  it('skips events it does not run, with a warning', () => {
    const warn = jest.fn();
    expect(
      parseHooksSection({ Notification: [{ hooks: [{ type: 'command', command: 'x' }] }] }, 'f.json', warn),
    ).toEqual({});
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('hooks.Notification'));
  });
});

describe('parseHooksSection matchers', () => {
  const group = (matcher: string) => [{ matcher, hooks: [{ type: 'command', command: 'x' }] }];
  it('parseHooksSection: warns of a matcher that is not a valid regular expression (it selects nothing)', () => {
    const warn = jest.fn();
    parseHooksSection({ PreToolUse: group('Bash(') }, 'f.json', warn);
    expect(warn).toHaveBeenCalledWith(
      expect.stringMatching(/^f\.json: hooks\.PreToolUse\[0\]\.matcher: not a valid regular expression/),
    );
  });
  it('parseHooksSection: warns of a matcher on Stop or UserPromptSubmit (their hooks always run)', () => {
    const warn = jest.fn();
    parseHooksSection({ Stop: group('Bash'), UserPromptSubmit: group('x') }, 'f.json', warn);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn).toHaveBeenCalledWith(
      'f.json: hooks.Stop[0].matcher: Stop hooks have no matcher; they run for every stop',
    );
  });
  it('parseHooksSection: lists, regexes and * are accepted silently', () => {
    const warn = jest.fn();
    parseHooksSection(
      { PreToolUse: [...group('Edit, Write'), ...group('mcp__.*'), ...group('*')], SessionStart: group('startup') },
      'f.json',
      warn,
    );
    expect(warn).not.toHaveBeenCalled();
  });
});

describe('stopHookBlockCap', () => {
  it("stopHookBlockCap: CLAUDE_CODE_STOP_HOOK_BLOCK_CAP, a whole number (0 = no cap), else Claude Code's 8", () => {
    expect(stopHookBlockCap({})).toBe(8);
    expect(stopHookBlockCap({ CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: '3' })).toBe(3);
    expect(stopHookBlockCap({ CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: '0' })).toBe(0);
    expect(stopHookBlockCap({ CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: ' ' })).toBe(8);
  });
  it('stopHookBlockCap: anything else is a usage error naming the variable', () => {
    expect(() => stopHookBlockCap({ CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: 'lots' })).toThrow(UsageError);
    expect(() => stopHookBlockCap({ CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: '-1' })).toThrow(
      /CLAUDE_CODE_STOP_HOOK_BLOCK_CAP/,
    );
  });
});

describe('hooks from the shared settings loader', () => {
  it('merges user, project and local settings in that order, per --setting-sources', () => {
    const home = mkdtempSync(join(tmpdir(), 'home-'));
    const cwd = mkdtempSync(join(tmpdir(), 'proj-'));
    mkdirSync(join(home, '.claude'));
    mkdirSync(join(cwd, '.claude'));
    const stop = (command: string) => JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command }] }] } });
    writeFileSync(join(home, '.claude', 'settings.json'), stop('true'));
    writeFileSync(join(cwd, '.claude', 'settings.json'), stop('echo project'));
    writeFileSync(join(cwd, '.claude', 'settings.local.json'), stop('echo local'));
    const hooks = (sources?: string) =>
      hooksFromSettings(
        loadSettings({ cwd, home, env: {}, ...(sources !== undefined ? { settingSources: sources } : {}) }).hooks,
        cwd,
        () => undefined,
      );
    expect(hooks()?.Stop?.map((h) => h.command)).toEqual(['true', 'echo project', 'echo local']);
    expect(hooks('project')?.Stop?.map((h) => h.command)).toEqual(['echo project']);
    expect(hooks('project')?.Stop?.[0]?.source).toBe(
      `${join(cwd, '.claude', 'settings.json')}: hooks.Stop[0].hooks[0]`,
    );
    expect(hooks('')).toBeUndefined();
  });
  it('exits 2 (UsageError) for a malformed section or a command that cannot be found, naming file and field', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'proj-'));
    const file = join(cwd, 'x.json');
    expect(() =>
      hooksFromSettings(
        [{ source: 'project', path: file, hooks: { Stop: [{ hooks: [{ type: 'command' }] }] } }],
        cwd,
        () => undefined,
      ),
    ).toThrow(new UsageError(`${file}: hooks.Stop[0].hooks[0].command: expected a non-empty string`));
    expect(() =>
      hooksFromSettings(
        [{ source: 'project', path: file, hooks: { Stop: [{ hooks: [{ type: 'command', command: './nope.sh' }] }] } }],
        cwd,
        () => undefined,
      ),
    ).toThrow(`${file}: hooks.Stop[0].hooks[0].command: command not found: ./nope.sh`);
  });
});

describe('missingHookCommands', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'hooks-check-'));
  it('finds programs on PATH, shell builtins and paths (with $CLAUDE_PROJECT_DIR)', () => {
    writeFileSync(join(cwd, 'ok.sh'), '#!/bin/sh\n', { mode: 0o755 });
    const hooks = {
      Stop: [
        { matcher: '', command: 'echo hi', source: 's: hooks.Stop[0].hooks[0]' },
        { matcher: '', command: 'cat > /dev/null', source: 's: hooks.Stop[0].hooks[1]' },
        { matcher: '', command: '"$CLAUDE_PROJECT_DIR"/ok.sh arg', source: 's: hooks.Stop[0].hooks[2]' },
        { matcher: '', command: '$CLAUDE_PROJECT_DIR/ok.sh', source: 's: hooks.Stop[0].hooks[3]' },
        { matcher: '', command: './missing.sh --x', source: 's: hooks.Stop[0].hooks[4]' },
        { matcher: '', command: 'no-such-program-xyz', source: 's: hooks.Stop[0].hooks[5]' },
      ],
    };
    expect(missingHookCommands(hooks, cwd)).toEqual([
      's: hooks.Stop[0].hooks[4].command: command not found: ./missing.sh',
      's: hooks.Stop[0].hooks[5].command: command not found: no-such-program-xyz',
    ]);
  });
  it('leaves commands that are not simple to run time', () => {
    expect(programOf('FOO=1 x', cwd)).toBeNull();
    expect(programOf('$(which x)', cwd)).toBeNull();
    expect(programOf("'/a b/c' d", cwd)).toBe('/a b/c');
  });
});
