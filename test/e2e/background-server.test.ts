/**
 * The shared background server: the first `-p` that finds no server starts one (dev server +
 * worker, detached); later and parallel runs use it; `server status|stop` manage it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
    fake = await startFakeModelServer({ responder: () => ({ content: [{ text: 'hello from the model' }] }) });
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
});
