/**
 * A client that outlives its server or its own process: `-p` waits through a Temporal outage
 * (and restarts a background server that died), gives up after `temporal.outageTimeoutMs` with a
 * way back, and `attach` re-attaches any client to a running or finished turn.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModelServer, type FakeModelServer } from '../../src/fake-model';
import { readServerState } from '../../src/host/server-state';
import { SEARCH_ATTRIBUTES } from '../../src/common/search-attributes';
import { findTemporalCli, startDevServer, type DevServer } from '../../src/host/dev-server';
import { BIN, runCli, type CliRun } from '../helpers/cli';
import { makeRepo, startRunnerEnv, type RunnerEnv } from '../helpers/runner-env';
import { installRuntimeLogging } from '../../src/worker/logging';
import { waitUntil } from '../helpers/processes';

installRuntimeLogging('ERROR');
jest.setTimeout(600_000);

/** Starts the CLI without waiting; `done` resolves with its outcome. */
function startCli(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [BIN, ...args], { env, cwd: tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  /** When each stderr chunk came (epoch ms). */
  const stderrAt: number[] = [];
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    stderrAt.push(Date.now());
  });
  const done = new Promise<CliRun>((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
  return { child, done, stderr: () => stderr, stderrAt };
}

/** A model that runs `touch started; sleep N` in Bash, then answers `text`. */
function slowToolModel(seconds: number, text: string): Promise<FakeModelServer> {
  return startFakeModelServer({
    responder: (req) => {
      const calls = req.messages.filter((m) => m.role === 'assistant').length;
      if (calls === 0) {
        return { content: [{ tool_use: { name: 'Bash', input: { command: `touch started && sleep ${seconds}` } } }] };
      }
      return { content: [{ text }] };
    },
  });
}

describe('client through outages, and attach', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const f of cleanup.reverse()) await f();
  });

  function daemonEnv(fake: FakeModelServer): NodeJS.ProcessEnv {
    const dataDir = mkdtempSync(join(tmpdir(), 'dar-outage-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      AGENT_RUNNER_DATA_DIR: dataDir,
      ANTHROPIC_BASE_URL: fake.baseUrl,
      ANTHROPIC_API_KEY: 'k',
    };
    for (const k of ['TEMPORAL_ADDRESS', 'AGENT_RUNNER_CONFIG', 'AGENT_RUNNER_NO_DAEMON', 'NODE_OPTIONS'])
      delete env[k];
    cleanup.push(async () => {
      await runCli(['server', 'stop'], { env, cwd: tmpdir() });
      rmSync(dataDir, { recursive: true, force: true });
    });
    return env;
  }

  test('outage: kill -9 of the background server mid-turn; -p says so, restarts it, and prints the result', async () => {
    const fake = await slowToolModel(3, 'done after the outage');
    cleanup.push(() => fake.close());
    const env = daemonEnv(fake);
    const repo = makeRepo({});
    const run = startCli(['-p', 'go', '--cwd', repo, '--output-format', 'json', '--dangerously-skip-permissions'], env);
    expect(await waitUntil(() => existsSync(join(repo, 'started')), 120_000)).toBe(true);
    const state = readServerState(env['AGENT_RUNNER_DATA_DIR'] as string);
    if (!state?.ownerPid) throw new Error('no background server recorded');
    process.kill(state.ownerPid, 'SIGKILL');
    const killed = Date.now();
    const r = await run.done;
    const ended = Date.now();
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: 'success', result: 'done after the outage' });
    expect(r.stderr).toContain('Temporal is unreachable');
    expect(r.stderr).toContain('Temporal is back after');
    const times = [killed, ...run.stderrAt.filter((t) => t >= killed), ended];
    const longestSilence = Math.max(...times.slice(1).map((t, i) => t - (times[i] as number)));
    console.log(
      `kill -9 of the background server: result after ${Math.round((ended - killed) / 1000)} s, longest silence ${Math.round(longestSilence / 1000)} s (stderr at ${times.map((t) => Math.round((t - killed) / 100) / 10).join(', ')} s)\n${r.stderr}`,
    );
    // The recovery that follows (the dead worker's Bash waits for its heartbeat timeout, then
    // for a worker) is said as it goes, and never leaves stderr silent for long.
    expect(longestSilence).toBeLessThan(20_000);
    const after = readServerState(env['AGENT_RUNNER_DATA_DIR'] as string);
    expect(after?.ownerPid).not.toBe(state.ownerPid);
    expect(after?.address).toBe(state.address);
  });

  test('attach: a client killed mid-turn; attach prints the running turn as it finishes, then again once finished', async () => {
    const fake = await slowToolModel(3, 'finished without its client');
    cleanup.push(() => fake.close());
    const env = daemonEnv(fake);
    const repo = makeRepo({});
    const sessionId = randomUUID();
    const run = startCli(
      [
        '-p',
        'go',
        '--cwd',
        repo,
        '--session-id',
        sessionId,
        '--output-format',
        'json',
        '--dangerously-skip-permissions',
      ],
      env,
    );
    expect(await waitUntil(() => existsSync(join(repo, 'started')), 120_000)).toBe(true);
    run.child.kill('SIGKILL');
    await run.done;

    const live = await runCli(['attach', sessionId, '--output-format', 'stream-json'], { env, cwd: tmpdir() });
    expect(live.code).toBe(0);
    const messages = live.stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            type: string;
            subtype?: string;
            message?: { content?: Array<{ type: string; name?: string }> };
          } & Record<string, unknown>,
      )
      // A foreground command of 3 s or more is also a task in 2.1.328's stream (task_started,
      // task_updated…): those depend on the tool's duration, not on attach.
      .filter((m) => !(m.type === 'system' && /^(task_|background_tasks_changed)/.test(m.subtype ?? '')));
    // As `-p` streamed it: `system/init` first, with what the turn runs with (its cwd, not attach's).
    expect(messages.map((m) => m.type)).toEqual(['system', 'assistant', 'user', 'assistant', 'result']);
    expect(messages[0]).toMatchObject({
      subtype: 'init',
      session_id: sessionId,
      cwd: repo,
      permissionMode: 'bypassPermissions',
      // The built-in and web tools, as `-p`'s init lists them (the web ones deferred, as in Claude Code).
      tools: ['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep', 'WebSearch', 'WebFetch'],
    });
    expect(messages[1]?.message?.content?.[0]).toMatchObject({ type: 'tool_use', name: 'Bash' });
    expect(messages.at(-1)).toMatchObject({ subtype: 'success', result: 'finished without its client' });

    const again = await runCli(['attach', sessionId, '--output-format', 'json'], { env, cwd: tmpdir() });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ session_id: sessionId, result: 'finished without its client' });
    const text = await runCli(['attach', sessionId], { env, cwd: tmpdir() });
    expect(text.stdout.trim()).toBe('finished without its client');

    // An unknown session: the exit code and message of `status` (1, docs/limits.md).
    const id = randomUUID();
    const unknown = await runCli(['attach', id], { env, cwd: tmpdir() });
    const status = await runCli(['status', id], { env, cwd: tmpdir() });
    expect([unknown.code, status.code]).toEqual([1, 1]);
    expect(unknown.stderr).toBe(status.stderr);
    expect(unknown.stderr).toContain(`no session ${id}`);
  });

  describe('with a configured server that goes away', () => {
    let server: DevServer | undefined;
    let env: RunnerEnv | undefined;
    afterEach(async () => {
      await env?.close();
      await server?.stop();
    });

    test('outage: past temporal.outageTimeoutMs, -p gives up (exit 1) naming the wait and how to re-attach', async () => {
      server = await startDevServer({
        cliPath: findTemporalCli(),
        dataDir: mkdtempSync(join(tmpdir(), 'dar-outage-srv-')),
        dbFilename: null,
        searchAttributes: { ...SEARCH_ATTRIBUTES },
        logLevel: 'error',
      });
      const shared = process.env['TEST_TEMPORAL_ADDRESS'];
      process.env['TEST_TEMPORAL_ADDRESS'] = server.address;
      try {
        env = await startRunnerEnv({
          responder: () => ({
            content: [{ tool_use: { name: 'Bash', input: { command: 'touch started && sleep 30' } } }],
          }),
        });
      } finally {
        process.env['TEST_TEMPORAL_ADDRESS'] = shared;
      }
      const config = join(env.dataDir, 'short-outage.yaml');
      writeFileSync(config, 'temporal:\n  outageTimeoutMs: 3000\n');
      const repo = makeRepo({});
      const sessionId = randomUUID();
      const run = startCli(
        [
          '-p',
          'go',
          '--cwd',
          repo,
          '--session-id',
          sessionId,
          '--output-format',
          'json',
          '--dangerously-skip-permissions',
          '--config',
          config,
        ],
        { ...env.workerEnv, TEMPORAL_ADDRESS: server.address },
      );
      expect(await waitUntil(() => existsSync(join(repo, 'started')), 120_000)).toBe(true);
      process.kill(server.pid, 'SIGKILL');
      const started = Date.now();
      const r = await run.done;
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('Temporal is unreachable');
      expect(r.stderr).toMatch(/Temporal was unreachable for \d+ s \(temporal\.outageTimeoutMs 3000\)/);
      expect(r.stderr).toContain(`agent-runner attach ${sessionId}`);
      expect(Date.now() - started).toBeLessThan(90_000);
    });
  });
});
