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
  test('Glob: paths relative to the cwd, oldest first, skipping .git and node_modules', async () => {
    const oldest = await s.write('src/a.ts', '');
    const middle = await s.write('src/deep/b.ts', '');
    const newest = await s.write('c.ts', '');
    await s.write('src/c.js', '');
    await s.write('node_modules/x/index.ts', '');
    await s.write('.git/hooks/x.ts', '');
    await age(oldest, 300);
    await age(middle, 200);
    await age(newest, 100);
    const out = await s.run('Glob', { pattern: '**/*.ts' });
    expect(out.outcome).toBe('ok');
    expect(text(out)).toBe(['src/a.ts', 'src/deep/b.ts', 'c.ts'].join('\n'));
    expect(out.structured).toMatchObject({
      filenames: ['src/a.ts', 'src/deep/b.ts', 'c.ts'],
      numFiles: 3,
      truncated: false,
      totalMatches: 3,
    });
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

  test('Glob: a missing directory is an error', async () => {
    const out = await s.run('Glob', { pattern: '*', path: 'nowhere' });
    expect(out.isError).toBe(true);
    expect(text(out)).toContain('Directory does not exist');
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
