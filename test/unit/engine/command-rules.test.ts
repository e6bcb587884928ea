import {
  matchesCommandPattern,
  resolveCommandPermission,
  ruleContent,
  splitCommand,
} from '../../../src/engine/command-rules';
import { decidePermission } from '../../../src/engine/permissions';

describe('scoped Bash rules', () => {
  test('ruleContent: the pattern inside Name(...)', () => {
    expect(ruleContent('Bash(git *)')).toBe('git *');
    expect(ruleContent('Bash')).toBeNull();
  });
  test('matchesCommandPattern: prefix:*, wildcards and exact commands', () => {
    expect(matchesCommandPattern('npm run test:unit', 'npm run test:*')).toBe(true);
    expect(matchesCommandPattern('git status', 'git *')).toBe(true);
    expect(matchesCommandPattern('gitx status', 'git *')).toBe(false);
    expect(matchesCommandPattern('ls', 'ls')).toBe(true);
    expect(matchesCommandPattern('ls -la', 'ls')).toBe(false);
  });
  test('splitCommand: every part of a compound command', () => {
    expect(splitCommand('git add . && git commit -m x | cat; echo ok')).toEqual([
      'git add .',
      'git commit -m x',
      'cat',
      'echo ok',
    ]);
  });
  test('resolveCommandPermission: every part must be allowed; substitution is refused', () => {
    const perm = { behavior: 'checkCommand' as const, allow: ['git *'], deny: [], message: 'Bash needs a grant.' };
    expect(resolveCommandPermission('git status && git diff', perm).behavior).toBe('allow');
    expect(resolveCommandPermission('git status && rm -rf /', perm)).toMatchObject({
      behavior: 'deny',
      reason: 'rule',
    });
    expect(resolveCommandPermission('git log $(rm -rf /)', perm).behavior).toBe('deny');
  });
  test('resolveCommandPermission: a deny pattern wins even in bypass mode', () => {
    const perm = { behavior: 'checkCommand' as const, allow: null, deny: ['rm *'], message: '' };
    expect(resolveCommandPermission('ls && rm -rf build', perm).behavior).toBe('deny');
    expect(resolveCommandPermission('ls', perm).behavior).toBe('allow');
  });
  test('decidePermission: Bash(git *) no longer allows every command', () => {
    expect(decidePermission({ mode: 'default', allowedTools: ['Bash(git *)'] }, 'Bash')).toEqual({
      behavior: 'checkCommand',
      allow: ['git *'],
      deny: [],
      message: expect.stringContaining('Bash'),
    });
    expect(decidePermission({ mode: 'default', allowedTools: ['Bash'] }, 'Bash')).toEqual({ behavior: 'allow' });
    expect(decidePermission({ mode: 'bypassPermissions', disallowedTools: ['Bash(rm *)'] }, 'Bash')).toMatchObject({
      behavior: 'checkCommand',
      allow: null,
      deny: ['rm *'],
    });
    expect(decidePermission({ mode: 'bypassPermissions', disallowedTools: ['Bash'] }, 'Bash').behavior).toBe('deny');
  });
});
