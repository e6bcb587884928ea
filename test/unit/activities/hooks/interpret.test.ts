import { hookMatcherMatches, hooksApply } from '../../../../src/common/hooks';
import type { HookCommand, TurnHooks } from '../../../../src/common/hooks';
import { combineVerdicts, hookNames, interpretHookResult } from '../../../../src/activities/hooks/interpret';
import type { HookCommandResult } from '../../../../src/activities/hooks/run-command';

const hook: HookCommand = {
  matcher: 'Bash',
  command: './check.sh',
  source: '/p/.claude/settings.json: hooks.PreToolUse[0].hooks[0]',
};
const ran = (exitCode: number | null, stdout = '', stderr = '', timedOut = false): HookCommandResult => ({
  exitCode,
  stdout,
  stderr,
  timedOut,
  durationMs: 1,
});

describe('hookMatcherMatches', () => {
  it('hookMatcherMatches: empty, absent and * select everything', () => {
    expect(hookMatcherMatches(undefined, 'Bash')).toBe(true);
    expect(hookMatcherMatches('', 'Bash')).toBe(true);
    expect(hookMatcherMatches('*', 'mcp__x__y')).toBe(true);
  });
  it('hookMatcherMatches: a list of names (| or , with spaces) selects each name exactly (Claude Code 2.1.328)', () => {
    expect(hookMatcherMatches('Bash', 'Bash')).toBe(true);
    expect(hookMatcherMatches('Bash', 'BashOutput')).toBe(false);
    expect(hookMatcherMatches('ead', 'Read')).toBe(false);
    expect(hookMatcherMatches('Edit|Write', 'Write')).toBe(true);
    expect(hookMatcherMatches('Edit, Write', 'Write')).toBe(true);
    expect(hookMatcherMatches('Write,Edit', 'Edit')).toBe(true);
    expect(hookMatcherMatches(' Edit , Write ', 'Edit')).toBe(true);
    expect(hookMatcherMatches('Edit, Write', 'Read')).toBe(false);
    expect(hookMatcherMatches('startup|resume', 'resume')).toBe(true);
  });
  it('hookMatcherMatches: anything else is a regular expression searched in the name, not anchored', () => {
    expect(hookMatcherMatches('r.te', 'Write')).toBe(true);
    expect(hookMatcherMatches('R.a', 'Read')).toBe(true);
    expect(hookMatcherMatches('^Bas$', 'Bash')).toBe(false);
    expect(hookMatcherMatches('^Bash$', 'Bash')).toBe(true);
    expect(hookMatcherMatches('mcp__fixture__.*', 'mcp__fixture__add')).toBe(true);
    expect(hookMatcherMatches('mcp__fixture__.*', 'mcp__other__add')).toBe(false);
    expect(hookMatcherMatches('Notebook.*', 'NotebookEdit')).toBe(true);
    expect(hookMatcherMatches('Bash(git *)', 'Bash')).toBe(false);
  });
  it('hookMatcherMatches: an invalid regular expression selects nothing', () => {
    expect(hookMatcherMatches('(', 'Bash')).toBe(false);
  });
});

describe('hooksApply', () => {
  const hooks = (m: Partial<Record<string, string[]>>): TurnHooks => ({ configRef: 'r', matchers: m });
  it('hooksApply: tool events, SessionStart sources and PreCompact triggers are matched; Stop and UserPromptSubmit always run', () => {
    expect(hooksApply(hooks({ PreToolUse: ['Edit, Write'] }), 'PreToolUse', 'Write')).toBe(true);
    expect(hooksApply(hooks({ PreToolUse: ['Edit, Write'] }), 'PreToolUse', 'Bash')).toBe(false);
    expect(hooksApply(hooks({ SessionStart: ['resume'] }), 'SessionStart', 'startup')).toBe(false);
    expect(hooksApply(hooks({ SessionStart: ['startup|resume'] }), 'SessionStart', 'startup')).toBe(true);
    expect(hooksApply(hooks({ PreCompact: ['manual'] }), 'PreCompact', 'auto')).toBe(false);
    expect(hooksApply(hooks({ Stop: ['Bash'] }), 'Stop')).toBe(true);
    expect(hooksApply(hooks({ UserPromptSubmit: ['x'] }), 'UserPromptSubmit')).toBe(true);
    expect(hooksApply(hooks({}), 'Stop')).toBe(false);
  });
  it('hooksApply: legacy (histories before hook-matchers) keeps exact | lists, anchored regexes and unmatched SessionStart', () => {
    expect(hooksApply(hooks({ PreToolUse: ['Edit, Write'] }), 'PreToolUse', 'Write', true)).toBe(false);
    expect(hooksApply(hooks({ PreToolUse: ['r.te'] }), 'PreToolUse', 'Write', true)).toBe(false);
    expect(hooksApply(hooks({ PreToolUse: ['Wr.te'] }), 'PreToolUse', 'Write', true)).toBe(true);
    expect(hooksApply(hooks({ SessionStart: ['resume'] }), 'SessionStart', 'startup', true)).toBe(true);
  });
});

describe('interpretHookResult', () => {
  it('exit 2 blocks with stderr as the reason (deny for PreToolUse, block for Stop/PostToolUse/UserPromptSubmit)', () => {
    expect(interpretHookResult('PreToolUse', hook, ran(2, '', 'no\n'))).toEqual({
      decision: 'deny',
      reason: '[./check.sh]: no\n',
    });
    expect(interpretHookResult('Stop', hook, ran(2, '', 'again'))).toEqual({
      decision: 'block',
      reason: '[./check.sh]: again',
    });
    expect(interpretHookResult('SessionStart', hook, ran(2, '', 'x'))).toEqual({ decision: null });
  });
  it('other exit codes and timeouts give no verdict; 127 is a configuration error naming the field', () => {
    expect(interpretHookResult('PreToolUse', hook, ran(1, '', 'oops'))).toEqual({ decision: null });
    expect(interpretHookResult('PreToolUse', hook, ran(null, '', '', true))).toEqual({ decision: null });
    expect(interpretHookResult('PreToolUse', hook, ran(127, '', 'sh: 1: ./check.sh: not found')).configError).toBe(
      '/p/.claude/settings.json: hooks.PreToolUse[0].hooks[0]: command not found: ./check.sh (sh: 1: ./check.sh: not found)',
    );
  });
  it('JSON output: permissionDecision, reason, updatedInput, additionalContext, continue/stopReason', () => {
    const out = JSON.stringify({
      continue: false,
      stopReason: 'enough',
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: 'fine',
        updatedInput: { command: 'echo safe' },
        additionalContext: 'ctx',
      },
    });
    expect(interpretHookResult('PreToolUse', hook, ran(0, out))).toEqual({
      decision: 'allow',
      reason: 'fine',
      updatedInput: { command: 'echo safe' },
      context: 'PreToolUse hook additional context: ctx',
      stop: { reason: 'enough', given: true },
    });
    expect(interpretHookResult('Stop', hook, ran(0, '{"decision":"block","reason":"tests"}'))).toEqual({
      decision: 'block',
      reason: 'tests',
    });
    expect(interpretHookResult('PreToolUse', hook, ran(0, '{"decision":"block","reason":"r"}')).decision).toBe('deny');
    expect(interpretHookResult('PreToolUse', hook, ran(0, '{"decision":"approve"}')).decision).toBe('allow');
  });
  it('a block or deny without a reason gets Claude Code\'s "Blocked by hook"', () => {
    expect(interpretHookResult('PreToolUse', hook, ran(0, '{"decision":"block"}'))).toEqual({
      decision: 'deny',
      reason: 'Blocked by hook',
    });
    const bare = '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}';
    expect(interpretHookResult('PreToolUse', hook, ran(0, bare))).toEqual({
      decision: 'deny',
      reason: 'Blocked by hook',
    });
    expect(interpretHookResult('UserPromptSubmit', hook, ran(0, '{"decision":"block"}')).reason).toBe(
      'Blocked by hook',
    );
    expect(interpretHookResult('Stop', hook, ran(0, '{"decision":"block","reason":""}')).reason).toBe(
      'Blocked by hook',
    );
    const ask = '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}';
    expect(interpretHookResult('PreToolUse', hook, ran(0, ask))).toEqual({ decision: 'ask' });
  });
  it('texts for the model name the hook as Claude Code does: the tool for tool events, the source for SessionStart', () => {
    const ctx = (event: string): string =>
      JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: 'ctx' } });
    expect(
      interpretHookResult('PostToolUse', hook, ran(0, ctx('PostToolUse')), hookNames('PostToolUse', 'Bash')).context,
    ).toBe('PostToolUse:Bash hook additional context: ctx');
    expect(
      interpretHookResult('PreToolUse', hook, ran(0, ctx('PreToolUse')), hookNames('PreToolUse', 'Read')).context,
    ).toBe('PreToolUse:Read hook additional context: ctx');
    expect(
      interpretHookResult('SessionStart', hook, ran(0, 'hi\n'), hookNames('SessionStart', 'startup')).context,
    ).toBe('SessionStart:startup hook success: hi');
    expect(
      interpretHookResult('SessionStart', hook, ran(0, ctx('SessionStart')), hookNames('SessionStart', 'startup'))
        .context,
    ).toBe('SessionStart hook additional context: ctx');
  });
  it('plain stdout is context for UserPromptSubmit and SessionStart only', () => {
    expect(interpretHookResult('UserPromptSubmit', hook, ran(0, 'hello\n')).context).toBe(
      'UserPromptSubmit hook success: hello',
    );
    expect(interpretHookResult('PostToolUse', hook, ran(0, 'hello\n'))).toEqual({ decision: null });
  });
  it('JSON that does not parse is a configuration error naming the file and field', () => {
    const v = interpretHookResult('PreToolUse', hook, ran(0, '{not json'));
    expect(v.decision).toBeNull();
    expect(v.configError).toMatch(
      /^\/p\/\.claude\/settings\.json: hooks\.PreToolUse\[0\]\.hooks\[0\]: the hook printed invalid JSON on stdout/,
    );
  });
});

describe('combineVerdicts', () => {
  it('deny wins over ask over allow; the last updatedInput wins; contexts add up', () => {
    const c = combineVerdicts([
      { decision: 'allow', updatedInput: { a: 1 }, context: 'one' },
      { decision: 'ask', reason: 'ask me' },
      { decision: 'allow', updatedInput: { a: 2 }, context: 'two' },
    ]);
    expect(c).toEqual({
      decision: 'ask',
      reason: 'ask me',
      firstReason: 'ask me',
      updatedInput: { a: 2 },
      contexts: ['one', 'two'],
      configErrors: [],
    });
    expect(combineVerdicts([{ decision: 'ask' }, { decision: 'deny', reason: 'no' }]).decision).toBe('deny');
    expect(combineVerdicts([{ decision: null }]).decision).toBeNull();
  });
});
