import { hookMatcherMatches } from '../../../../src/common/hooks';
import type { HookCommand } from '../../../../src/common/hooks';
import { combineVerdicts, interpretHookResult } from '../../../../src/activities/hooks/interpret';
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
  it('empty, absent and * match every tool; names and A|B match exactly; others are whole-name regexes', () => {
    expect(hookMatcherMatches(undefined, 'Bash')).toBe(true);
    expect(hookMatcherMatches('', 'Bash')).toBe(true);
    expect(hookMatcherMatches('*', 'mcp__x__y')).toBe(true);
    expect(hookMatcherMatches('Bash', 'Bash')).toBe(true);
    expect(hookMatcherMatches('Bash', 'BashOutput')).toBe(false);
    expect(hookMatcherMatches('Edit|Write', 'Write')).toBe(true);
    expect(hookMatcherMatches('mcp__fixture__.*', 'mcp__fixture__add')).toBe(true);
    expect(hookMatcherMatches('mcp__fixture__.*', 'mcp__other__add')).toBe(false);
    expect(hookMatcherMatches('Notebook.*', 'NotebookEdit')).toBe(true);
    expect(hookMatcherMatches('(', 'Bash')).toBe(false);
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
      stop: { reason: 'enough' },
    });
    expect(interpretHookResult('Stop', hook, ran(0, '{"decision":"block","reason":"tests"}'))).toEqual({
      decision: 'block',
      reason: 'tests',
    });
    expect(interpretHookResult('PreToolUse', hook, ran(0, '{"decision":"block","reason":"r"}')).decision).toBe('deny');
    expect(interpretHookResult('PreToolUse', hook, ran(0, '{"decision":"approve"}')).decision).toBe('allow');
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
      updatedInput: { a: 2 },
      contexts: ['one', 'two'],
      configErrors: [],
    });
    expect(combineVerdicts([{ decision: 'ask' }, { decision: 'deny', reason: 'no' }]).decision).toBe('deny');
    expect(combineVerdicts([{ decision: null }]).decision).toBeNull();
  });
});
