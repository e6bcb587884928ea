import { promises as fsp } from 'node:fs';
import { makeSession, text, type TestSession } from './helpers';

let s: TestSession;
beforeEach(async () => {
  s = await makeSession();
});
afterEach(async () => {
  await s.cleanup();
});

describe('Edit', () => {
  test('Edit: replaces a unique string after Read, with Claude Code result shapes', async () => {
    const abs = await s.write('math.js', 'export const add = (a, b) => a - b;\n');
    await s.run('Read', { file_path: abs });
    const out = await s.run('Edit', {
      replace_all: false,
      file_path: abs,
      old_string: 'a - b',
      new_string: 'a + b',
    });
    expect(out.outcome).toBe('ok');
    expect(text(out)).toBe(
      `The file ${abs} has been updated successfully. (file state is current in your context — no need to Read it back)`,
    );
    expect(out.structured).toEqual({
      filePath: abs,
      oldString: 'a - b',
      newString: 'a + b',
      originalFile: 'export const add = (a, b) => a - b;\n',
      structuredPatch: [
        {
          oldStart: 1,
          oldLines: 1,
          newStart: 1,
          newLines: 1,
          lines: ['-export const add = (a, b) => a - b;', '+export const add = (a, b) => a + b;'],
        },
      ],
      userModified: false,
      replaceAll: false,
    });
    expect(await fsp.readFile(abs, 'utf8')).toBe('export const add = (a, b) => a + b;\n');
    expect(out.fileState?.path).toBe(abs);
  });

  test('Edit: refuses a file that was not read first', async () => {
    const abs = await s.write('f.txt', 'abc\n');
    const out = await s.run('Edit', { file_path: abs, old_string: 'abc', new_string: 'xyz' });
    expect(out.isError).toBe(true);
    expect(text(out)).toBe(
      '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>',
    );
    expect(out.structured).toBe('Error: File has not been read yet. Read it first before writing to it.');
    expect(await fsp.readFile(abs, 'utf8')).toBe('abc\n');
  });

  test('Edit: a call a person approved changes a file not read, saying the model has not seen it (2.1.328)', async () => {
    const abs = await s.write('f.txt', 'abc\n');
    s.ctx.approved = true;
    const out = await s.run('Edit', { file_path: abs, old_string: 'abc', new_string: 'xyz' });
    expect(out.outcome).toBe('ok');
    expect(text(out)).toBe(`The file ${abs} has been updated successfully.`);
    expect(out.structured).toMatchObject({ originalFile: 'abc\n', contentNotInModelContext: true });
    expect(await fsp.readFile(abs, 'utf8')).toBe('xyz\n');
  });

  test('Edit: an approved call still refuses a file changed since it was read', async () => {
    const abs = await s.write('f.txt', 'abc\n');
    await s.run('Read', { file_path: abs });
    await fsp.writeFile(abs, 'abcd\n');
    s.ctx.approved = true;
    const out = await s.run('Edit', { file_path: abs, old_string: 'abc', new_string: 'xyz' });
    expect(out.isError).toBe(true);
    expect(await fsp.readFile(abs, 'utf8')).toBe('abcd\n');
  });

  test('Edit: refuses a file changed since it was read', async () => {
    const abs = await s.write('f.txt', 'abc\n');
    await s.run('Read', { file_path: abs });
    await fsp.appendFile(abs, 'more\n');
    const out = await s.run('Edit', { file_path: abs, old_string: 'abc', new_string: 'xyz' });
    expect(out.isError).toBe(true);
    expect(text(out)).toContain('File has been modified since it was read');
    expect(text(out)).toContain('Read it again');
  });

  test('Edit: accepts a file whose mtime changed but whose bytes did not', async () => {
    const abs = await s.write('f.txt', 'abc\n');
    await s.run('Read', { file_path: abs });
    const later = new Date(Date.now() + 60_000);
    await fsp.utimes(abs, later, later);
    const out = await s.run('Edit', { file_path: abs, old_string: 'abc', new_string: 'xyz' });
    expect(out.isError).toBe(false);
  });

  test('Edit: a consecutive edit works with the fileState the first returned', async () => {
    const abs = await s.write('f.txt', 'one two\n');
    await s.run('Read', { file_path: abs });
    expect((await s.run('Edit', { file_path: abs, old_string: 'one', new_string: '1' })).isError).toBe(false);
    expect((await s.run('Edit', { file_path: abs, old_string: 'two', new_string: '2' })).isError).toBe(false);
    expect(await fsp.readFile(abs, 'utf8')).toBe('1 2\n');
  });

  test('Edit: an absent old_string is an error that quotes it', async () => {
    const abs = await s.write('f.txt', 'abc\n');
    await s.run('Read', { file_path: abs });
    const out = await s.run('Edit', { file_path: abs, old_string: 'zzz', new_string: 'y' });
    expect(out.isError).toBe(true);
    expect(text(out)).toBe('<tool_use_error>String to replace not found in file.\nString: zzz</tool_use_error>');
  });

  test('Edit: a non-unique old_string without replace_all is refused with the match count', async () => {
    const abs = await s.write('f.txt', 'x = 1\nx = 1\nx = 1\n');
    await s.run('Read', { file_path: abs });
    const out = await s.run('Edit', { file_path: abs, old_string: 'x = 1', new_string: 'x = 2' });
    expect(out.isError).toBe(true);
    expect(text(out)).toBe(
      '<tool_use_error>Found 3 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: x = 1</tool_use_error>',
    );
    expect(await fsp.readFile(abs, 'utf8')).toBe('x = 1\nx = 1\nx = 1\n');
  });

  test('Edit: replace_all replaces every occurrence', async () => {
    const abs = await s.write('f.txt', 'foo bar foo\nfoo\n');
    await s.run('Read', { file_path: abs });
    const out = await s.run('Edit', { file_path: abs, old_string: 'foo', new_string: 'baz', replace_all: true });
    expect(out.isError).toBe(false);
    expect(text(out)).toBe(
      `The file ${abs} has been updated. All occurrences were successfully replaced. (file state is current in your context — no need to Read it back)`,
    );
    expect(out.structured).toMatchObject({ replaceAll: true });
    expect(await fsp.readFile(abs, 'utf8')).toBe('baz bar baz\nbaz\n');
  });

  test('Edit: replacement text is literal ($& and $1 are not expanded)', async () => {
    const abs = await s.write('f.txt', 'price\n');
    await s.run('Read', { file_path: abs });
    await s.run('Edit', { file_path: abs, old_string: 'price', new_string: '$& $1 $$' });
    expect(await fsp.readFile(abs, 'utf8')).toBe('$& $1 $$\n');
  });

  test('Edit: old_string equal to new_string is refused', async () => {
    const abs = await s.write('f.txt', 'abc\n');
    await s.run('Read', { file_path: abs });
    const out = await s.run('Edit', { file_path: abs, old_string: 'abc', new_string: 'abc' });
    expect(out.isError).toBe(true);
    expect(text(out)).toContain('exactly the same');
  });

  test('Edit: an empty old_string creates a missing file (reported as an update, as Claude Code does)', async () => {
    const abs = s.p('new/dir/file.txt');
    const out = await s.run('Edit', { file_path: abs, old_string: '', new_string: 'fresh\n' });
    expect(out.isError).toBe(false);
    expect(text(out)).toBe(
      `The file ${abs} has been updated successfully. (file state is current in your context — no need to Read it back)`,
    );
    expect(await fsp.readFile(abs, 'utf8')).toBe('fresh\n');
  });

  test('Edit: an empty old_string on a file with content is refused', async () => {
    const abs = await s.write('f.txt', 'abc\n');
    await s.run('Read', { file_path: abs });
    const out = await s.run('Edit', { file_path: abs, old_string: '', new_string: 'x' });
    expect(out.isError).toBe(true);
    expect(await fsp.readFile(abs, 'utf8')).toBe('abc\n');
  });

  test('Edit: a missing file with a non-empty old_string is an error', async () => {
    const out = await s.run('Edit', { file_path: 'ghost.txt', old_string: 'a', new_string: 'b' });
    expect(out.isError).toBe(true);
    expect(text(out)).toContain('File does not exist.');
  });

  test('Edit: LF old_string matches a CRLF file and keeps its line endings', async () => {
    const abs = await s.write('win.txt', 'one\r\ntwo\r\nthree\r\n');
    await s.run('Read', { file_path: abs });
    const out = await s.run('Edit', { file_path: abs, old_string: 'one\ntwo', new_string: 'uno\ndos' });
    expect(out.isError).toBe(false);
    expect(await fsp.readFile(abs, 'utf8')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  test('Edit: refuses a file that is not valid UTF-8 rather than corrupting it', async () => {
    const abs = await s.write('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])); // "café\n" in Latin-1
    await s.run('Read', { file_path: abs });
    const out = await s.run('Edit', { file_path: abs, old_string: 'caf', new_string: 'CAF' });
    expect(out.isError).toBe(true);
    expect(text(out)).toContain('not valid UTF-8');
    expect(await fsp.readFile(abs)).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  });
});
