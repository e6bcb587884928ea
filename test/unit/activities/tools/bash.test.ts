import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatTimeout } from '../../../../src/activities/tools/bash';
import { makeSession, text, type TestSession } from './helpers';
import { isProcessAlive } from '../../../helpers/processes';

let s: TestSession;
beforeEach(async () => {
  s = await makeSession();
});
afterEach(async () => {
  await s.cleanup();
});

async function waitUntilGone(pid: number, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!isProcessAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !isProcessAlive(pid);
}

function firstPid(out: { structured?: unknown }): number {
  const stdout = (out.structured as { stdout: string }).stdout;
  const pid = Number(stdout.split('\n')[0]);
  expect(pid).toBeGreaterThan(1);
  return pid;
}

describe('Bash', () => {
  test('Bash: runs in cwd and returns trimmed stdout', async () => {
    const out = await s.run('Bash', { command: 'pwd; echo hi', description: 'where am I' });
    expect(out.outcome).toBe('ok');
    expect(text(out)).toBe(`${s.dir}\nhi`);
    expect(out.structured).toEqual({
      stdout: `${s.dir}\nhi`,
      stderr: '',
      interrupted: false,
      isImage: false,
      noOutputExpected: false,
    });
  });

  test('Bash: a non-zero exit is an error: the exit code, then the output', async () => {
    const out = await s.run('Bash', { command: 'echo out; echo err >&2; exit 3' });
    expect(out.isError).toBe(true);
    expect(out.outcome).toBe('error');
    expect(text(out)).toBe('Exit code 3\nout\nerr');
    expect(out.structured).toBe('Error: Exit code 3\nout\nerr');
  });

  test('Bash: stderr is interleaved with stdout in the order written; with exit 0 it is not an error', async () => {
    const out = await s.run('Bash', { command: 'echo a; echo warn >&2; echo b' });
    expect(out.isError).toBe(false);
    expect(text(out)).toBe('a\nwarn\nb');
    expect(out.structured).toMatchObject({ stdout: 'a\nwarn\nb', stderr: '' });
  });

  test('Bash: no output says so', async () => {
    const out = await s.run('Bash', { command: 'true' });
    expect(text(out)).toBe('(Bash completed with no output)');
  });

  test('Bash: stdin is closed', async () => {
    const out = await s.run('Bash', { command: 'cat; echo done' });
    expect(text(out)).toBe('done');
  });

  test('Bash: timeout kills the whole process group', async () => {
    const started = Date.now();
    const out = await s.run('Bash', { command: '(sleep 30) & echo $!; wait', timeout: 500 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(out.isError).toBe(true);
    const [exit, note, pid] = text(out).split('\n');
    expect(exit).toBe('Exit code 143');
    expect(note).toBe('Command timed out after 500ms');
    expect(await waitUntilGone(Number(pid))).toBe(true);
  });

  test('Bash: a child that ignores SIGTERM gets SIGKILL after the grace period', async () => {
    const out = await s.run('Bash', {
      command: "trap '' TERM; sleep 30 & echo $!; wait",
      timeout: 300,
    });
    expect(out.isError).toBe(true);
    expect(text(out)).toContain('Command timed out after 300ms');
    expect(await waitUntilGone(Number(text(out).split('\n').pop()), 4000)).toBe(true);
  });

  test('Bash: aborting the signal kills the process group', async () => {
    setTimeout(() => s.abort.abort(), 400);
    const started = Date.now();
    const out = await s.run('Bash', { command: '(sleep 30) & echo $!; wait' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(out.isError).toBe(true);
    expect(out.structured).toMatchObject({ interrupted: true });
    expect(text(out)).toContain('aborted');
    expect(await waitUntilGone(firstPid(out))).toBe(true);
  });

  test('Bash: 100 MB of output stays capped at head + tail (8 M characters) and finishes', async () => {
    const out = await s.run('Bash', { command: "head -c 100000000 /dev/zero | tr '\\0' a; echo; echo END" });
    expect(out.isError).toBe(false);
    const stdout = (out.structured as { stdout: string }).stdout;
    expect(stdout.length).toBeLessThan(8_000_200);
    expect(stdout.startsWith('a'.repeat(4_000_000))).toBe(true);
    expect(stdout.endsWith('a\nEND')).toBe(true);
    expect(stdout).toContain('... [92000005 characters truncated] ...');
  }, 30_000);

  test('Bash: heartbeats while running', async () => {
    await s.run('Bash', { command: 'sleep 1.2' });
    expect(s.heartbeats()).toBeGreaterThanOrEqual(2);
  });

  test('Bash: does not wait for a background process that keeps the pipes open', async () => {
    const started = Date.now();
    const out = await s.run('Bash', { command: 'sleep 5 & echo $!' });
    expect(Date.now() - started).toBeLessThan(2000);
    const pid = firstPid(out);
    expect(isProcessAlive(pid)).toBe(true); // left running: only timeouts and aborts kill the group
    process.kill(pid, 'SIGKILL');
  });

  test("Bash: run_in_background launches nothing itself: it answers with 2.1.328's launch text, creates the output file and hands the workflow the launch", async () => {
    const out = await s.run('Bash', {
      command: 'echo hi',
      description: 'Say hi',
      run_in_background: true,
      timeout: 900_000,
    });
    expect(out.outcome).toBe('ok');
    const m =
      /^Command running in background with ID: (b[0-9a-z]{8})\. Output is being written to: (\S+)\. You will be notified when it completes\. To check interim output, use Read on that file path\.$/.exec(
        text(out),
      );
    expect(m).not.toBeNull();
    expect(m![2]).toMatch(new RegExp(`/tasks/${m![1]}\\.output$`));
    expect(readFileSync(m![2]!, 'utf8')).toBe('');
    expect(out.structured).toEqual({
      stdout: '',
      stderr: '',
      interrupted: false,
      isImage: false,
      noOutputExpected: false,
      backgroundTaskId: m![1],
    });
  });

  test('Bash: a foreground timeout above 600000 ms is refused; in the background up to 7200000 ms is accepted', async () => {
    const fg = await s.run('Bash', { command: 'echo hi', timeout: 900_000 });
    expect(fg.outcome).toBe('invalid');
    expect(text(fg)).toContain('timeout');
    const bg = await s.run('Bash', { command: 'echo hi', timeout: 7_200_001, run_in_background: true });
    expect(bg.outcome).toBe('invalid');
  });

  test('Bash: BASH_ENV, ENV, SHELLOPTS, BASHOPTS, CDPATH and PS4 of its environment do not steer the shell (as in Claude Code)', async () => {
    await s.write('evil.sh', 'echo SOURCED; touch sourced.txt\n');
    await s.write('away/sub/.keep', '');
    s.ctx.env = {
      ...process.env,
      BASH_ENV: s.p('evil.sh'),
      ENV: s.p('evil.sh'),
      SHELLOPTS: 'xtrace',
      CDPATH: s.p('away'),
      PS4: '$(touch ps4.txt)',
      FOO: 'kept',
    };
    const out = await s.run('Bash', { command: 'cd sub 2>/dev/null || echo no-sub; echo "FOO=$FOO"; set -x; true' });
    expect(text(out)).toBe('no-sub\nFOO=kept\n+ true');
    expect(existsSync(s.p('sourced.txt'))).toBe(false);
    expect(existsSync(s.p('ps4.txt'))).toBe(false);
  });
  test('Bash: timeouts are worded as Claude Code words them', () => {
    expect([500, 1000, 1500, 60_000, 150_000].map(formatTimeout)).toEqual(['500ms', '1s', '1.5s', '1m', '2m 30s']);
  });

  test('Bash: timeout above 600000 ms is invalid input', async () => {
    const out = await s.run('Bash', { command: 'echo hi', timeout: 600_001 });
    expect(out.outcome).toBe('invalid');
  });
});

describe('Bash settings from config', () => {
  test('Bash: tools.bashOutputLimitChars from config caps the output', async () => {
    const { BashTool } = await import('../../../../src/activities/tools/bash');
    const ctx = {
      cwd: process.cwd(),
      signal: new AbortController().signal,
      readState: () => undefined,
      heartbeat: () => undefined,
      settings: { bashOutputLimitChars: 100 },
    };
    const out = await BashTool.run({ command: "head -c 5000 /dev/zero | tr '\\0' a" } as never, ctx);
    expect(typeof out.content === 'string' && out.content.length).toBeLessThan(400);
  });
});

describe('Bash working directory between calls', () => {
  test('Bash: cd carries over: the output says where the shell is left, relative to cwd', async () => {
    await s.write('sub/deeper/f.txt', 'x');
    const first = await s.run('Bash', { command: 'cd sub && pwd' });
    expect(text(first)).toBe(`${s.dir}/sub`);
    expect(first.shellCwd).toBe('sub');
    const again = await s.run('Bash', { command: 'pwd' });
    expect(again.shellCwd).toBe(''); // a fresh context without shellCwd starts in cwd
    s.ctx.shellCwd = s.p('sub');
    const second = await s.run('Bash', { command: 'pwd; cd deeper; false' });
    expect(text(second)).toBe(`Exit code 1\n${s.dir}/sub`);
    expect(second.shellCwd).toBe('sub/deeper'); // a failing command still moves the shell
  });

  test('Bash: leaving the working directory resets the shell to it, with Claude Code note', async () => {
    const out = await s.run('Bash', { command: 'cd / && pwd' });
    expect(text(out)).toBe(`/\nShell cwd was reset to ${s.dir}`);
    expect(out.structured).toMatchObject({ stdout: '/', stderr: `\nShell cwd was reset to ${s.dir}` });
    expect(out.shellCwd).toBe('');
    const quiet = await s.run('Bash', { command: 'cd ..' });
    expect(text(quiet)).toBe(`Shell cwd was reset to ${s.dir}`);
  });

  test('Bash: a remembered directory that is gone: the command runs in cwd and says the shell was reset', async () => {
    s.ctx.shellCwd = s.p('removed');
    const out = await s.run('Bash', { command: 'pwd' });
    expect(text(out)).toBe(`${s.dir}\nShell cwd was reset to ${s.dir}`);
    expect(out.shellCwd).toBe('');
  });
});

describe('Bash wrapper against the shell state a command changes', () => {
  // The command runs in the shell that runs the wrapper's EXIT trap. Whatever it assigns or
  // defines, the trap writes only its own file, and the directory still carries over.
  const hostile: ReadonlyArray<readonly [string, (victim: string) => string]> = [
    ['the runner variable, bare', (v) => `AGENT_RUNNER_CWD_FILE=${v}`],
    ['the runner variable, exported', (v) => `export AGENT_RUNNER_CWD_FILE=${v}`],
    [
      'functions named pwd, builtin and command',
      () => 'pwd() { echo /; }; builtin() { echo /; }; command() { echo /; }',
    ],
    ['PATH, IFS, noglob and noclobber', () => 'PATH=/nonexistent; IFS=/; set -f -C'],
    [
      'functions named after the pwd program, and unset',
      () => '/bin/pwd() { echo /; }; /usr/bin/pwd() { echo /; }; unset() { echo /; }',
    ],
    ['aliases expanded', () => 'shopt -s expand_aliases; alias pwd="echo /"; alias builtin="echo /"'],
    ['the builtin pwd disabled', () => 'enable -n pwd'],
    [
      'HOME, CDPATH, BASH_ENV, ENV, PROMPT_COMMAND',
      (v) => `HOME=/; CDPATH=/; BASH_ENV=${v}; ENV=${v}; PROMPT_COMMAND="echo x >${v}"`,
    ],
    ['SHELLOPTS, GLOBIGNORE and POSIX mode', () => 'GLOBIGNORE="*"; set -o posix; POSIXLY_CORRECT=1'],
  ];

  test.each(hostile)('Bash: %s cannot move the wrapper write, and cd still carries over', async (_what, setup) => {
    await s.write('sub/f.txt', 'x');
    const inside = await s.write('victim.txt', 'keep');
    const outsideDir = mkdtempSync(join(tmpdir(), 'bash-victim-'));
    const outside = join(outsideDir, 'victim.txt');
    writeFileSync(outside, 'keep');
    try {
      for (const victim of [inside, outside]) {
        const out = await s.run('Bash', { command: `${setup(victim)}; cd sub; echo done` });
        expect({ output: text(out), shellCwd: out.shellCwd }).toEqual({ output: 'done', shellCwd: 'sub' });
        expect(readFileSync(victim, 'utf8')).toBe('keep');
      }
    } finally {
      rmSync(outsideDir, { recursive: true, force: true });
    }
  });

  test('Bash: a command that makes the trap impossible loses only the directory tracking', async () => {
    await s.write('sub/f.txt', 'x');
    s.ctx.shellCwd = s.p('sub');
    const out = await s.run('Bash', { command: 'readonly POSIXLY_CORRECT; cd ..; echo done; exit 3' });
    expect({ output: text(out), shellCwd: out.shellCwd }).toEqual({ output: 'Exit code 3\ndone', shellCwd: undefined });
  });

  test('Bash: the runner passes no variable of its own to the command', async () => {
    const out = await s.run('Bash', { command: 'env | grep -c "^AGENT_RUNNER_" || true' });
    expect(text(out)).toBe('0');
  });
});
