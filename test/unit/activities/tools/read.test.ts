import { promises as fsp } from 'node:fs';
import { createHash } from 'node:crypto';
import { makeSession, text, type TestSession } from './helpers';

let s: TestSession;
beforeEach(async () => {
  s = await makeSession();
});
afterEach(async () => {
  await s.cleanup();
});

describe('Read', () => {
  test('Read: numbers lines like Claude Code (trailing newline gives an empty last line)', async () => {
    const abs = await s.write('math.js', 'export const add = (a, b) => a - b;\n');
    const out = await s.run('Read', { file_path: abs });
    expect(out.outcome).toBe('ok');
    expect(out.isError).toBe(false);
    expect(text(out)).toBe('1\texport const add = (a, b) => a - b;\n2\t');
    expect(out.structured).toEqual({
      type: 'text',
      file: {
        filePath: abs,
        content: 'export const add = (a, b) => a - b;\n',
        numLines: 2,
        startLine: 1,
        totalLines: 2,
      },
    });
  });

  test('Read: records fileState with mtime, size and sha256 of the whole file', async () => {
    const body = 'a\nb\nc\n';
    const abs = await s.write('f.txt', body);
    const out = await s.run('Read', { file_path: 'f.txt', limit: 1 });
    const st = await fsp.stat(abs);
    expect(out.fileState).toEqual({
      path: abs,
      state: { mtimeMs: st.mtimeMs, size: 6, sha256: createHash('sha256').update(body).digest('hex') },
    });
  });

  test('Read: offset is 1-based and limit caps the lines (no note: the caller chose the window)', async () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
    await s.write('ten.txt', lines.join('\n'));
    const out = await s.run('Read', { file_path: 'ten.txt', offset: 4, limit: 3 });
    expect(text(out)).toBe('4\tline 4\n5\tline 5\n6\tline 6');
    expect(out.structured).toMatchObject({
      file: { content: 'line 4\nline 5\nline 6', numLines: 3, startLine: 4, totalLines: 10 },
    });
  });

  test('Read: default limit is 2000 lines, with a note that more exist', async () => {
    await s.write('big.txt', Array.from({ length: 2500 }, (_, i) => `${i + 1}`).join('\n'));
    const out = await s.run('Read', { file_path: 'big.txt' });
    const body = text(out).split('\n\n(')[0] ?? '';
    expect(body.split('\n')).toHaveLength(2000);
    expect(body.endsWith('2000\t2000')).toBe(true);
    expect(text(out)).toContain('(Showing lines 1-2000 of 2500.');
  });

  test('Read: offset past the end warns how many lines the file has (Claude Code wording)', async () => {
    await s.write('short.txt', 'a\nb');
    const out = await s.run('Read', { file_path: 'short.txt', offset: 10 });
    expect(out.isError).toBe(false);
    expect(text(out)).toBe(
      '<system-reminder>Warning: the file exists but is shorter than the provided offset (10). The file has 2 lines.</system-reminder>',
    );
  });

  test('Read: lines longer than 2000 characters are cut', async () => {
    await s.write('long.txt', `${'x'.repeat(5000)}\nshort`);
    const out = await s.run('Read', { file_path: 'long.txt' });
    const [first, second] = text(out).split('\n');
    expect(first).toBe(`1\t${'x'.repeat(2000)}… [line truncated, 3000 more characters]`);
    expect(second).toBe('2\tshort');
  });

  test('Read: CRLF line endings are shown without the carriage return', async () => {
    await s.write('crlf.txt', 'a\r\nb\r\n');
    const out = await s.run('Read', { file_path: 'crlf.txt' });
    expect(text(out)).toBe('1\ta\n2\tb\n3\t');
  });

  test('Read: a missing file is a plain error with the cwd hint', async () => {
    const out = await s.run('Read', { file_path: 'nope.txt' });
    expect(out.isError).toBe(true);
    expect(out.outcome).toBe('error');
    expect(text(out)).toBe(`File does not exist. Note: your current working directory is ${s.dir}.`);
    expect(out.structured).toBe(`Error: File does not exist. Note: your current working directory is ${s.dir}.`);
    expect(out.fileState).toBeUndefined();
  });

  test('Read: a directory is refused with the EISDIR error', async () => {
    await fsp.mkdir(s.p('sub'));
    const out = await s.run('Read', { file_path: s.p('sub') });
    expect(out.isError).toBe(true);
    expect(text(out)).toBe(`EISDIR: illegal operation on a directory, read '${s.p('sub')}'`);
  });

  test('Read: a binary file (NUL bytes) is refused', async () => {
    await s.write('bin.dat', Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]));
    const out = await s.run('Read', { file_path: 'bin.dat' });
    expect(out.isError).toBe(true);
    expect(text(out)).toContain('binary file');
  });

  test('Read: an empty file gets a warning (not an error)', async () => {
    const abs = await s.write('empty.txt', '');
    const out = await s.run('Read', { file_path: abs });
    expect(out.isError).toBe(false);
    expect(text(out)).toBe('<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>');
    expect(out.fileState?.state.size).toBe(0);
  });

  test('Read: a file over 256 KB needs offset/limit, and then streams only the window', async () => {
    const line = `${'y'.repeat(99)}\n`; // 100 bytes
    const abs = await s.write('huge.txt', line.repeat(30_000)); // 3 MB
    const refused = await s.run('Read', { file_path: abs });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('2.9 MB');
    expect(text(refused)).toContain('offset and limit');

    const out = await s.run('Read', { file_path: abs, offset: 29_999, limit: 5 });
    expect(out.isError).toBe(false);
    expect(text(out)).toBe(`29999\t${'y'.repeat(99)}\n30000\t${'y'.repeat(99)}\n30001\t`);
    const bytes = await fsp.readFile(abs);
    expect(out.fileState?.state.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(out.fileState?.state.size).toBe(3_000_000);
  });

  test('Read: multi-byte characters split across chunk boundaries survive', async () => {
    // 65535 ASCII bytes then a 3-byte character straddling the 64 KB chunk edge.
    await s.write('utf8.txt', `${'a'.repeat(65_535)}\n€uro\n`);
    const out = await s.run('Read', { file_path: 'utf8.txt', offset: 2, limit: 1 });
    expect(text(out).split('\n')[0]).toBe('2\t€uro');
  });
});
