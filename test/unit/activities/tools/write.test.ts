import { promises as fsp } from 'node:fs';
import { makeSession, text, type TestSession } from './helpers';

let s: TestSession;
beforeEach(async () => {
  s = await makeSession();
});
afterEach(async () => {
  await s.cleanup();
});

describe('Write', () => {
  test('Write: creates a new file and its parent directories', async () => {
    const abs = s.p('a/b/new.txt');
    const out = await s.run('Write', { file_path: 'a/b/new.txt', content: 'hello\n' });
    expect(out.outcome).toBe('ok');
    expect(text(out)).toBe(
      `File created successfully at: ${abs} (file state is current in your context — no need to Read it back)`,
    );
    expect(await fsp.readFile(abs, 'utf8')).toBe('hello\n');
    expect(out.structured).toEqual({
      type: 'create',
      filePath: abs,
      content: 'hello\n',
      structuredPatch: [],
      originalFile: null,
      userModified: false,
    });
    expect(out.fileState?.path).toBe(abs);
    expect(out.fileState?.state.size).toBe(6);
  });

  test('Write: refuses to overwrite a file that was not read', async () => {
    const abs = await s.write('old.txt', 'old\n');
    const out = await s.run('Write', { file_path: abs, content: 'new\n' });
    expect(out.isError).toBe(true);
    expect(text(out)).toBe(
      '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>',
    );
    expect(await fsp.readFile(abs, 'utf8')).toBe('old\n');
  });

  test('Write: a call a person approved overwrites a file not read (2.1.328)', async () => {
    const abs = await s.write('old.txt', 'old\n');
    s.ctx.approved = true;
    const out = await s.run('Write', { file_path: abs, content: 'new\n' });
    expect(out.outcome).toBe('ok');
    expect(await fsp.readFile(abs, 'utf8')).toBe('new\n');
  });

  test('Write: overwrites a file after Read and reports the patch', async () => {
    const abs = await s.write('old.txt', 'one\ntwo\n');
    await s.run('Read', { file_path: abs });
    const out = await s.run('Write', { file_path: abs, content: 'one\n2\n' });
    expect(out.isError).toBe(false);
    expect(text(out)).toBe(
      `The file ${abs} has been updated successfully. (file state is current in your context — no need to Read it back)`,
    );
    expect(out.structured).toMatchObject({
      type: 'update',
      originalFile: 'one\ntwo\n',
      structuredPatch: [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [' one', '-two', '+2'] }],
    });
    // A second write works straight away: the returned fileState is current.
    const again = await s.run('Write', { file_path: abs, content: 'three\n' });
    expect(again.isError).toBe(false);
    expect(await fsp.readFile(abs, 'utf8')).toBe('three\n');
  });

  test('Write: refuses a file changed since it was read', async () => {
    const abs = await s.write('f.txt', 'v1\n');
    await s.run('Read', { file_path: abs });
    await fsp.writeFile(abs, 'v2 by someone else\n');
    const out = await s.run('Write', { file_path: abs, content: 'mine\n' });
    expect(out.isError).toBe(true);
    expect(text(out)).toContain('modified since it was read');
    expect(await fsp.readFile(abs, 'utf8')).toBe('v2 by someone else\n');
  });

  test('Write: refuses a directory path', async () => {
    await fsp.mkdir(s.p('d'));
    const out = await s.run('Write', { file_path: 'd', content: 'x' });
    expect(out.isError).toBe(true);
    expect(text(out)).toBe(
      `<tool_use_error>${s.p('d')} is a directory, not a file. To create a file inside it, include the file name in file_path.</tool_use_error>`,
    );
  });
});
