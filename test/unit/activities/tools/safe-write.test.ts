import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fsp, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveToolPermission } from '../../../../src/activities/tool-permission';
import { executeTool } from '../../../../src/activities/tools/execute';
import {
  WriteRefusedError,
  linkOnPathMessage,
  parentChangedMessage,
  writeFileThroughHandle,
} from '../../../../src/activities/tools/safe-write';
import type { ToolContext } from '../../../../src/activities/tools/types';
import { sha256Hex } from '../../../../src/activities/tools/file-state';

let root: string;
let cwd: string;
let outside: string;

beforeEach(async () => {
  root = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'safe-write-')));
  cwd = path.join(root, 'repo');
  outside = path.join(root, 'outside');
  await fsp.mkdir(path.join(cwd, 'inside'), { recursive: true });
  await fsp.mkdir(outside, { recursive: true });
});
afterEach(() => fsp.rm(root, { recursive: true, force: true, maxRetries: 5 }));

function ctxFor(readStates: Map<string, ReturnType<typeof stateOf>> = new Map()): ToolContext {
  return {
    cwd,
    signal: new AbortController().signal,
    readState: (abs) => readStates.get(abs),
    heartbeat: () => undefined,
  };
}
function stateOf(bytes: Buffer, mtimeMs: number): { mtimeMs: number; size: number; sha256: string } {
  return { mtimeMs, size: bytes.length, sha256: sha256Hex(bytes) };
}

/** Decides a call as runTool does (acceptEdits, no rules) and runs it with what the decision resolved. */
async function decideAndRun(
  toolName: 'Write' | 'Edit',
  input: Record<string, unknown>,
  ctx: ToolContext,
): Promise<{ allowed: boolean; isError: boolean; content: string }> {
  const p = await resolveToolPermission(
    { behavior: 'check', mode: 'acceptEdits', rules: { allow: [], deny: [], ask: [] } },
    { toolName, input, cwd },
  );
  if (p.behavior !== 'allow') return { allowed: false, isError: true, content: p.message };
  const out = await executeTool(toolName, input, {
    ...ctx,
    ...(p.checkedPath !== undefined ? { checkedPath: p.checkedPath } : {}),
  });
  return { allowed: true, isError: out.isError, content: String(out.content) };
}

describe('writeFileThroughHandle: the checked path is the written path', () => {
  test('writeFileThroughHandle: creates missing parent directories and returns the read state', async () => {
    const abs = path.join(cwd, 'a', 'b', 'c.txt');
    const state = await writeFileThroughHandle(abs, Buffer.from('hi\n'), { checkedPath: abs });
    expect(await fsp.readFile(abs, 'utf8')).toBe('hi\n');
    expect(state).toMatchObject({ size: 3, sha256: sha256Hex('hi\n') });
  });

  test('writeFileThroughHandle: a parent that no longer resolves where the check resolved it is refused in Claude Code words', async () => {
    const abs = path.join(cwd, 'd', 'x.txt');
    await fsp.symlink(path.join(cwd, 'inside'), path.join(cwd, 'd'));
    const checked = path.join(cwd, 'inside', 'x.txt');
    await fsp.rm(path.join(cwd, 'd'));
    await fsp.symlink(outside, path.join(cwd, 'd')); // swapped after the check
    await expect(writeFileThroughHandle(abs, Buffer.from('x'), { checkedPath: checked })).rejects.toThrow(
      new WriteRefusedError(parentChangedMessage(abs)),
    );
    expect(await fsp.readdir(outside)).toEqual([]);
  });

  test('writeFileThroughHandle: a link put at the file name is not followed', async () => {
    const abs = path.join(cwd, 'f.txt');
    await fsp.symlink(path.join(outside, 'target.txt'), abs);
    await expect(writeFileThroughHandle(abs, Buffer.from('x'))).rejects.toThrow(linkOnPathMessage(abs));
    expect(await fsp.readdir(outside)).toEqual([]);
  });

  test('writeFileThroughHandle: no temporary file is left behind, also when the write is refused', async () => {
    await writeFileThroughHandle(path.join(cwd, 'ok.txt'), Buffer.from('x'));
    await fsp.mkdir(path.join(cwd, 'dir.txt'));
    await expect(writeFileThroughHandle(path.join(cwd, 'dir.txt'), Buffer.from('x'))).rejects.toThrow(/is a directory/);
    expect((await fsp.readdir(cwd)).sort()).toEqual(['dir.txt', 'inside', 'ok.txt']);
  });
});

describe('Edit and Write break hard links and keep the mode (as claude -p 2.1.328)', () => {
  test('Edit: a hard link inside the working directory to a file outside gets a file of its own; the outside file is unchanged', async () => {
    const out = path.join(outside, 'shared.txt');
    await fsp.writeFile(out, 'original\n');
    const inside = path.join(cwd, 'hl.txt');
    await fsp.link(out, inside);
    const bytes = Buffer.from('original\n');
    const states = new Map([[inside, stateOf(bytes, statSync(inside).mtimeMs)]]);
    const r = await decideAndRun(
      'Edit',
      { file_path: inside, old_string: 'original', new_string: 'changed' },
      ctxFor(states),
    );
    expect(r).toMatchObject({ allowed: true, isError: false });
    expect(await fsp.readFile(out, 'utf8')).toBe('original\n');
    expect(await fsp.readFile(inside, 'utf8')).toBe('changed\n');
    expect(statSync(inside).ino).not.toBe(statSync(out).ino);
    expect(statSync(out).nlink).toBe(1);
  });

  test('Write and Edit keep the mode of the file they replace', async () => {
    const script = path.join(cwd, 'run.sh');
    await fsp.writeFile(script, '#!/bin/sh\necho hi\n', { mode: 0o755 });
    await fsp.chmod(script, 0o755);
    const secret = path.join(cwd, 'secret.env');
    await fsp.writeFile(secret, 'A=1\n');
    await fsp.chmod(secret, 0o600);
    const states = new Map([
      [script, stateOf(Buffer.from('#!/bin/sh\necho hi\n'), 0)],
      [secret, stateOf(Buffer.from('A=1\n'), 0)],
    ]);
    expect(
      await decideAndRun('Edit', { file_path: script, old_string: 'hi', new_string: 'ho' }, ctxFor(states)),
    ).toMatchObject({
      isError: false,
    });
    expect(await decideAndRun('Write', { file_path: secret, content: 'A=2\n' }, ctxFor(states))).toMatchObject({
      isError: false,
    });
    expect(statSync(script).mode & 0o7777).toBe(0o755);
    expect(statSync(secret).mode & 0o7777).toBe(0o600);
  });
});

describe('a link swapped while Writes run (the TOCTOU attack of issue 18)', () => {
  let swapper: ChildProcess | undefined;
  // The whole group (bash and the cp or mv it runs) is killed and waited for, so that nothing
  // writes into the directory while the outer afterEach removes it.
  afterEach(async () => {
    const s = swapper;
    swapper = undefined;
    if (!s?.pid || s.exitCode !== null || s.signalCode !== null) return;
    const exited = new Promise((resolve) => s.once('exit', resolve));
    process.kill(-s.pid, 'SIGKILL');
    await exited;
  });

  /**
   * Swaps `<cwd>/<name>` between `inTarget` (a link to it, or with `copy` a copy of the file) and a
   * link leading out of the working directory, as fast as it can.
   */
  function swap(name: string, inTarget: string, outTarget: string, copy = false): void {
    const script = [
      `cd ${JSON.stringify(cwd)}`,
      copy ? `cp ${JSON.stringify(inTarget)} .in-link` : `ln -s ${JSON.stringify(inTarget)} .in-link`,
      `ln -s ${JSON.stringify(outTarget)} .out-link`,
      `while :; do cp -P .in-link .tmp-link && mv -Tf .tmp-link ${name}; cp -P .out-link .tmp-link && mv -Tf .tmp-link ${name}; done`,
    ].join('\n');
    swapper = spawn('bash', ['-c', script], { stdio: 'ignore', detached: true });
  }

  test('a swapped directory link: no Write lands outside the working directory', async () => {
    swap('d', path.join(cwd, 'inside'), outside);
    await new Promise((r) => setTimeout(r, 100));
    const results = [];
    for (let i = 0; i < 60; i++) {
      results.push(
        await decideAndRun('Write', { file_path: path.join(cwd, 'd', `f${i}.txt`), content: 'x' }, ctxFor()),
      );
    }
    expect(await fsp.readdir(outside)).toEqual([]);
    const written = results.filter((r) => r.allowed && !r.isError).length;
    const refused = results.filter((r) => r.allowed && r.isError);
    // Every refusal after the check is Claude Code's, and the attack did race the writes.
    for (const r of refused)
      expect(r.content).toMatch(
        /Refusing to write .*(parent-directory symlink resolution changed|a symbolic link is on its path)/,
      );
    expect(written + refused.length + results.filter((r) => !r.allowed).length).toBe(60);
  });

  test('a file swapped for a link: no Write lands outside the working directory', async () => {
    await fsp.writeFile(path.join(cwd, 'inside', 't.txt'), 'in\n');
    swap('t.txt', path.join(cwd, 'inside', 't.txt'), path.join(outside, 't.txt'), true);
    await new Promise((r) => setTimeout(r, 100));
    // The model read the file: a Write that finds it a regular file goes ahead.
    const states = new Map([[path.join(cwd, 't.txt'), stateOf(Buffer.from('in\n'), 0)]]);
    for (let i = 0; i < 60; i++) {
      await decideAndRun('Write', { file_path: path.join(cwd, 't.txt'), content: 'in\n' }, ctxFor(states));
    }
    expect(await fsp.readdir(outside)).toEqual([]);
  });
});
