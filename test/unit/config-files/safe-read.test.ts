import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isInsideDir, readConfigFile } from '../../../src/config-files/safe-read';

/** A project directory and a directory beside it (outside it), both real paths. */
function dirs(): { project: string; outside: string } {
  const top = realpathSync(mkdtempSync(join(tmpdir(), 'safe-read-')));
  const project = join(top, 'project');
  const outside = join(top, 'outside');
  mkdirSync(project);
  mkdirSync(outside);
  return { project, outside };
}

const opts = (root: string, maxBytes = 1024): { roots: string[]; maxBytes: number } => ({ roots: [root], maxBytes });

describe('readConfigFile', () => {
  test('readConfigFile: a file inside the root, and a link to one inside it, are read (with the real path)', () => {
    const { project } = dirs();
    writeFileSync(join(project, 'a.md'), 'hello');
    symlinkSync(join(project, 'a.md'), join(project, 'link.md'));
    expect(readConfigFile(join(project, 'a.md'), opts(project))).toEqual({
      status: 'read',
      text: 'hello',
      realPath: join(project, 'a.md'),
      bytes: 5,
      truncated: false,
    });
    expect(readConfigFile(join(project, 'link.md'), opts(project))).toMatchObject({
      status: 'read',
      text: 'hello',
      realPath: join(project, 'a.md'),
    });
  });

  test('readConfigFile: a link to a file outside the root is refused, naming where it leads', () => {
    const { project, outside } = dirs();
    writeFileSync(join(outside, 'secret.txt'), 'TOPSECRET');
    symlinkSync(join(outside, 'secret.txt'), join(project, 'sec.md'));
    const r = readConfigFile(join(project, 'sec.md'), opts(project));
    expect(r).toEqual({
      status: 'refused',
      reason: `it is a link to ${join(outside, 'secret.txt')}, which is outside ${project}`,
    });
    expect(JSON.stringify(r)).not.toContain('TOPSECRET');
    // Named by the user (anywhere): read.
    expect(readConfigFile(join(project, 'sec.md'), { roots: 'anywhere', maxBytes: 100 })).toMatchObject({
      status: 'read',
      text: 'TOPSECRET',
    });
  });

  test('readConfigFile: /proc/self/environ, through a link or named directly, is refused even anywhere', () => {
    const { project } = dirs();
    symlinkSync('/proc/self/environ', join(project, 'env.md'));
    for (const [file, roots] of [
      [join(project, 'env.md'), [project]],
      [join(project, 'env.md'), 'anywhere'],
      ['/proc/self/environ', ['/']],
    ] as const) {
      const r = readConfigFile(file, { roots, maxBytes: 1 << 20 });
      expect(r.status).toBe('refused');
      expect(r.status === 'refused' && r.reason).toMatch(/kernel file system/);
    }
    symlinkSync('/dev/zero', join(project, 'zero.md'));
    expect(readConfigFile(join(project, 'zero.md'), { roots: 'anywhere', maxBytes: 10 }).status).toBe('refused');
  });

  test('readConfigFile: a FIFO (or a link to one) is refused at once, without waiting for a writer', () => {
    const { project } = dirs();
    execFileSync('mkfifo', [join(project, 'pipe.md')]);
    symlinkSync(join(project, 'pipe.md'), join(project, 'to-pipe.md'));
    const started = Date.now();
    expect(readConfigFile(join(project, 'pipe.md'), opts(project))).toEqual({
      status: 'refused',
      reason: 'it is not a regular file',
    });
    expect(readConfigFile(join(project, 'to-pipe.md'), opts(project)).status).toBe('refused');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('readConfigFile: past maxBytes a file is refused, or cut under overSize truncate; NUL bytes are refused', () => {
    const { project } = dirs();
    writeFileSync(join(project, 'big.md'), 'x'.repeat(11));
    writeFileSync(join(project, 'exact.md'), 'x'.repeat(10));
    writeFileSync(join(project, 'bin.md'), 'a\0b');
    expect(readConfigFile(join(project, 'big.md'), opts(project, 10))).toEqual({
      status: 'refused',
      reason: 'it has more than 10 bytes',
    });
    expect(readConfigFile(join(project, 'exact.md'), opts(project, 10))).toMatchObject({ status: 'read', bytes: 10 });
    expect(readConfigFile(join(project, 'big.md'), { ...opts(project, 4), overSize: 'truncate' })).toMatchObject({
      status: 'read',
      text: 'xxxx',
      bytes: 11,
      truncated: true,
    });
    expect(readConfigFile(join(project, 'bin.md'), opts(project))).toEqual({
      status: 'refused',
      reason: 'it is not a text file (it holds NUL bytes)',
    });
  });

  test('readConfigFile: nothing there, or a dangling link, is missing; a link loop and a directory are refused', () => {
    const { project } = dirs();
    symlinkSync(join(project, 'nowhere'), join(project, 'dangling.md'));
    symlinkSync(join(project, 'loop-b'), join(project, 'loop-a'));
    symlinkSync(join(project, 'loop-a'), join(project, 'loop-b'));
    mkdirSync(join(project, 'dir.md'));
    expect(readConfigFile(join(project, 'none.md'), opts(project))).toEqual({ status: 'missing' });
    expect(readConfigFile(join(project, 'dangling.md'), opts(project))).toEqual({ status: 'missing' });
    expect(readConfigFile(join(project, 'loop-a'), opts(project))).toEqual({
      status: 'refused',
      reason: 'its links form a loop',
    });
    expect(readConfigFile(join(project, 'dir.md'), opts(project))).toEqual({
      status: 'refused',
      reason: 'it is not a regular file',
    });
  });

  test('readConfigFile: a root reached through a link is compared by its real path', () => {
    const { project, outside } = dirs();
    writeFileSync(join(project, 'a.md'), 'via the link');
    symlinkSync(project, join(outside, 'project-link'));
    expect(readConfigFile(join(outside, 'project-link', 'a.md'), opts(join(outside, 'project-link')))).toMatchObject({
      status: 'read',
      text: 'via the link',
    });
  });
});

describe('isInsideDir', () => {
  test('isInsideDir: the directory and what is below it, not a sibling sharing its prefix', () => {
    expect(isInsideDir('/a/b', '/a/b')).toBe(true);
    expect(isInsideDir('/a/b/c', '/a/b')).toBe(true);
    expect(isInsideDir('/a/bc', '/a/b')).toBe(false);
    expect(isInsideDir('/a', '/a/b')).toBe(false);
    expect(isInsideDir('/a/b/..c', '/a/b')).toBe(true);
  });
});
