import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runShell } from '../../../../src/activities/background/run-shell';
import { shellLaunchedText, shellNoteText, shellSummaryText } from '../../../../src/activities/background/texts';
import { isProcessAlive } from '../../../helpers/processes';

function setup(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'bg-shell-'));
  const file = join(dir, 'task.output');
  writeFileSync(file, '');
  return { dir, file };
}

function ctx(): {
  heartbeat: (d?: unknown) => void;
  cancellationSignal: AbortSignal;
  abort: AbortController;
  beats: () => number;
} {
  const abort = new AbortController();
  let n = 0;
  return {
    heartbeat: () => {
      n++;
    },
    cancellationSignal: abort.signal,
    abort,
    beats: () => n,
  };
}

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('runShell (a background command run to its end)', () => {
  test("runShell: stdout and stderr go to the output file in order, then 2.1.328's trailer; it heartbeats while it runs", async () => {
    const { dir, file } = setup();
    const c = ctx();
    const r = await runShell(
      'echo one; echo two >&2; sleep 1.2; echo three',
      { cwd: dir, outputFile: file, timeoutMs: 10_000 },
      c,
    );
    expect(r).toEqual({ end: { kind: 'exited', exitCode: 0 }, outputBytes: 14 });
    expect(readFileSync(file, 'utf8')).toBe('one\ntwo\nthree\n\n[exited with code 0]\n');
    expect(c.beats()).toBeGreaterThanOrEqual(2);
  });

  test('runShell: the exit code is kept; output is readable while the command runs', async () => {
    const { dir, file } = setup();
    const p = runShell(
      'echo line1; sleep 1; echo line2; exit 3',
      { cwd: dir, outputFile: file, timeoutMs: 10_000 },
      ctx(),
    );
    await until(() => readFileSync(file, 'utf8') === 'line1\n');
    expect((await p).end).toEqual({ kind: 'exited', exitCode: 3 });
    expect(readFileSync(file, 'utf8')).toBe('line1\nline2\n\n[exited with code 3]\n');
  });

  test('runShell: at its timeout the whole process group is killed and the file ends [killed]', async () => {
    const { dir, file } = setup();
    const pidFile = join(dir, 'pid');
    const t0 = Date.now();
    const r = await runShell(
      `sleep 30 & echo $! > ${pidFile}; echo started; wait`,
      { cwd: dir, outputFile: file, timeoutMs: 500 },
      ctx(),
    );
    expect(r.end).toEqual({ kind: 'timeout' });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(readFileSync(file, 'utf8')).toBe('started\n\n[killed]\n');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await until(() => !isProcessAlive(pid));
  });

  test('runShell: a cancellation (TaskStop) kills the group: the end is stopped', async () => {
    const { dir, file } = setup();
    const c = ctx();
    const p = runShell('echo up; sleep 30', { cwd: dir, outputFile: file, timeoutMs: 60_000 }, c);
    await until(() => readFileSync(file, 'utf8') === 'up\n');
    c.abort.abort();
    expect((await p).end).toEqual({ kind: 'stopped' });
    expect(readFileSync(file, 'utf8')).toBe('up\n\n[killed]\n');
  });
});

describe("background command texts (2.1.328's, and ours for a lost run)", () => {
  test('texts: launch, summaries and notes', () => {
    expect(shellLaunchedText('b12345678', '/t/tasks/b12345678.output')).toBe(
      'Command running in background with ID: b12345678. Output is being written to: /t/tasks/b12345678.output. You will be notified when it completes. To check interim output, use Read on that file path.',
    );
    expect(shellSummaryText('Build', { kind: 'exited', exitCode: 0 })).toBe(
      'Background command "Build" completed (exit code 0)',
    );
    expect(shellSummaryText('Fail', { kind: 'exited', exitCode: 3 })).toBe(
      'Background command "Fail" failed with exit code 3',
    );
    expect(shellSummaryText('Wait', { kind: 'timeout' })).toBe(
      'Background command "Wait" was stopped after reaching its background time limit',
    );
    expect(shellSummaryText('Long', { kind: 'lost', reason: 'its host was lost' })).toBe(
      'Background command "Long" has an unknown outcome: its host was lost',
    );
    expect(shellNoteText({ kind: 'timeout' })).toBe(
      'If the work in progress still needs it, start it again with `run_in_background` and a longer `timeout`. If it already had the longest `timeout` allowed, do not restart it. Either way, report that it was stopped.',
    );
    expect(shellNoteText({ kind: 'exited', exitCode: 0 })).toBeUndefined();
    expect(shellNoteText({ kind: 'lost', reason: 'x' })).toMatch(/^The command was not run again/);
  });
});

describe('runShell as a monitor (stdout lines are events)', () => {
  test('each batch of stdout lines is handed over in order while the command runs; stderr goes to the file only; the end waits for the last event', async () => {
    const { dir, file } = setup();
    const events: Array<{ text: string; at: number }> = [];
    const t0 = Date.now();
    const r = await runShell(
      'echo one; echo two; echo oops >&2; sleep 0.6; echo three; printf last',
      { cwd: dir, outputFile: file, timeoutMs: 10_000 },
      ctx(),
      {
        event: async (text) => {
          await new Promise((res) => setTimeout(res, 50)); // a slow delivery still keeps the order
          events.push({ text, at: Date.now() - t0 });
        },
      },
    );
    expect(events.map((e) => e.text)).toEqual(['one\ntwo', 'three\nlast']);
    // The first batch arrived while the command was still running.
    expect(events[0]!.at).toBeLessThan(600);
    expect(r).toMatchObject({
      end: { kind: 'exited', exitCode: 0 },
      monitor: { events: 2, wroteStderr: true, hadOutput: true },
    });
    expect(readFileSync(file, 'utf8')).toContain('oops');
    expect(readFileSync(file, 'utf8').endsWith('\n[exited with code 0]\n')).toBe(true);
  });

  test('a monitor past its time limit still hands over the lines it printed; a stopped one hands over nothing more', async () => {
    const expired: string[] = [];
    const a = setup();
    const r = await runShell('echo early; sleep 5', { cwd: a.dir, outputFile: a.file, timeoutMs: 100 }, ctx(), {
      event: (text) => Promise.resolve(void expired.push(text)),
    });
    expect(r).toMatchObject({ end: { kind: 'timeout' }, monitor: { events: 1 } });
    expect(expired).toEqual(['early']);
    const stopped: string[] = [];
    const b = setup();
    const c = ctx();
    setTimeout(() => c.abort.abort(), 100);
    const s = await runShell('echo early; sleep 5', { cwd: b.dir, outputFile: b.file, timeoutMs: 10_000 }, c, {
      event: (text) => Promise.resolve(void stopped.push(text)),
    });
    expect(s).toMatchObject({ end: { kind: 'stopped' }, monitor: { events: 0, hadOutput: true } });
    expect(stopped).toEqual([]);
  });
});
