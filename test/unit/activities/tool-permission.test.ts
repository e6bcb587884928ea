import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveToolPermission } from '../../../src/activities/tool-permission';
import type { PermissionMode } from '../../../src/common/permissions';
import type { HookPermission, PermissionPolicy } from '../../../src/engine/permissions';
import { decidePermission } from '../../../src/engine/permissions';
import { makeSession, type TestSession } from './tools/helpers';

describe('resolveToolPermission (the permission part of runTool)', () => {
  let s: TestSession;
  beforeEach(async () => {
    s = await makeSession();
    await s.write('secrets/key', 'TOKEN=1\n');
    await s.write('src/a.ts', 'TOKEN=2\n');
  });
  afterEach(() => s.cleanup());

  test('resolveToolPermission: an ask is a denial in a headless run, with its reason type', async () => {
    const r = await resolveToolPermission(
      { behavior: 'check', mode: 'default', rules: { allow: [], deny: [], ask: [] } },
      { toolName: 'Write', input: { file_path: s.p('x.txt'), content: 'x' }, cwd: s.dir },
    );
    expect(r).toMatchObject({ behavior: 'deny', reason: 'mode' });
  });
  test('resolveToolPermission: WebFetch(domain:…) rules weighed with the mode and a PreToolUse hook', async () => {
    const rules = { allow: ['WebFetch(domain:docs.example.com)'], deny: ['WebFetch(domain:evil.test)'], ask: [] };
    const call = (url: string) => ({ toolName: 'WebFetch', input: { url, prompt: 'p' }, cwd: s.dir });
    const check = (mode: PermissionMode, hook?: 'allow') =>
      ({ behavior: 'check', mode, rules, ...(hook ? { hook } : {}) }) as const;
    expect(await resolveToolPermission(check('default'), call('https://docs.example.com/a'))).toMatchObject({
      behavior: 'allow',
    });
    // A host no rule names: the mode asks (headless: an ask denial), dontAsk and plan refuse it.
    expect(await resolveToolPermission(check('default'), call('https://other.test/'))).toMatchObject({
      behavior: 'deny',
      reason: 'mode',
      ask: true,
    });
    expect(await resolveToolPermission(check('dontAsk'), call('https://other.test/'))).not.toHaveProperty('ask');
    expect(await resolveToolPermission(check('plan'), call('https://other.test/'))).not.toHaveProperty('ask');
    // A hook's allow lifts what only the mode refused, never a deny rule, and not in plan mode.
    expect(await resolveToolPermission(check('default', 'allow'), call('https://other.test/'))).toMatchObject({
      behavior: 'allow',
    });
    expect(await resolveToolPermission(check('plan', 'allow'), call('https://other.test/'))).toMatchObject({
      behavior: 'deny',
    });
    expect(await resolveToolPermission(check('default', 'allow'), call('https://evil.test/x'))).toMatchObject({
      behavior: 'deny',
      message: 'WebFetch denied access to domain:evil.test.',
      reason: 'rule',
      silent: true,
    });
  });
  test('resolveToolPermission: Grep of the working directory leaves out files a Read deny rule covers', async () => {
    const r = await resolveToolPermission(
      { behavior: 'check', mode: 'default', rules: { allow: [], deny: ['Read(./secrets/**)'], ask: [] } },
      { toolName: 'Grep', input: { pattern: 'TOKEN' }, cwd: s.dir },
    );
    expect(r.behavior).toBe('allow');
    if (r.behavior !== 'allow' || !r.readDenied) throw new Error('expected a filter');
    s.ctx.readDenied = r.readDenied;
    const out = await s.run('Grep', { pattern: 'TOKEN' });
    expect(out.content).toBe('Found 1 file\nsrc/a.ts');
    const glob = await s.run('Glob', { pattern: '**/*' });
    expect(String(glob.content)).not.toContain('secrets');
  });
  test('resolveToolPermission: Glob patterns that climb out of the working directory find nothing outside', async () => {
    const r = await resolveToolPermission(
      { behavior: 'check', mode: 'default', rules: { allow: [], deny: [], ask: [] } },
      { toolName: 'Glob', input: { pattern: '../*' }, cwd: s.p('src') },
    );
    if (r.behavior !== 'allow' || !r.readDenied) throw new Error('expected a filter');
    expect(r.readDenied(s.p('secrets/key'))).toBe(true);
    expect(r.readDenied(s.p('src/a.ts'))).toBe(false);
  });
  test('resolveToolPermission: the checkCommand form of older histories is still decided', async () => {
    const r = await resolveToolPermission(
      { behavior: 'checkCommand', allow: ['git *'], deny: [], message: '' },
      { toolName: 'Bash', input: { command: 'git status; touch x' }, cwd: s.dir },
    );
    expect(r.behavior).toBe('deny');
  });
});

/**
 * The issue-18 kinds end to end through both halves of the decision (the workflow's by tool name,
 * the activity's against the input and the files): a PreToolUse hook's verdict never lifts a deny
 * rule, an ask rule or a safety check; its allow only skips what the mode would ask.
 */
describe('resolveToolPermission: a PreToolUse hook verdict under the rules', () => {
  let s: TestSession;
  let outside: string;
  const policy = (mode: PermissionMode): PermissionPolicy => ({
    mode,
    allowedTools: ['Bash(echo:*)'],
    disallowedTools: ['Bash(rm:*)', 'Read(./secret.txt)'],
    askTools: ['Bash(touch:*)', 'Edit(./asked.txt)'],
  });
  beforeAll(async () => {
    s = await makeSession();
    outside = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'hook-precedence-out-')));
    await s.write('README.md', 'readme\n');
    await s.write('secret.txt', 'S\n');
    await s.write('a.txt', 'a\n');
    await s.write('.git/HEAD', 'ref: refs/heads/main\n');
    await fs.symlink(outside, s.p('linkout'));
  });
  afterAll(async () => {
    await s.cleanup();
    await fs.rm(outside, { recursive: true, force: true });
  });

  const hooks: Record<string, HookPermission> = {
    allow: { decision: 'allow' },
    ask: { decision: 'ask', message: 'hook says ask' },
    deny: { decision: 'deny', message: 'PreToolUse:X hook error: hook says deny' },
    none: { decision: 'none' },
  };
  async function decide(
    mode: PermissionMode,
    hook: keyof typeof hooks,
    toolName: string,
    input: Record<string, unknown>,
  ): Promise<string> {
    const permission = decidePermission(policy(mode), toolName, hooks[hook]);
    // A refusal by tool name goes no further: the workflow asks (approvals) or answers it.
    if (permission.behavior === 'deny') return permission.ask === true ? 'ask' : 'deny';
    const r = await resolveToolPermission(permission, { toolName, input, cwd: s.dir });
    if (r.behavior === 'allow') return 'allow';
    return r.ask === true ? 'ask' : 'deny';
  }
  const bash = (command: string) => ['Bash', { command }] as const;
  const write = (rel: string) =>
    ['Write', { file_path: rel.startsWith('/') ? rel : `{cwd}/${rel}`, content: 'x' }] as const;

  // [what, call, expected with hook: deny, ask, allow, none] in default mode (claude -p 2.1.328).
  const cases: ReadonlyArray<readonly [string, readonly [string, Record<string, unknown>], string]> = [
    ['a denied command', bash('rm -f README.md'), 'deny deny deny deny'],
    ['a denied command inside a list', bash('git status --short && rm -f a.txt'), 'deny deny deny deny'],
    ['a read a deny rule covers', ['Read', { file_path: '{cwd}/secret.txt' }], 'deny deny deny deny'],
    ['a command an ask rule covers', bash('touch t.txt'), 'deny ask ask ask'],
    ['an edit an ask rule covers', write('asked.txt'), 'deny ask ask ask'],
    ['a write to a protected path', write('.git/hooks/pre-commit'), 'deny ask ask ask'],
    ['a write through a link out of the working directory', write('linkout/w.txt'), 'deny ask ask ask'],
    ['a command an allow rule covers', bash('echo allowed'), 'deny ask allow allow'],
    ['a read inside the working directory', ['Read', { file_path: '{cwd}/a.txt' }], 'deny ask allow allow'],
    ['a write the mode would ask about', write('free.txt'), 'deny ask allow ask'],
    ['a write outside the working directory', write('/OUTSIDE/w.txt'), 'deny ask allow ask'],
    ['a redirection the mode would ask about', bash('printf x > redir.txt'), 'deny ask allow ask'],
    ['a command no rule allows', bash('python3 -c 1'), 'deny ask allow ask'],
    // Deliberately stricter than Claude Code, which runs these on a hook's allow:
    ['eval of a denied command (its text is checked)', bash('eval "rm -f a.txt"'), 'deny deny deny deny'],
    ['a command name known only at run time', bash('$(echo rm) -f a.txt'), 'deny ask ask ask'],
    ['find -delete (cannot be checked against the rules)', bash('find . -name a.txt -delete'), 'deny ask ask ask'],
  ];
  const resolve = (input: Record<string, unknown>): Record<string, unknown> =>
    JSON.parse(JSON.stringify(input).split('{cwd}').join(s.dir).split('/OUTSIDE').join(outside)) as Record<
      string,
      unknown
    >;

  test.each(cases)('resolveToolPermission (default mode): %s', async (_what, [tool, input], expected) => {
    const got = [];
    for (const hook of ['deny', 'ask', 'allow', 'none'] as const)
      got.push(await decide('default', hook, tool, resolve(input)));
    expect(got.join(' ')).toBe(expected);
  });

  test("resolveToolPermission: plan mode refuses what a hook allows; in dontAsk a hook's allow skips the refusal of the mode only", async () => {
    const w = resolve({ file_path: '{cwd}/free.txt', content: 'x' });
    expect(await decide('plan', 'allow', 'Write', w)).toBe('deny');
    expect(await decide('plan', 'allow', 'Bash', { command: 'python3 -c 1' })).toBe('deny');
    expect(await decide('plan', 'none', 'Bash', { command: 'echo allowed' })).toBe('allow');
    expect(await decide('plan', 'ask', 'Write', w)).toBe('ask');
    expect(await decide('dontAsk', 'allow', 'Write', w)).toBe('allow');
    expect(await decide('dontAsk', 'none', 'Write', w)).toBe('deny');
    expect(await decide('dontAsk', 'allow', 'Bash', { command: 'touch t.txt' })).toBe('deny');
    expect(await decide('dontAsk', 'ask', 'Read', resolve({ file_path: '{cwd}/a.txt' }))).toBe('deny');
    expect(await decide('acceptEdits', 'allow', 'Bash', { command: 'rm -f a.txt' })).toBe('deny');
    expect(await decide('acceptEdits', 'none', 'Write', w)).toBe('allow');
  });
});
