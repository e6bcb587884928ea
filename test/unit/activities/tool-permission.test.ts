import { resolveToolPermission } from '../../../src/activities/tool-permission';
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
