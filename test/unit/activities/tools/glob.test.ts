import { promises as fsp } from 'node:fs';
import { age, makeSession, text, type TestSession } from './helpers';

let s: TestSession;
beforeEach(async () => {
  s = await makeSession();
});
afterEach(async () => {
  await s.cleanup();
});

describe('Glob', () => {
  test('Glob: paths relative to the cwd, oldest first; hidden, ignored and node_modules files too (as Claude Code)', async () => {
    const oldest = await s.write('src/a.ts', '');
    const middle = await s.write('src/deep/b.ts', '');
    const newest = await s.write('c.ts', '');
    await s.write('src/c.js', '');
    const mod = await s.write('node_modules/x/index.ts', '');
    const git = await s.write('.git/hooks/x.ts', '');
    const ignored = await s.write('build/out.ts', '');
    await s.write('.gitignore', 'build/\n');
    await age(oldest, 600);
    await age(middle, 500);
    await age(newest, 400);
    await age(mod, 300);
    await age(git, 200);
    await age(ignored, 100);
    const out = await s.run('Glob', { pattern: '**/*.ts' });
    expect(out.outcome).toBe('ok');
    const all = ['src/a.ts', 'src/deep/b.ts', 'c.ts', 'node_modules/x/index.ts', '.git/hooks/x.ts', 'build/out.ts'];
    expect(text(out)).toBe(all.join('\n'));
    expect(out.structured).toMatchObject({ filenames: all, numFiles: 6, truncated: false, totalMatches: 6 });
  });

  test('Glob: a pattern without "/" matches file names at any depth (ripgrep\'s --glob)', async () => {
    await s.write('top.md', '');
    await s.write('docs/deep/inner.md', '');
    await s.write('docs/x.txt', '');
    const out = await s.run('Glob', { pattern: '*.md' });
    expect(text(out).split('\n').sort()).toEqual(['docs/deep/inner.md', 'top.md']);
    expect(text(await s.run('Glob', { pattern: 'docs/*.md' }))).toBe('No files found');
  });

  test('Glob: CLAUDE_CODE_GLOB_NO_IGNORE=false honours ignore files; CLAUDE_CODE_GLOB_HIDDEN=false leaves hidden files out', async () => {
    await s.write('.ignore', 'build/\n');
    await s.write('build/out.ts', '');
    await s.write('.hidden/h.ts', '');
    await s.write('.dot.ts', '');
    await s.write('src/a.ts', '');
    const names = async (env: NodeJS.ProcessEnv): Promise<string[]> => {
      s.ctx.env = env;
      return text(await s.run('Glob', { pattern: '**/*.ts' }))
        .split('\n')
        .sort();
    };
    expect(await names({})).toEqual(['.dot.ts', '.hidden/h.ts', 'build/out.ts', 'src/a.ts']);
    expect(await names({ CLAUDE_CODE_GLOB_NO_IGNORE: 'false' })).toEqual(['.dot.ts', '.hidden/h.ts', 'src/a.ts']);
    expect(await names({ CLAUDE_CODE_GLOB_HIDDEN: '0' })).toEqual(['build/out.ts', 'src/a.ts']);
    expect(await names({ CLAUDE_CODE_GLOB_NO_IGNORE: 'no', CLAUDE_CODE_GLOB_HIDDEN: 'off' })).toEqual(['src/a.ts']);
  });

  test('Glob: path narrows the search and may be relative', async () => {
    await s.write('src/a.ts', '');
    await s.write('lib/b.ts', '');
    const out = await s.run('Glob', { pattern: '*.ts', path: 'lib' });
    expect(text(out)).toBe('lib/b.ts');
  });

  test('Glob: lists files only, not directories', async () => {
    await fsp.mkdir(s.p('dir.ts'));
    await s.write('file.ts', '');
    const out = await s.run('Glob', { pattern: '*' });
    expect(text(out)).toBe('file.ts');
  });

  test('Glob: no match says "No files found"', async () => {
    const out = await s.run('Glob', { pattern: '**/*.rs' });
    expect(out.isError).toBe(false);
    expect(text(out)).toBe('No files found');
  });

  test('Glob: more than 100 matches are truncated with a note', async () => {
    await Promise.all(Array.from({ length: 120 }, (_, i) => s.write(`f${i}.txt`, '')));
    const out = await s.run('Glob', { pattern: '*.txt' });
    const lines = text(out).split('\n');
    expect(lines).toHaveLength(101);
    expect(lines[100]).toBe('(Results are truncated. Consider using a more specific path or pattern.)');
    expect(out.structured).toMatchObject({ numFiles: 100, truncated: true });
  });

  test('Glob: a missing directory is an error, without <tool_use_error> tags (as Claude Code)', async () => {
    const out = await s.run('Glob', { pattern: '*', path: 'nowhere' });
    expect(out.isError).toBe(true);
    expect(text(out)).toMatch(/^Directory does not exist: .*nowhere\. /);
  });

  test('Glob: a path outside the working directory is shown absolute', async () => {
    const outside = await fsp.mkdtemp(`${s.dir}-outside-`);
    try {
      await fsp.writeFile(`${outside}/x.md`, '');
      const out = await s.run('Glob', { pattern: '*.md', path: outside });
      expect(text(out)).toBe(`${outside}/x.md`);
    } finally {
      await fsp.rm(outside, { recursive: true, force: true });
    }
  });
});
