import { decidePermission } from '../../../src/engine/permissions';

describe('permissions', () => {
  test('decidePermission: read-only tools run in default mode', () => {
    expect(decidePermission({ mode: 'default' }, 'Read')).toEqual({ behavior: 'allow' });
  });
  test('decidePermission: Bash needs allowedTools in default mode', () => {
    expect(decidePermission({ mode: 'default' }, 'Bash').behavior).toBe('deny');
    expect(decidePermission({ mode: 'default', allowedTools: ['Bash'] }, 'Bash').behavior).toBe('allow');
    // A scoped rule is checked against the command by the activity, not granted for all of Bash.
    expect(decidePermission({ mode: 'default', allowedTools: ['Bash(npm test)'] }, 'Bash')).toMatchObject({
      behavior: 'checkCommand',
      allow: ['npm test'],
    });
  });
  test('decidePermission: acceptEdits allows Edit and Write, not Bash', () => {
    expect(decidePermission({ mode: 'acceptEdits' }, 'Edit').behavior).toBe('allow');
    expect(decidePermission({ mode: 'acceptEdits' }, 'Bash').behavior).toBe('deny');
  });
  test('decidePermission: disallowedTools wins in every mode', () => {
    expect(decidePermission({ mode: 'bypassPermissions', disallowedTools: ['Read'] }, 'Read').behavior).toBe('deny');
  });
  test('decidePermission: plan mode refuses changes', () => {
    expect(decidePermission({ mode: 'plan' }, 'Write').behavior).toBe('deny');
  });
  test('decidePermission: dontAsk runs only read-only and allowed tools (it never asks, so it denies)', () => {
    expect(decidePermission({ mode: 'dontAsk' }, 'Read').behavior).toBe('allow');
    expect(decidePermission({ mode: 'dontAsk' }, 'Write')).toMatchObject({ behavior: 'deny' });
    expect(decidePermission({ mode: 'dontAsk' }, 'Bash').behavior).toBe('deny');
    expect(decidePermission({ mode: 'dontAsk', allowedTools: ['Bash'] }, 'Bash').behavior).toBe('allow');
  });
  test('decidePermission: a tool that does not exist is left to the run (which reports "No such tool")', () => {
    expect(decidePermission({ mode: 'default' }, 'Teleport')).toEqual({ behavior: 'allow' });
    expect(decidePermission({ mode: 'default', disallowedTools: ['Teleport'] }, 'Teleport').behavior).toBe('deny');
  });
});

describe('acceptEdits and the working directory', () => {
  test('decidePermission: acceptEdits covers files inside the working directory only', () => {
    const policy = { mode: 'acceptEdits' as const };
    expect(decidePermission(policy, 'Write', { cwd: '/repo', filePath: '/repo/src/a.ts' }).behavior).toBe('allow');
    expect(decidePermission(policy, 'Write', { cwd: '/repo', filePath: '/repo-other/a.ts' }).behavior).toBe('deny');
    expect(decidePermission(policy, 'Edit', { cwd: '/repo', filePath: '/etc/passwd' }).behavior).toBe('deny');
  });
  test('decidePermission: an explicit allowedTools entry or bypassPermissions reaches outside', () => {
    const target = { cwd: '/repo', filePath: '/tmp/x' };
    expect(decidePermission({ mode: 'acceptEdits', allowedTools: ['Write'] }, 'Write', target).behavior).toBe('allow');
    expect(decidePermission({ mode: 'bypassPermissions' }, 'Write', target).behavior).toBe('allow');
  });
});

describe('MCP tools', () => {
  const tool = 'mcp__fixture__add';
  test('decidePermission: an MCP tool needs a rule (server or tool) unless the mode bypasses permissions', () => {
    expect(decidePermission({ mode: 'default' }, tool).behavior).toBe('deny');
    expect(decidePermission({ mode: 'acceptEdits' }, tool).behavior).toBe('deny');
    expect(decidePermission({ mode: 'default', allowedTools: ['mcp__fixture'] }, tool).behavior).toBe('allow');
    expect(decidePermission({ mode: 'default', allowedTools: ['mcp__fixture__*'] }, tool).behavior).toBe('allow');
    expect(decidePermission({ mode: 'default', allowedTools: [tool] }, tool).behavior).toBe('allow');
    expect(decidePermission({ mode: 'default', allowedTools: ['mcp__fixture__fail'] }, tool).behavior).toBe('deny');
    expect(decidePermission({ mode: 'default', allowedTools: ['mcp__other'] }, tool).behavior).toBe('deny');
    expect(decidePermission({ mode: 'bypassPermissions' }, tool).behavior).toBe('allow');
    expect(decidePermission({ mode: 'plan', allowedTools: ['mcp__fixture'] }, tool).behavior).toBe('deny');
  });
  test('decidePermission: disallowedTools mcp__server denies every tool of the server, in every mode', () => {
    expect(decidePermission({ mode: 'bypassPermissions', disallowedTools: ['mcp__fixture'] }, tool)).toMatchObject({
      behavior: 'deny',
      reason: 'rule',
    });
    expect(
      decidePermission({ mode: 'bypassPermissions', disallowedTools: ['mcp__fixture'] }, 'mcp__git__log').behavior,
    ).toBe('allow');
  });
});
