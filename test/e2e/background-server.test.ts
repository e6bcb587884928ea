/**
 * The shared background server: the first `-p` that finds no server starts one (dev server +
 * worker, detached); later and parallel runs use it; `server status|stop` manage it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModelServer, type FakeModelServer } from '../../src/fake-model';
import { readServerState } from '../../src/host/server-state';
import { runCli } from '../helpers/cli';
import { isProcessAlive, waitUntil } from '../helpers/processes';

jest.setTimeout(600_000);

/** Live `temporal server start-dev` processes on the data directory's database. */
function devServersOn(dataDir: string): number[] {
  const out = spawnSync('pgrep', ['-f', `start-dev.*--db-filename ${join(dataDir, 'temporal.db')}`], {
    encoding: 'utf8',
  }).stdout;
  return out.split('\n').filter(Boolean).map(Number).filter(isProcessAlive);
}

describe('background server', () => {
  let fake: FakeModelServer;
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    fake = await startFakeModelServer({
      responder: (req) => {
        // "take your time": one slow Bash first (a turn that keeps the server busy for a while).
        const slow = JSON.stringify(req.messages[0]?.content ?? '').includes('take your time');
        // "hold in the background": a background command, so -p holds its result until the
        // command's notification turn.
        if (JSON.stringify(req.messages[0]?.content ?? '').includes('hold in the background')) {
          const last = JSON.stringify(req.messages.at(-1)?.content ?? '');
          if (req.messages.every((m) => m.role !== 'assistant')) {
            return {
              content: [{ tool_use: { name: 'Bash', input: { command: 'sleep 20', run_in_background: true } } }],
            };
          }
          return { content: [{ text: last.includes('<task-notification>') ? 'noted the task' : 'it runs' }] };
        }
        if (slow && req.messages.filter((m) => m.role === 'assistant').length === 0) {
          return { content: [{ tool_use: { name: 'Bash', input: { command: 'sleep 8' } } }] };
        }
        return { content: [{ text: 'hello from the model' }] };
      },
    });
    dataDir = mkdtempSync(join(tmpdir(), 'dar-bg-'));
    env = { ...process.env, AGENT_RUNNER_DATA_DIR: dataDir, ANTHROPIC_BASE_URL: fake.baseUrl, ANTHROPIC_API_KEY: 'k' };
    for (const k of ['TEMPORAL_ADDRESS', 'AGENT_RUNNER_CONFIG', 'AGENT_RUNNER_NO_DAEMON', 'NODE_OPTIONS'])
      delete env[k];
  });
  afterAll(async () => {
    await runCli(['server', 'stop'], { env, cwd: tmpdir() }).catch(() => undefined);
    for (const pid of devServersOn(dataDir)) process.kill(pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    await fake.close();
  });

  const p = (prompt: string, extra: string[] = []) =>
    runCli(['-p', prompt, '--output-format', 'json', ...extra], { env, cwd: tmpdir(), timeoutMs: 300_000 });

  test('background server: ten -p runs started at once with no server all succeed, using one background server', async () => {
    const runs = await Promise.all(Array.from({ length: 10 }, (_, i) => p(`say hello ${i}`)));
    for (const r of runs) {
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(r.stdout)).toMatchObject({
        type: 'result',
        subtype: 'success',
        result: 'hello from the model',
      });
    }
    const log = readFileSync(join(dataDir, 'server.log'), 'utf8');
    expect(log.match(/agent-runner server ready/g)).toHaveLength(1);
    const state = readServerState(dataDir);
    expect(state).toMatchObject({ mode: 'background' });
    expect(devServersOn(dataDir)).toEqual([state?.pid]);

    const status = await runCli(['server', 'status', '--json'], { env, cwd: tmpdir() });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, mode: 'background', address: state?.address });

    const list = await runCli(['list', '--json'], { env, cwd: tmpdir() });
    expect(list.code).toBe(0);
    const rows = list.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows).toHaveLength(10);
    expect(rows.map((r) => r['prompt']).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `say hello ${i}`).sort());
    for (const r of rows) expect(r).toMatchObject({ status: 'success', cwd: tmpdir(), model: expect.any(String) });
  });

  test('background server: kill -9 takes its dev server with it; the next run starts one on the same address', async () => {
    const before = readServerState(dataDir);
    if (!before?.ownerPid) throw new Error('no background server recorded');
    process.kill(before.ownerPid, 'SIGKILL');
    expect(await waitUntil(() => !isProcessAlive(before.pid), 10_000)).toBe(true);
    const r = await p('say hello again');
    expect(r.code).toBe(0);
    const after = readServerState(dataDir);
    expect(after?.ownerPid).not.toBe(before.ownerPid);
    expect(after?.address).toBe(before.address);
    expect(devServersOn(dataDir)).toEqual([after?.pid]);
  });

  test('background server: kill -9 of the server while -p holds its result for a background command: -p waits, restarts it and prints the notification turn (exit 0)', async () => {
    const before = readServerState(dataDir);
    if (!before?.ownerPid) throw new Error('no background server recorded');
    const seen = fake.requests().length;
    const run = p('hold in the background', ['--permission-mode', 'bypassPermissions']);
    // The first turn has ended (its second model call answered): -p is holding its result.
    expect(await waitUntil(() => fake.requests().length >= seen + 2, 60_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 1500));
    process.kill(before.ownerPid, 'SIGKILL');
    const r = await run;
    expect({ code: r.code, result: (JSON.parse(r.stdout || '{}') as { result?: string }).result }).toEqual({
      code: 0,
      result: 'noted the task',
    });
    expect(r.stderr).toMatch(/Temporal is unreachable/);
    expect(readServerState(dataDir)?.ownerPid).not.toBe(before.ownerPid);
  });

  test('background server: a run with other model settings restarts the idle server with its own', async () => {
    const other = await startFakeModelServer({
      responder: () => ({ content: [{ text: 'hello from another model' }] }),
    });
    try {
      const before = readServerState(dataDir);
      const r = await runCli(['-p', 'who are you', '--output-format', 'json'], {
        env: { ...env, ANTHROPIC_BASE_URL: other.baseUrl },
        cwd: tmpdir(),
        timeoutMs: 300_000,
      });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ result: 'hello from another model' });
      const after = readServerState(dataDir);
      expect(after?.ownerPid).not.toBe(before?.ownerPid);
      expect(after?.workerEnv?.baseUrl).toBe(other.baseUrl);
      expect(devServersOn(dataDir)).toEqual([after?.pid]);
    } finally {
      await other.close();
    }
  });

  test('background server: attach calls no model: it needs no key and never restarts the server, whatever key it has', async () => {
    const sessionId = '5e55f00d-0000-4000-8000-000000000013';
    const first = await p('say hello for attach', ['--session-id', sessionId]);
    expect(first.code).toBe(0);
    const before = readServerState(dataDir);
    const noKey = { ...env };
    delete noKey['ANTHROPIC_API_KEY'];
    delete noKey['ANTHROPIC_BASE_URL'];
    const a = await runCli(['attach', sessionId, '--output-format', 'json'], { env: noKey, cwd: tmpdir() });
    expect({ code: a.code, stderr: a.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(a.stdout)).toMatchObject({
      subtype: 'success',
      result: 'hello from the model',
      session_id: sessionId,
    });
    const otherKey = { ...noKey, ANTHROPIC_API_KEY: 'another-key' };
    const b = await runCli(['attach', sessionId, '--output-format', 'json'], { env: otherKey, cwd: tmpdir() });
    expect(b.code).toBe(0);
    expect(b.stderr).not.toMatch(/restarting/);
    expect(readServerState(dataDir)?.ownerPid).toBe(before?.ownerPid);
  });

  test('background server: server status shows its agent-runner version; a run restarts an idle server of another version, saying so, and refuses (exit 2) a busy one', async () => {
    const state = readServerState(dataDir);
    if (!state?.ownerPid || !state.runner) throw new Error('no background server with a version recorded');
    const mine = state.runner;
    const status = await runCli(['server', 'status'], { env, cwd: tmpdir() });
    expect(status.stdout).toMatch(new RegExp(`version\\s+agent-runner ${mine.version.replace(/\./g, '\\.')}`));
    expect(JSON.parse((await runCli(['server', 'status', '--json'], { env, cwd: tmpdir() })).stdout)).toMatchObject({
      runner: mine,
      versionMatches: true,
    });
    // The recorded server now claims an older version (as an older install's server would).
    const file = join(dataDir, 'server.json');
    const older = (): void => {
      const j = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      writeFileSync(file, JSON.stringify({ ...j, runner: { version: '0.0.9', build: 'a1b2c3d4e5f6' } }));
    };
    older();
    const st = await runCli(['server', 'status'], { env, cwd: tmpdir() });
    expect(st.stdout).toMatch(/version\s+agent-runner 0\.0\.9 \(build a1b2c3d4e5f6\) \(this client is agent-runner /);
    const idle = await p('hello after an upgrade');
    expect(idle.code).toBe(0);
    expect(idle.stderr).toMatch(
      new RegExp(
        `restarting the idle background server \\(pid ${state.ownerPid}\\) with this run's agent-runner .* \\(it ran agent-runner 0\\.0\\.9 \\(build a1b2c3d4e5f6\\)\\)`,
      ),
    );
    const restarted = readServerState(dataDir);
    expect(restarted?.ownerPid).not.toBe(state.ownerPid);
    expect(restarted?.runner).toEqual(mine);

    // Busy: a turn runs on it, so it is not restarted; the run is refused, nothing run.
    const slow = p('take your time');
    expect(await waitUntil(() => readServerState(dataDir) !== null, 10_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 3000)); // the slow turn is running its Bash
    older();
    const refused = await p('hello while busy');
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      /the shared agent-runner server \(pid \d+, background\) runs agent-runner 0\.0\.9 \(build a1b2c3d4e5f6\), and this is agent-runner .*: its worker would run this turn with other code\. It is running turns, so it is not restarted now/,
    );
    expect((await slow).code).toBe(0);
    // An older server that records no version at all counts as another version.
    const j = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    delete j['runner'];
    writeFileSync(file, JSON.stringify(j));
    const unknown = await p('hello to an unversioned server');
    expect(unknown.code).toBe(0);
    expect(unknown.stderr).toMatch(/it ran an older agent-runner that does not record its version/);
  });

  test('background server: server stop ends it; status then says none runs (exit 1); --no-daemon leaves nothing behind; the next server takes the same address', async () => {
    const state = readServerState(dataDir);
    const stop = await runCli(['server', 'stop'], { env, cwd: tmpdir() });
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain('stopped');
    expect(state?.ownerPid !== undefined && isProcessAlive(state.ownerPid)).toBe(false);
    expect(devServersOn(dataDir)).toEqual([]);
    const status = await runCli(['server', 'status'], { env, cwd: tmpdir() });
    expect(status.code).toBe(1);
    expect(status.stdout).toContain('no agent-runner server is running');
    const list = await runCli(['list'], { env, cwd: tmpdir() });
    expect(list.code).toBe(1);
    expect(list.stderr).toContain('no Temporal server is running');
    expect(devServersOn(dataDir)).toEqual([]);

    const r = await p('private run', ['--no-daemon']);
    expect(r.code).toBe(0);
    expect(devServersOn(dataDir)).toEqual([]);
    expect((await runCli(['server', 'status'], { env, cwd: tmpdir() })).code).toBe(1);

    // The next run starts a server on the address of the stopped one (server.last survives the
    // stop), so a client that waited through the stop finds it where it was.
    const again = await p('after a stop');
    expect(again.code).toBe(0);
    expect(readServerState(dataDir)?.address).toBe(state?.address);
  });

  test('background server: attach with no server running and no model key reads the finished turn from a private dev server, and leaves no server behind', async () => {
    const sessionId = '5e55f00d-0000-4000-8000-000000000014';
    expect((await p('say hello before the stop', ['--session-id', sessionId])).code).toBe(0);
    expect((await runCli(['server', 'stop'], { env, cwd: tmpdir() })).code).toBe(0);
    const noKey = { ...env };
    delete noKey['ANTHROPIC_API_KEY'];
    const a = await runCli(['attach', sessionId, '--output-format', 'json'], { env: noKey, cwd: tmpdir() });
    expect({ code: a.code, stderr: a.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(a.stdout)).toMatchObject({ subtype: 'success', result: 'hello from the model' });
    expect((await runCli(['server', 'status'], { env, cwd: tmpdir() })).code).toBe(1);
    expect(devServersOn(dataDir)).toEqual([]);
  });
});
