import { age, makeSession, text, type TestSession } from './helpers';

let s: TestSession;
/** Paths as Grep shows them: relative to the working directory. */
const a = 'src/a.ts';
const b = 'src/b.py';
beforeEach(async () => {
  s = await makeSession();
  const absA = await s.write('src/a.ts', 'import x from "y";\nconst Foo = 1;\n// foo here\nexport default Foo;\n');
  const absB = await s.write('src/b.py', 'def foo():\n    return 1\n\n\nprint("FOO")\n');
  await s.write('src/c.bin', Buffer.from('foo\0binary'));
  // Left out: an ignore file's directory, and version-control directories.
  await s.write('.ignore', 'node_modules/\n');
  await s.write('node_modules/m/index.ts', 'foo\n');
  await s.write('.git/config', 'foo\n');
  await s.write('.hg/store', 'foo\n');
  await age(absA, 100);
  await age(absB, 200);
});
afterEach(async () => {
  await s.cleanup();
});

describe('Grep', () => {
  test('Grep: files_with_matches (default) lists files newest first, skipping binaries, ignored files and version control', async () => {
    const out = await s.run('Grep', { pattern: 'foo', '-i': true });
    expect(out.outcome).toBe('ok');
    expect(text(out)).toBe(`Found 2 files\n${a}\n${b}`);
    expect(out.structured).toMatchObject({ mode: 'files_with_matches', numFiles: 2, filenames: [a, b] });
  });

  test('Grep: is case-sensitive unless -i', async () => {
    const out = await s.run('Grep', { pattern: 'FOO' });
    expect(text(out)).toBe(`Found 1 file\n${b}`);
  });

  test('Grep: content mode shows path:line:text, with line numbers by default', async () => {
    const out = await s.run('Grep', { pattern: 'foo', output_mode: 'content', '-i': true });
    expect(text(out)).toBe(
      [
        `${a}:2:const Foo = 1;`,
        `${a}:3:// foo here`,
        `${a}:4:export default Foo;`,
        `${b}:1:def foo():`,
        `${b}:5:print("FOO")`,
      ].join('\n'),
    );
  });

  test('Grep: content mode with context (-B/-A/-C) marks context lines with "-" and separates groups with "--"', async () => {
    const out = await s.run('Grep', { pattern: 'return', output_mode: 'content', '-C': 1, path: 'src' });
    expect(text(out)).toBe([`${b}-1-def foo():`, `${b}:2:    return 1`, `${b}-3-`].join('\n'));
    // A search of a single file shows no path (as ripgrep does).
    const two = await s.run('Grep', { pattern: '^(import|export)', output_mode: 'content', '-A': 1, path: a });
    expect(text(two)).toBe(['1:import x from "y";', '2-const Foo = 1;', '--', '4:export default Foo;'].join('\n'));
    const before = await s.run('Grep', { pattern: 'print', output_mode: 'content', context: 2, glob: '*.py' });
    expect(text(before)).toBe([`${b}-3-`, `${b}-4-`, `${b}:5:print("FOO")`].join('\n'));
  });

  test("Grep: a matching or context line over 500 UTF-16 units shows ripgrep's omission note instead (Claude Code 2.1.328)", async () => {
    const lines = [
      `ctx ${'c'.repeat(600)}`, // a context line over the limit
      'short MATCH',
      `${'x'.repeat(496)}MATCH`, // 501 characters: omitted
      `MATCH${'q'.repeat(495)}`, // exactly 500: shown
      `${'é'.repeat(250)}MATCH`, // 505 bytes but 255 units: shown
      `${'😀'.repeat(250)}MATCH`, // 255 code points but 505 UTF-16 units: omitted
    ];
    await s.write('long.txt', `${lines.join('\n')}\n`);
    const out = await s.run('Grep', { pattern: 'MATCH', output_mode: 'content', '-C': 1, path: 'long.txt' });
    expect(text(out)).toBe(
      [
        '1-[Omitted long context line]',
        '2:short MATCH',
        '3:[Omitted long matching line]',
        `4:${lines[3]}`,
        `5:${lines[4]}`,
        '6:[Omitted long matching line]',
      ].join('\n'),
    );
    const plain = await s.run('Grep', { pattern: 'MATCH', output_mode: 'content', '-n': false, path: 'long.txt' });
    expect(text(plain).split('\n')[1]).toBe('[Omitted long matching line]');
    // Counts and file lists are not affected.
    const count = await s.run('Grep', { pattern: 'MATCH', output_mode: 'count', path: 'long.txt' });
    expect(text(count).split('\n')[0]).toBe('long.txt:5');
  });

  test('Grep: content mode without -n omits line numbers', async () => {
    const out = await s.run('Grep', { pattern: 'return', output_mode: 'content', '-n': false });
    expect(text(out)).toBe(`${b}:    return 1`);
  });

  test('Grep: count mode gives path:count lines and a total', async () => {
    const out = await s.run('Grep', { pattern: 'foo', output_mode: 'count', '-i': true });
    expect(text(out)).toBe(`${a}:3\n${b}:2\n\nFound 5 total occurrences across 2 files.`);
    expect(out.structured).toMatchObject({ mode: 'count', numFiles: 2, numMatches: 5 });
  });

  test('Grep: -o prints each match on its own line', async () => {
    const out = await s.run('Grep', { pattern: '[Ff]oo', output_mode: 'content', '-o': true, path: a });
    expect(text(out)).toBe('2:Foo\n3:foo\n4:Foo');
  });

  test('Grep: glob and type filter the files', async () => {
    expect(text(await s.run('Grep', { pattern: 'foo', '-i': true, glob: '*.py' }))).toBe(`Found 1 file\n${b}`);
    expect(text(await s.run('Grep', { pattern: 'foo', '-i': true, type: 'ts' }))).toBe(`Found 1 file\n${a}`);
    expect(text(await s.run('Grep', { pattern: 'foo', '-i': true, glob: '!*.py' }))).toBe(`Found 1 file\n${a}`);
    expect(text(await s.run('Grep', { pattern: 'foo', '-i': true, glob: '*.{py,ts}' }))).toBe(
      `Found 2 files\n${a}\n${b}`,
    );
    const bad = await s.run('Grep', { pattern: 'foo', type: 'klingon' });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('Unknown file type "klingon"');
  });

  test('Grep: no match says "No files found" / "No matches found"', async () => {
    expect(text(await s.run('Grep', { pattern: 'zebra' }))).toBe('No files found');
    expect(text(await s.run('Grep', { pattern: 'zebra', output_mode: 'content' }))).toBe('No matches found');
    expect(text(await s.run('Grep', { pattern: 'zebra', output_mode: 'count' }))).toBe(
      'No matches found\n\nFound 0 total occurrences across 0 files.',
    );
  });

  test('Grep: head_limit and offset page through output lines', async () => {
    const out = await s.run('Grep', { pattern: 'foo', output_mode: 'content', '-i': true, head_limit: 2, offset: 1 });
    expect(text(out)).toBe(
      `${a}:3:// foo here\n${a}:4:export default Foo;\n\n[Showing results with pagination = limit: 2, offset: 1]`,
    );
    const files = await s.run('Grep', { pattern: 'foo', '-i': true, head_limit: 1 });
    expect(text(files)).toBe(`Found 1 file limit: 1\n${a}`);
    const counts = await s.run('Grep', { pattern: 'foo', '-i': true, output_mode: 'count', head_limit: 1 });
    expect(text(counts)).toBe(`${a}:3\n\nFound 5 total occurrences across 2 files. with pagination = limit: 1`);
  });

  test('Grep: multiline lets a pattern span lines', async () => {
    const single = await s.run('Grep', { pattern: 'foo\\(\\):.*return', output_mode: 'content' });
    expect(text(single)).toBe('No matches found');
    const multi = await s.run('Grep', { pattern: 'foo\\(\\):.*return', output_mode: 'content', multiline: true });
    expect(text(multi)).toBe(`${b}:1:def foo():\n${b}:2:    return 1`);
    expect(multi.structured).toMatchObject({ mode: 'content', numLines: 2, content: text(multi) });
  });

  test('Grep: an invalid regular expression is an error', async () => {
    const out = await s.run('Grep', { pattern: '(unclosed' });
    expect(out.isError).toBe(true);
    expect(text(out)).toContain('Invalid regular expression');
  });
});

describe('Grep limits', () => {
  test('Grep: output is capped at 250 lines by default, head_limit 0 removes the cap', async () => {
    await s.write('many.txt', 'hit\n'.repeat(300));
    const capped = await s.run('Grep', { pattern: 'hit', output_mode: 'content', path: 'many.txt' });
    const lines = text(capped).split('\n');
    expect(lines).toHaveLength(252);
    expect(lines[0]).toBe('1:hit');
    expect(lines[251]).toBe('[Showing results with pagination = limit: 250]');
    const all = await s.run('Grep', { pattern: 'hit', output_mode: 'content', path: 'many.txt', head_limit: 0 });
    expect(text(all).split('\n')).toHaveLength(300);
  });

  test('Grep: content mode over hundreds of thousands of matching lines pages them (totalLines counts all)', async () => {
    // Two files of 200 000 matching lines each: more than a spread (`push(...lines)`) can take.
    await s.write('big/one.txt', 'hit\n'.repeat(200_000));
    await s.write('big/two.txt', 'hit\n'.repeat(200_000));
    const out = await s.run('Grep', {
      pattern: 'hit',
      output_mode: 'content',
      path: 'big',
      offset: 199_999,
      head_limit: 2,
    });
    expect(out.outcome).toBe('ok');
    expect(text(out)).toBe(
      'big/one.txt:200000:hit\nbig/two.txt:1:hit\n\n[Showing results with pagination = limit: 2, offset: 199999]',
    );
    expect(out.structured).toMatchObject({ numLines: 2, totalLines: 400_000 });
    const context = await s.run('Grep', { pattern: 'hit', output_mode: 'content', path: 'big', '-A': 1 });
    expect(context.structured).toMatchObject({ numLines: 250, totalLines: 400_001 });
  });

  test('Grep: honours ignore files as ripgrep does; hidden files and node_modules are searched unless ignored', async () => {
    const t = await makeSession(); // a tree of its own: not a git repository at first
    try {
      await t.write('.hidden/h.txt', 'needle\n');
      await t.write('vendor/node_modules/p/i.js', 'needle\n');
      await t.write('.gitignore', 'gi.txt\n');
      await t.write('gi.txt', 'needle\n');
      await t.write('.rgignore', 'rg.txt\n');
      await t.write('rg.txt', 'needle\n');
      const found = async (path?: string): Promise<string[]> =>
        text(await t.run('Grep', { pattern: 'needle', ...(path ? { path } : {}) }))
          .split('\n')
          .slice(1)
          .sort();
      // Not a git repository: .gitignore does not apply (ripgrep's default), .ignore/.rgignore do.
      expect(await found()).toEqual(['.hidden/h.txt', 'gi.txt', 'vendor/node_modules/p/i.js']);
      await t.write('.git/description', 'needle\n');
      expect(await found()).toEqual(['.hidden/h.txt', 'vendor/node_modules/p/i.js']);
      // A directory given as the path is searched even when ignored; the rules still apply inside it.
      await t.write('.ignore', 'node_modules/\n*.log\n');
      await t.write('node_modules/m/skip.log', 'needle\n');
      await t.write('node_modules/m/take.js', 'needle\n');
      expect(await found()).toEqual(['.hidden/h.txt']);
      expect(await found('node_modules')).toEqual(['node_modules/m/take.js']);
      // A version-control directory given as the path is searched too.
      expect(await found('.git')).toEqual(['.git/description']);
    } finally {
      await t.cleanup();
    }
  });

  test('Grep: a missing path is an error, without <tool_use_error> tags (as Claude Code)', async () => {
    const out = await s.run('Grep', { pattern: 'x', path: 'nowhere' });
    expect(out.isError).toBe(true);
    expect(text(out)).toMatch(/^Path does not exist: .*nowhere\. /);
  });
});
