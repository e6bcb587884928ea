import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeModelServer } from '../../src/fake-model';
import type { FakeModelServer } from '../../src/fake-model';
import { makeRepo } from '../helpers/runner-env';
import { BIN } from '../helpers/cli';

/** `agent-runner -p` with its own embedded server: a signal mid-turn must end it cleanly. */
describe('agent-runner -p and signals (embedded server)', () => {
  let fake: FakeModelServer;
  afterEach(async () => fake?.close());

  test.each(['SIGINT', 'SIGTERM'] as const)(
    'signals: %s mid-tool interrupts the turn; the result prints and the process exits 1',
    async (signal) => {
      const slow = { content: [{ tool_use: { name: 'Bash', input: { command: 'touch started; sleep 20' } } }] };
      fake = await startFakeModelServer({ scenario: { steps: [slow, slow, { content: [{ text: 'never' }] }] } });
      const repo = makeRepo({});
      const env: NodeJS.ProcessEnv = { ...process.env, ANTHROPIC_BASE_URL: fake.baseUrl, ANTHROPIC_API_KEY: 'test' };
      delete env['TEMPORAL_ADDRESS'];
      env['AGENT_RUNNER_DATA_DIR'] = mkdtempSync(join(tmpdir(), 'dar-sig-'));
      env['AGENT_RUNNER_NO_DAEMON'] = '1'; // this test is about the private embedded server
      const child = spawn(
        process.execPath,
        [BIN, '-p', 'run it', '--cwd', repo, '--output-format', 'stream-json', '--dangerously-skip-permissions'],
        { env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const deadline = Date.now() + 60_000;
      while (!existsSync(join(repo, 'started'))) {
        if (Date.now() > deadline) throw new Error(`the tool never started:\n${stderr}`);
        await sleep(100);
      }
      const signalled = Date.now();
      child.kill(signal);
      const code = await Promise.race([exited, sleep(30_000).then(() => 'hung' as const)]);
      if (code === 'hung') child.kill('SIGKILL');
      expect(code).toBe(1);
      expect(Date.now() - signalled).toBeLessThan(20_000);
      const lines = stdout.trim().split('\n');
      for (const l of lines) expect(() => JSON.parse(l)).not.toThrow(); // stdout is pure JSON
      const result = JSON.parse(lines.at(-1) ?? '{}');
      expect(result).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true });
      expect(result.errors[0]).toContain('[interrupted]');
    },
    90_000,
  );

  test.each(['SIGINT', 'SIGTERM'] as const)(
    'signals: %s while --input-format stream-json waits for its next message ends the run at once (exit 130 / 143), the finished turn printed',
    async (signal) => {
      fake = await startFakeModelServer({ scenario: { steps: [{ content: [{ text: 'first answer' }] }] } });
      const env: NodeJS.ProcessEnv = { ...process.env, ANTHROPIC_BASE_URL: fake.baseUrl, ANTHROPIC_API_KEY: 'test' };
      delete env['TEMPORAL_ADDRESS'];
      env['AGENT_RUNNER_DATA_DIR'] = mkdtempSync(join(tmpdir(), 'dar-sig-'));
      env['AGENT_RUNNER_NO_DAEMON'] = '1';
      const child = spawn(
        process.execPath,
        [
          BIN,
          '-p',
          '--cwd',
          makeRepo({}),
          '--input-format',
          'stream-json',
          '--output-format',
          'stream-json',
          '--verbose',
        ],
        { env, stdio: ['pipe', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.stdin.write(`${JSON.stringify({ type: 'user', message: { role: 'user', content: 'hello' } })}\n`);
      // stdin stays open: the run waits for the next message once the first turn has its result.
      const deadline = Date.now() + 60_000;
      while (!stdout.includes('"type":"result"')) {
        if (Date.now() > deadline) throw new Error(`no result:\n${stderr}`);
        await sleep(100);
      }
      await sleep(300);
      const signalled = Date.now();
      child.kill(signal);
      const code = await Promise.race([exited, sleep(20_000).then(() => 'hung' as const)]);
      if (code === 'hung') child.kill('SIGKILL');
      expect(code).toBe(signal === 'SIGINT' ? 130 : 143);
      expect(Date.now() - signalled).toBeLessThan(15_000);
      const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
      expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'first answer' });
    },
    90_000,
  );
});
