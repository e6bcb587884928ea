import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeModelServer } from '../../src/fake-model';
import type { FakeModelServer, FakeModelServerOptions } from '../../src/fake-model';
import { makeRepo } from '../helpers/runner-env';
import { startCli, type StartedCli } from '../helpers/cli';

/** The exit code, or 'hung' (the process is then killed) when it has not exited within 20 s. */
async function exitCode(run: StartedCli): Promise<number | null | 'hung'> {
  const r = await Promise.race([run.exited, sleep(20_000).then(() => 'hung' as const)]);
  if (r === 'hung') run.child.kill('SIGKILL');
  return r === 'hung' ? r : r.code;
}

/** Polls until `cond` holds; throws with the run's stderr after 60 s. */
async function until(cond: () => boolean, run: StartedCli, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`${what}:\n${run.stderr()}`);
    await sleep(100);
  }
}

/** `agent-runner -p` with its own embedded server: a signal must end it cleanly. */
describe('agent-runner -p and signals (embedded server)', () => {
  let fake: FakeModelServer;
  afterEach(async () => fake?.close());

  /** A fake model with `scenario`, and the environment of a run with its private embedded server. */
  async function setup(scenario: NonNullable<FakeModelServerOptions['scenario']>): Promise<NodeJS.ProcessEnv> {
    fake = await startFakeModelServer({ scenario });
    const env: NodeJS.ProcessEnv = { ...process.env, ANTHROPIC_BASE_URL: fake.baseUrl, ANTHROPIC_API_KEY: 'test' };
    delete env['TEMPORAL_ADDRESS'];
    env['AGENT_RUNNER_DATA_DIR'] = mkdtempSync(join(tmpdir(), 'dar-sig-'));
    env['AGENT_RUNNER_NO_DAEMON'] = '1'; // these tests are about the private embedded server
    return env;
  }

  test.each(['SIGINT', 'SIGTERM'] as const)(
    'signals: %s mid-tool interrupts the turn; the result prints and the process exits 1',
    async (signal) => {
      const slow = { content: [{ tool_use: { name: 'Bash', input: { command: 'touch started; sleep 20' } } }] };
      const env = await setup({ steps: [slow, slow, { content: [{ text: 'never' }] }] });
      const repo = makeRepo({});
      const run = startCli(
        ['-p', 'run it', '--cwd', repo, '--output-format', 'stream-json', '--dangerously-skip-permissions'],
        { env },
      );
      await until(() => existsSync(join(repo, 'started')), run, 'the tool never started');
      const signalled = Date.now();
      run.child.kill(signal);
      expect(await exitCode(run)).toBe(1);
      expect(Date.now() - signalled).toBeLessThan(20_000);
      const lines = run.stdout().trim().split('\n');
      for (const l of lines) expect(() => JSON.parse(l)).not.toThrow(); // stdout is pure JSON
      const result = JSON.parse(lines.at(-1) ?? '{}');
      expect(result).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true });
      expect(result.errors[0]).toContain('[interrupted]');
    },
    90_000,
  );

  test('signals: SIGINT while -p waits for a background command stops the command; no notification turn runs; the json result is an error (the work is lost); exit 130', async () => {
    const bg = {
      content: [
        {
          tool_use: {
            name: 'Bash',
            input: { command: 'while true; do echo t >> ticks; sleep 0.3; done', run_in_background: true },
          },
        },
      ],
    };
    const env = await setup({ steps: [bg, { content: [{ text: 'it runs' }] }, { content: [{ text: 'never' }] }] });
    const repo = makeRepo({});
    const run = startCli(['-p', 'run it', '--cwd', repo, '--output-format', 'json', '--dangerously-skip-permissions'], {
      env,
    });
    await until(() => existsSync(join(repo, 'ticks')) && fake.requests().length >= 2, run, 'the command never started');
    await sleep(1000);
    run.child.kill('SIGINT');
    expect(await exitCode(run)).toBe(130);
    expect(run.stderr()).toContain("SIGINT: stopping the session's background tasks");
    // A background command does not hold the turn's result (2.1.328); -p still waits for it, and
    // the one JSON result it prints says the work was stopped.
    const held = JSON.parse(run.stdout().trim() || '{}');
    expect(held).toMatchObject({
      type: 'result',
      result: 'it runs',
      subtype: 'error_during_execution',
      is_error: true,
      terminal_reason: 'aborted_tasks',
    });
    expect(held.errors.at(-1)).toContain("SIGINT stopped the session's background tasks before they finished");
    const size = readFileSync(join(repo, 'ticks'), 'utf8').length;
    await sleep(1500);
    expect(readFileSync(join(repo, 'ticks'), 'utf8').length).toBe(size);
    expect(fake.requests()).toHaveLength(2);
  }, 90_000);

  test.each(['SIGINT', 'SIGTERM'] as const)(
    'signals: %s while --input-format stream-json waits for its next message ends the run at once (exit 130 / 143), the finished turn printed',
    async (signal) => {
      const env = await setup({ steps: [{ content: [{ text: 'first answer' }] }] });
      const run = startCli(
        ['-p', '--cwd', makeRepo({}), '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'],
        { env, stdin: 'pipe' },
      );
      run.child.stdin?.write(`${JSON.stringify({ type: 'user', message: { role: 'user', content: 'hello' } })}\n`);
      // stdin stays open: the run waits for the next message once the first turn has its result.
      await until(() => run.stdout().includes('"type":"result"'), run, 'no result');
      await sleep(300);
      const signalled = Date.now();
      run.child.kill(signal);
      expect(await exitCode(run)).toBe(signal === 'SIGINT' ? 130 : 143);
      expect(Date.now() - signalled).toBeLessThan(15_000);
      const result = JSON.parse(run.stdout().trim().split('\n').at(-1) ?? '{}');
      expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'first answer' });
    },
    90_000,
  );
});
