/**
 * Spare client processes: a shared server keeps one client process loaded; a `-p` run hands
 * itself to it and behaves exactly as if it ran in its own process: arguments, cwd, environment,
 * stdin, stdout, stderr, exit code and signals are the caller's.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { utimesSync } from 'node:fs';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeModelServer, type FakeModelServer } from '../../src/fake-model';
import { readServerState } from '../../src/host/server-state';
import { BIN, runCli, startCli } from '../helpers/cli';
import { isProcessAlive, waitUntil } from '../helpers/processes';
import { makeRepo } from '../helpers/runner-env';

jest.setTimeout(600_000);

const SPARE_LINE = /running in spare client process (\d+)/;

describe('spare client processes', () => {
  let fake: FakeModelServer;
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let server: ReturnType<typeof spawn>;
  let lastRequest = '';
  beforeAll(async () => {
    fake = await startFakeModelServer({
      responder: (req, ctx) => {
        const text = JSON.stringify(req.messages);
        lastRequest = text;
        if (text.includes('read the file') && ctx.step === 0) {
          return { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/note.txt' } } }] };
        }
        if (text.includes('a long answer')) return { content: [{ text: 'x'.repeat(200_000) }] };
        if (text.includes('sleep a while') && ctx.step === 0) {
          return { content: [{ tool_use: { name: 'Bash', input: { command: 'touch started; sleep 20' } } }] };
        }
        return { content: [{ text: `answer to ${text.length} chars` }] };
      },
    });
    dataDir = mkdtempSync(join(tmpdir(), 'dar-spare-'));
    env = {
      ...process.env,
      AGENT_RUNNER_DATA_DIR: dataDir,
      ANTHROPIC_BASE_URL: fake.baseUrl,
      ANTHROPIC_API_KEY: 'k',
      AGENT_RUNNER_DEBUG: 'spare',
    };
    for (const k of ['TEMPORAL_ADDRESS', 'AGENT_RUNNER_CONFIG', 'AGENT_RUNNER_NO_DAEMON', 'NODE_OPTIONS'])
      delete env[k];
    // A foreground server: its spare starts at once.
    server = spawn(process.execPath, [BIN, 'server'], { env, stdio: 'ignore' });
    const ready = await waitUntil(
      () => readServerState(dataDir) !== null && existsSync(join(dataDir, 'client.sock')),
      120_000,
    );
    if (!ready) throw new Error('the server did not start');
    await untilSpare();
  });
  afterAll(async () => {
    server.kill('SIGTERM');
    await waitUntil(() => server.exitCode !== null, 30_000);
    rmSync(dataDir, { recursive: true, force: true });
    await fake.close();
  });

  /** Runs until one runs on a spare (a new spare loads for a while); its result. */
  const untilSpare = async (): Promise<Awaited<ReturnType<typeof p>>> => {
    for (let i = 0; ; i++) {
      const r = await p(['-p', 'wait for a spare'], tmpdir());
      if (SPARE_LINE.test(r.stderr) || i >= 60) return r;
      await sleep(500);
    }
  };

  const p = (args: string[], cwd: string, extra: { env?: NodeJS.ProcessEnv; input?: string } = {}) =>
    runCli([...args, '--output-format', 'json'], {
      env: extra.env ?? env,
      cwd,
      timeoutMs: 120_000,
      ...(extra.input !== undefined ? { input: extra.input } : {}),
    });

  test('spare clients: a run takes the spare, in the caller cwd, and the next run takes the same spare', async () => {
    const repo = makeRepo({ 'note.txt': 'the note\n' });
    const first = await p(['-p', 'read the file', '--allowedTools', 'Read'], repo);
    expect(first.code).toBe(0);
    const pid = Number(SPARE_LINE.exec(first.stderr)?.[1]);
    expect(pid).toBeGreaterThan(0);
    const result = JSON.parse(first.stdout) as { subtype: string; num_turns: number };
    expect(result).toMatchObject({ subtype: 'success', num_turns: 2 });
    // The Read ran in the caller's directory: the tool result holds the file's text.
    expect(lastRequest).toContain('the note');
    const second = await p(['-p', 'again'], repo);
    expect(second.code).toBe(0);
    expect(Number(SPARE_LINE.exec(second.stderr)?.[1])).toBe(pid);
    // Control commands run on it too.
    const sessionId = (JSON.parse(second.stdout) as { session_id: string }).session_id;
    const status = await runCli(['status', sessionId, '--json'], { env, cwd: repo });
    expect(status.code).toBe(0);
    expect(Number(SPARE_LINE.exec(status.stderr)?.[1])).toBe(pid);
    expect(JSON.parse(status.stdout)).toMatchObject({ session: { sessionId, turnCount: 1 } });
  });

  test("spare clients: the caller's environment, stdin and exit codes are the run's", async () => {
    // Environment: the model named by the caller's env.
    const model = await p(['-p', 'which model'], tmpdir(), { env: { ...env, AGENT_RUNNER_MODEL: 'claude-haiku-4-5' } });
    expect(model.stderr).toMatch(SPARE_LINE);
    expect(Object.keys((JSON.parse(model.stdout) as { modelUsage: object }).modelUsage)).toEqual(['claude-haiku-4-5']);
    // Stdin: the prompt piped in.
    const piped = await p(['-p'], tmpdir(), { input: 'a prompt from stdin' });
    expect(piped.code).toBe(0);
    expect(piped.stderr).toMatch(SPARE_LINE);
    expect(lastRequest).toContain('a prompt from stdin');
    // Stdin piped beside a prompt argument is appended to it, through the spare as in a process of its own.
    const appended = await p(['-p', 'summarize the log'], tmpdir(), { input: 'LOG: disk full' });
    expect(appended.code).toBe(0);
    expect(appended.stderr).toMatch(SPARE_LINE);
    // (the request as JSON text: the newline is escaped)
    expect(lastRequest).toContain('summarize the log\\nLOG: disk full');
    // A usage error: exit 2 and the message, as from a process of its own.
    const bad = await p(['-p', 'x', '--max-turns', 'many'], tmpdir());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-turns');
    // An error result: exit 1.
    const repo = makeRepo({ 'note.txt': 'n\n' });
    const limited = await p(['-p', 'read the file', '--allowedTools', 'Read', '--max-turns', '1'], repo);
    expect(limited.code).toBe(1);
    expect(JSON.parse(limited.stdout)).toMatchObject({ subtype: 'error_max_turns' });
  });

  test('spare clients: SIGINT reaches the run (the turn is interrupted, its result printed); kill -9 of the caller ends the spare, and the next run gets a new one', async () => {
    const repo = makeRepo({});
    const run = startCli(['-p', 'sleep a while', '--output-format', 'json', '--dangerously-skip-permissions'], {
      env,
      cwd: repo,
    });
    expect(await waitUntil(() => existsSync(join(repo, 'started')), 60_000)).toBe(true);
    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(1);
    expect(run.stderr()).toMatch(SPARE_LINE);
    const result = JSON.parse(run.stdout()) as { subtype: string; errors: string[] };
    expect(result.subtype).toBe('error_during_execution');
    expect(result.errors[0]).toContain('[interrupted]');

    // kill -9 of a caller mid-run: its spare goes with it; a new spare takes the next run.
    await untilSpare(); // the interrupted run's spare was replaced (a signal may leave anything behind)
    const repo2 = makeRepo({});
    const victim = startCli(['-p', 'sleep a while', '--dangerously-skip-permissions'], { env, cwd: repo2 });
    expect(await waitUntil(() => existsSync(join(repo2, 'started')), 60_000)).toBe(true);
    const spare = Number(SPARE_LINE.exec(victim.stderr())?.[1]);
    expect(isProcessAlive(spare)).toBe(true);
    victim.child.kill('SIGKILL');
    expect(await waitUntil(() => !isProcessAlive(spare), 10_000)).toBe(true);
    const next = await untilSpare();
    expect(next.code).toBe(0);
    expect(Number(SPARE_LINE.exec(next.stderr)?.[1])).not.toBe(spare);
  });

  test('spare clients: no spare for --no-daemon, and none when the server has none (spareClients: 0); both still run', async () => {
    const nd = await p(['-p', 'private', '--no-daemon'], tmpdir(), {
      env: { ...env, AGENT_RUNNER_DATA_DIR: mkdtempSync(join(tmpdir(), 'dar-spare-nd-')) },
    });
    expect(nd.code).toBe(0);
    expect(nd.stderr).not.toMatch(SPARE_LINE);
    const other = mkdtempSync(join(tmpdir(), 'dar-spare-none-'));
    const config = join(other, 'temporal.yaml');
    writeFileSync(config, `dataDir: ${other}\ndevServer:\n  spareClients: 0\n`);
    const otherEnv = { ...env, AGENT_RUNNER_DATA_DIR: other, AGENT_RUNNER_CONFIG: config };
    try {
      const r = await p(['-p', 'no spare here'], tmpdir(), { env: otherEnv });
      expect(r.code).toBe(0);
      const again = await p(['-p', 'still none'], tmpdir(), { env: otherEnv });
      expect(again.code).toBe(0);
      expect(again.stderr).not.toMatch(SPARE_LINE);
      expect(existsSync(join(other, 'client.sock'))).toBe(false);
    } finally {
      await runCli(['server', 'stop'], { env: otherEnv, cwd: tmpdir() });
      rmSync(other, { recursive: true, force: true });
    }
  });

  test('spare clients: output over a pipe buffer (64 KiB) arrives whole, on a spare and in a process of its own', async () => {
    const onSpare = await p(['-p', 'a long answer'], tmpdir());
    expect(onSpare.stderr).toMatch(SPARE_LINE);
    expect((JSON.parse(onSpare.stdout) as { result: string }).result).toHaveLength(200_000);
    const own = await p(['-p', 'a long answer'], tmpdir(), {
      env: {
        ...env,
        AGENT_RUNNER_NO_DAEMON: '1',
        AGENT_RUNNER_DATA_DIR: mkdtempSync(join(tmpdir(), 'dar-spare-own-')),
      },
    });
    expect(own.stderr).not.toMatch(SPARE_LINE);
    expect((JSON.parse(own.stdout) as { result: string }).result).toHaveLength(200_000);
  });

  test('spare clients: a connection that never sends its whole header does not hold the spare; SIGHUP with no handler ends the caller by SIGHUP, as in its own process', async () => {
    await untilSpare();
    await new Promise<void>((resolve) => {
      const s = connect(join(dataDir, 'client.sock'), () => s.end('{"t":"run","v":1'));
      s.on('close', () => resolve());
      s.on('error', () => resolve());
    });
    const next = await untilSpare();
    expect(next.stderr).toMatch(SPARE_LINE);

    const repo = makeRepo({});
    const run = startCli(['-p', 'sleep a while', '--dangerously-skip-permissions'], { env, cwd: repo });
    expect(await waitUntil(() => existsSync(join(repo, 'started')), 60_000)).toBe(true);
    expect(run.stderr()).toMatch(SPARE_LINE);
    run.child.kill('SIGHUP');
    expect((await run.exited).signal).toBe('SIGHUP');
  });

  test('spare clients: after a rebuild (the installed code changed), a spare declines and is replaced by one with the new code', async () => {
    const before = Number(SPARE_LINE.exec((await untilSpare()).stderr)?.[1]);
    const file = join(__dirname, '..', '..', 'dist', 'src', 'cli', 'output.js');
    const now = new Date();
    utimesSync(file, now, now);
    const declined = await p(['-p', 'after the rebuild'], tmpdir());
    expect(declined.code).toBe(0);
    expect(declined.stderr).not.toMatch(SPARE_LINE);
    expect(await waitUntil(() => !isProcessAlive(before), 10_000)).toBe(true);
    const after = await untilSpare();
    expect(Number(SPARE_LINE.exec(after.stderr)?.[1])).not.toBe(before);
  });
});
