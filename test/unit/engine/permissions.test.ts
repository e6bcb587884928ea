import {
  decidePermission,
  permissionPolicyOf,
  scopedRulesFor,
  subagentPermissionMode,
} from '../../../src/engine/permissions';

describe('decidePermission (the workflow part, by tool name)', () => {
  test('decidePermission: a whole-tool deny rule wins in every mode', () => {
    expect(decidePermission({ mode: 'bypassPermissions', disallowedTools: ['Read'] }, 'Read')).toMatchObject({
      behavior: 'deny',
      reason: 'rule',
    });
  });
  test('decidePermission: the task tools the workflow answers itself are refused by a deny rule like any tool (Task is Agent)', () => {
    for (const [tool, rule] of [
      ['Agent', 'Agent'],
      ['Agent', 'Task'],
      ['TaskStop', 'TaskStop'],
      ['SendMessage', 'SendMessage'],
      ['ScheduleWakeup', 'ScheduleWakeup'],
    ] as const) {
      const p = permissionPolicyOf({ permissionMode: 'bypassPermissions', disallowedTools: [rule] });
      expect({ tool, rule, behavior: decidePermission(p, tool).behavior }).toEqual({ tool, rule, behavior: 'deny' });
    }
  });
  test('decidePermission: a whole-tool allow rule or bypass mode allows without a check when no scoped rule limits it', () => {
    expect(decidePermission({ mode: 'default', allowedTools: ['Grep'] }, 'Grep')).toEqual({ behavior: 'allow' });
    expect(decidePermission({ mode: 'bypassPermissions' }, 'Write')).toEqual({ behavior: 'allow' });
  });
  test('decidePermission: a whole-tool allow of a tool that writes files still goes to the check (protected paths)', () => {
    for (const tool of ['Bash', 'Edit', 'Write']) {
      expect(decidePermission({ mode: 'acceptEdits', allowedTools: [tool] }, tool)).toEqual({
        behavior: 'check',
        mode: 'acceptEdits',
        rules: { allow: [tool], deny: [], ask: [] },
      });
    }
  });
  test('decidePermission: a scoped deny rule sends even an allowed tool to the activity check', () => {
    expect(decidePermission({ mode: 'bypassPermissions', disallowedTools: ['Bash(rm *)'] }, 'Bash')).toEqual({
      behavior: 'check',
      mode: 'bypassPermissions',
      rules: { allow: [], deny: ['Bash(rm *)'], ask: [] },
    });
  });
  test('decidePermission: reads and edits are checked against their paths in the activity', () => {
    expect(decidePermission({ mode: 'default' }, 'Read')).toMatchObject({ behavior: 'check', mode: 'default' });
    expect(decidePermission({ mode: 'acceptEdits' }, 'Edit')).toMatchObject({ behavior: 'check', mode: 'acceptEdits' });
  });
  test('decidePermission: plan mode refuses every edit; Bash is checked (allowed and read-only commands run, as in Claude Code)', () => {
    expect(decidePermission({ mode: 'plan' }, 'Write')).toMatchObject({ behavior: 'deny', reason: 'mode' });
    expect(decidePermission({ mode: 'plan' }, 'Edit', { decision: 'allow' })).toMatchObject({ behavior: 'deny' });
    expect(decidePermission({ mode: 'plan' }, 'Bash')).toMatchObject({ behavior: 'check', mode: 'plan' });
    expect(decidePermission({ mode: 'plan' }, 'Grep').behavior).toBe('check');
  });
  test('decidePermission: a whole-tool ask rule is a denial in a headless run', () => {
    expect(decidePermission({ mode: 'bypassPermissions', askTools: ['Bash'] }, 'Bash')).toMatchObject({
      behavior: 'deny',
      reason: 'rule',
    });
  });
  test('decidePermission: a tool that does not exist is left to the run (which reports "No such tool")', () => {
    expect(decidePermission({ mode: 'default' }, 'Teleport')).toEqual({ behavior: 'allow' });
    expect(decidePermission({ mode: 'default', disallowedTools: ['Teleport'] }, 'Teleport').behavior).toBe('deny');
  });
  test('decidePermission: an opt-in tool (NotebookEdit) is a tool only in a turn whose tool list names it', () => {
    expect(decidePermission({ mode: 'default' }, 'NotebookEdit')).toEqual({ behavior: 'allow' });
    const offered = permissionPolicyOf({ permissionMode: 'default', tools: ['Read', 'NotebookEdit'] });
    expect(offered.optInTools).toEqual(['NotebookEdit']);
    expect(decidePermission(offered, 'NotebookEdit')).toEqual({
      behavior: 'check',
      mode: 'default',
      rules: { allow: [], deny: [], ask: [] },
    });
    expect(decidePermission({ ...offered, mode: 'plan' }, 'NotebookEdit')).toMatchObject({ behavior: 'deny' });
    expect(permissionPolicyOf({ permissionMode: 'default', tools: ['Read'] })).not.toHaveProperty('optInTools');
  });
  test('decidePermission: extra working directories travel with the check', () => {
    expect(decidePermission({ mode: 'default', additionalDirectories: ['/data'] }, 'Read')).toMatchObject({
      additionalDirectories: ['/data'],
    });
  });
});

describe('scopedRulesFor: only the rules that matter for the tool travel to the activity', () => {
  const policy = {
    mode: 'default' as const,
    allowedTools: ['Bash(git *)', 'Edit(//repo/src/**)', 'Read', 'WebFetch(domain:x.org)', 'Grep(//repo/**)'],
    disallowedTools: ['Read(//repo/secrets/**)', 'Bash(rm *)'],
    askTools: ['Write(//etc/**)'],
  };
  test('scopedRulesFor: Bash gets Bash rules and path rules (its redirections are reads and edits)', () => {
    expect(scopedRulesFor(policy, 'Bash')).toEqual({
      allow: ['Bash(git *)', 'Edit(//repo/src/**)'],
      deny: ['Read(//repo/secrets/**)', 'Bash(rm *)'],
      ask: ['Write(//etc/**)'],
    });
  });
  test('scopedRulesFor: Grep gets Read rules and its own', () => {
    expect(scopedRulesFor(policy, 'Grep')).toEqual({
      allow: ['Grep(//repo/**)'],
      deny: ['Read(//repo/secrets/**)'],
      ask: [],
    });
  });
  test('scopedRulesFor: Edit and Write share Edit and Write rules', () => {
    expect(scopedRulesFor(policy, 'Write')).toEqual({
      allow: ['Edit(//repo/src/**)'],
      deny: [],
      ask: ['Write(//etc/**)'],
    });
  });
  test('scopedRulesFor: a whole-tool rule of another tool does not travel', () => {
    expect(scopedRulesFor(policy, 'Bash').allow).not.toContain('Read');
    expect(scopedRulesFor(policy, 'Read').allow).toEqual(['Read']);
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

describe('decidePermission: WebSearch and WebFetch (Claude Code 2.1.328: an allow rule or bypass runs them)', () => {
  const notGranted = (tool: string): string =>
    `Claude requested permissions to use ${tool}, but you haven't granted it yet.`;
  test.each(['WebSearch', 'WebFetch'])('decidePermission: %s without an allow rule needs a person', (tool) => {
    expect(decidePermission({ mode: 'default' }, tool)).toEqual({
      behavior: 'deny',
      message: notGranted(tool),
      reason: 'mode',
      ask: true,
    });
    expect(decidePermission({ mode: 'acceptEdits' }, tool)).toMatchObject({ behavior: 'deny', ask: true });
    // dontAsk refuses it outright: nothing for the approvals queue.
    expect(decidePermission({ mode: 'dontAsk' }, tool)).toEqual({
      behavior: 'deny',
      message: notGranted(tool),
      reason: 'mode',
    });
    expect(decidePermission({ mode: 'plan' }, tool)).toMatchObject({ behavior: 'deny', reason: 'mode' });
  });
  test.each(['WebSearch', 'WebFetch'])(
    'decidePermission: %s runs with a whole-tool allow rule (also in plan mode) or bypass',
    (tool) => {
      for (const mode of ['default', 'dontAsk', 'plan'] as const) {
        expect(decidePermission({ mode, allowedTools: [tool] }, tool)).toEqual({ behavior: 'allow' });
      }
      expect(decidePermission({ mode: 'bypassPermissions' }, tool)).toEqual({ behavior: 'allow' });
    },
  );
  test('decidePermission: a web tool deny rule wins over bypass; an ask rule asks', () => {
    expect(decidePermission({ mode: 'bypassPermissions', disallowedTools: ['WebSearch'] }, 'WebSearch')).toMatchObject({
      behavior: 'deny',
      reason: 'rule',
    });
    expect(
      decidePermission({ mode: 'default', allowedTools: ['WebSearch'], askTools: ['WebSearch'] }, 'WebSearch'),
    ).toMatchObject({ behavior: 'deny', reason: 'rule', ask: true });
  });
  test('decidePermission: a PreToolUse allow runs a web tool no rule allows; a deny hook refuses an allowed one', () => {
    expect(decidePermission({ mode: 'default' }, 'WebSearch', { decision: 'allow' })).toEqual({ behavior: 'allow' });
    expect(
      decidePermission({ mode: 'default', allowedTools: ['WebSearch'] }, 'WebSearch', {
        decision: 'deny',
        message: 'no',
      }),
    ).toEqual({ behavior: 'deny', message: 'no', reason: 'hook' });
  });
  test('decidePermission: WebFetch(domain:…) rules send the call to the activity, which sees the URL', () => {
    expect(decidePermission({ mode: 'default', allowedTools: ['WebFetch(domain:example.com)'] }, 'WebFetch')).toEqual({
      behavior: 'check',
      mode: 'default',
      rules: { allow: ['WebFetch(domain:example.com)'], deny: [], ask: [] },
    });
    expect(
      decidePermission({ mode: 'default', disallowedTools: ['WebFetch(domain:evil.test)'] }, 'WebFetch', {
        decision: 'allow',
      }),
    ).toMatchObject({ behavior: 'check', hook: 'allow', rules: { deny: ['WebFetch(domain:evil.test)'] } });
  });
});

describe("a subagent type's permissionMode narrows the parent's, never widens it", () => {
  test('subagentPermissionMode: a narrower mode is taken', () => {
    expect(subagentPermissionMode('acceptEdits', 'plan')).toBe('plan');
    expect(subagentPermissionMode(undefined, 'dontAsk')).toBe('dontAsk');
    expect(subagentPermissionMode('default', 'default')).toBe('default');
  });

  test("subagentPermissionMode: a wider mode (a repository granting itself rights) keeps the parent's", () => {
    expect(subagentPermissionMode(undefined, 'bypassPermissions')).toBeUndefined();
    expect(subagentPermissionMode('default', 'acceptEdits')).toBe('default');
    expect(subagentPermissionMode('plan', 'bypassPermissions')).toBe('plan');
    expect(subagentPermissionMode('plan', 'dontAsk')).toBe('plan');
  });

  test("subagentPermissionMode: a parent in bypassPermissions keeps its own (as Claude Code); no type mode: the parent's", () => {
    expect(subagentPermissionMode('bypassPermissions', 'plan')).toBe('bypassPermissions');
    expect(subagentPermissionMode('acceptEdits', undefined)).toBe('acceptEdits');
  });
});
