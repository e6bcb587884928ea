import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shellCwdTrap, shellEnd, shellQuote } from '../../../../src/activities/tools/shell-cwd';
import type { ToolContext } from '../../../../src/activities/tools/types';

let root: string;
let cwd: string;
let ctx: ToolContext;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'shell-end-')));
  cwd = join(root, 'repo');
  mkdirSync(join(cwd, 'sub'), { recursive: true });
  mkdirSync(join(root, 'outside'));
  ctx = { cwd, signal: new AbortController().signal, readState: () => undefined, heartbeat: () => undefined };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('shellEnd: the file the shell wrote is checked, not trusted', () => {
  test('shellEnd: a directory inside the working directory carries over; the file is removed', async () => {
    const file = join(root, 'cwd-file');
    writeFileSync(file, `${cwd}/sub\n`);
    expect(await shellEnd(ctx, file)).toEqual({ shellCwd: 'sub' });
    expect(existsSync(file)).toBe(false);
  });

  test('shellEnd: a written path through a symlink that leads outside resets the shell', async () => {
    symlinkSync(join(root, 'outside'), join(cwd, 'linkout'));
    const file = join(root, 'cwd-file');
    writeFileSync(file, `${cwd}/linkout\n`);
    expect(await shellEnd(ctx, file)).toMatchObject({ shellCwd: '', resetNote: `Shell cwd was reset to ${cwd}` });
  });

  test('shellEnd: a directory that does not exist resets the shell', async () => {
    const file = join(root, 'cwd-file');
    writeFileSync(file, `${cwd}/gone\n`);
    expect(await shellEnd(ctx, file)).toMatchObject({ shellCwd: '' });
  });

  test('shellEnd: a symlink in place of the file is not followed, and its target is kept', async () => {
    const victim = join(root, 'outside', 'victim');
    writeFileSync(victim, `${cwd}/sub\n`);
    const file = join(root, 'cwd-file');
    symlinkSync(victim, file);
    expect(await shellEnd(ctx, file)).toEqual({});
    expect(readFileSync(victim, 'utf8')).toBe(`${cwd}/sub\n`);
    expect(existsSync(file)).toBe(false);
  });

  test('shellEnd: a FIFO in place of the file does not block', async () => {
    const file = join(root, 'cwd-file');
    execFileSync('mkfifo', [file]);
    expect(await shellEnd(ctx, file)).toEqual({});
  });

  test('shellEnd: relative, multi-line or missing content keeps the previous directory', async () => {
    const file = join(root, 'cwd-file');
    for (const content of ['sub\n', `${cwd}\n${cwd}/sub\n`, '']) {
      writeFileSync(file, content);
      expect(await shellEnd(ctx, file)).toEqual({});
    }
    expect(await shellEnd(ctx, join(root, 'never-written'))).toEqual({});
  });
});

describe('shellCwdTrap', () => {
  test('shellCwdTrap: the file is a quoted literal, whatever characters its path has', () => {
    const file = join(root, "it's a $(dir) `x` *");
    execFileSync('bash', ['-c', `${shellCwdTrap(file)}; IFS=/; FILE=/tmp/x; cd sub`], { cwd });
    expect(readFileSync(file, 'utf8')).toBe(`${cwd}/sub\n`);
  });

  test('shellQuote: one word that bash reads back unchanged', () => {
    const s = `a 'b' "c" $d \`e\` \\ \n f`;
    expect(execFileSync('bash', ['-c', `printf %s ${shellQuote(s)}`]).toString()).toBe(s);
  });
});
