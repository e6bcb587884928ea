/**
 * The embedded dev server against the real Temporal CLI: found through TEMPORAL_CLI_PATH, PATH or
 * the project-local `.temporal/bin/temporal` (`npm run setup:temporal`).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import {
  DevServerStartError,
  TemporalCliNotFoundError,
  clearServerState,
  findTemporalCli,
  parentDeathWrapper,
  readLiveServerState,
  serverStatePath,
  startDevServer,
  writeServerState,
  type DevServer,
} from '../../src/host/dev-server';
import { isProcessAlive } from '../helpers/processes';

jest.setTimeout(120_000);

const REPO_ROOT = path.resolve(__dirname, '../..');
let cliPath: string;
let tmp: string;
const started: DevServer[] = [];

beforeAll(() => {
  cliPath = findTemporalCli();
});
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-server-test-'));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function start(opts: Partial<Parameters<typeof startDevServer>[0]> = {}): Promise<DevServer> {
  const server = await startDevServer({ cliPath, dataDir: tmp, ...opts });
  started.push(server);
  return server;
}

async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return cond();
}

async function withClient<T>(address: string, namespace: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address });
  try {
    return await fn(new Client({ connection, namespace }));
  } finally {
    await connection.close();
  }
}

describe('dev server', () => {
  test('dev-server: starts on free ports with a db file; a client starts, lists and finds workflows after a restart', async () => {
    const logs: string[] = [];
    const first = await start({
      dbFilename: 'db/temporal.db',
      namespace: 'agents',
      searchAttributes: { AgentSessionId: 'Keyword' },
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 200 },
      onLog: (l) => logs.push(l),
    });
    expect(first.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(first.address).not.toBe('127.0.0.1:7233');
    expect(first.uiUrl).toBeNull();
    expect(first.dbPath).toBe(path.join(tmp, 'db', 'temporal.db'));
    expect(fs.existsSync(first.dbPath!)).toBe(true);
    expect(isProcessAlive(first.pid)).toBe(true);

    await withClient(first.address, 'agents', async (client) => {
      await client.workflow.start('noSuchWorkflow', {
        taskQueue: 'dev-server-test',
        workflowId: 'wf-persisted',
        searchAttributes: { AgentSessionId: ['s1'] },
      });
      const found = await waitFor(async () => {
        const ids: string[] = [];
        for await (const wf of client.workflow.list({ query: 'AgentSessionId = "s1"' })) ids.push(wf.workflowId);
        return ids.includes('wf-persisted');
      }, 10_000);
      expect(found).toBe(true);
    });

    await first.stop();
    expect(isProcessAlive(first.pid)).toBe(false);

    // Same db file: the workflow of the first server is still there.
    const second = await start({
      dbFilename: 'db/temporal.db',
      namespace: 'agents',
      searchAttributes: { AgentSessionId: 'Keyword' },
    });
    expect(second.pid).not.toBe(first.pid);
    await withClient(second.address, 'agents', async (client) => {
      const description = await client.workflow.getHandle('wf-persisted').describe();
      expect(description.type).toBe('noSuchWorkflow');
      expect(description.status.name).toBe('RUNNING');
    });
  });

  test('dev-server: a port asked for that a dying server still holds is waited for, not a failed start (outsider F4)', async () => {
    const net = await import('node:net');
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
    const port = (holder.address() as { port: number }).port;
    // The "killed server" lets the port go 2 s later.
    setTimeout(() => holder.close(), 2000);
    const server = await start({ dbFilename: null, port });
    expect(server.address).toBe(`127.0.0.1:${port}`);
  });

  test('dev-server: stop() kills the process, is idempotent, and the port stops answering', async () => {
    const server = await start({ dbFilename: null });
    expect(server.dbPath).toBeNull();
    await server.stop();
    expect(isProcessAlive(server.pid)).toBe(false);
    await expect(server.stop()).resolves.toBeUndefined();
    writeServerState(tmp, { address: server.address, pid: process.pid, uiUrl: null });
    // The pid is alive (our own) but the address does not answer.
    await expect(readLiveServerState(tmp)).resolves.toBeNull();
  });

  test('dev-server: the Web UI is served on its own free port when ui is true', async () => {
    const server = await start({ dbFilename: null, ui: true });
    expect(server.uiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const ok = await waitFor(async () => {
      try {
        return (await fetch(server.uiUrl!)).ok;
      } catch {
        return false;
      }
    }, 15_000);
    expect(ok).toBe(true);
  });

  test('dev-server: a state file shares a live server and goes stale when it stops', async () => {
    const server = await start({ dbFilename: null });
    expect(await readLiveServerState(tmp)).toBeNull();
    writeServerState(tmp, { address: server.address, pid: server.pid, uiUrl: null });
    expect(JSON.parse(fs.readFileSync(serverStatePath(tmp), 'utf8'))).toMatchObject({ v: 1, pid: server.pid });
    await expect(readLiveServerState(tmp)).resolves.toMatchObject({
      address: server.address,
      pid: server.pid,
      uiUrl: null,
    });
    await server.stop();
    await expect(readLiveServerState(tmp)).resolves.toBeNull();
    clearServerState(tmp);
    expect(fs.existsSync(serverStatePath(tmp))).toBe(false);
    clearServerState(tmp); // no error when missing
    fs.writeFileSync(serverStatePath(tmp), 'not json');
    await expect(readLiveServerState(tmp)).resolves.toBeNull();
  });
});

describe('dev server errors', () => {
  test('dev-server: a bad cli path gives the clear error', async () => {
    const missing = path.join(tmp, 'no', 'temporal');
    const err = await startDevServer({ cliPath: missing, dataDir: tmp }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemporalCliNotFoundError);
    expect((err as Error).message).toContain(missing);
    expect((err as Error).message).toContain('npm run setup:temporal');
    expect((err as Error).message).toContain('TEMPORAL_CLI_PATH');
  });

  test('dev-server: findTemporalCli lists every place it looked', () => {
    const empty = fs.mkdtempSync(path.join(tmp, 'root-'));
    let err: unknown;
    try {
      findTemporalCli({ env: { PATH: path.join(tmp, 'nobin') }, projectRoot: empty });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TemporalCliNotFoundError);
    const msg = (err as Error).message;
    expect(msg).toContain('devServer.cliPath: not set');
    expect(msg).toContain('TEMPORAL_CLI_PATH: not set');
    expect(msg).toContain(path.join(tmp, 'nobin'));
    expect(msg).toContain(path.join(empty, '.temporal', 'bin', 'temporal'));
    expect(msg).toContain('npm run setup:temporal');
  });

  test('dev-server: findTemporalCli takes configured, then TEMPORAL_CLI_PATH, then PATH, then .temporal/bin', () => {
    const mk = (p: string): string => {
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, '#!/bin/sh\n', { mode: 0o755 });
      return p;
    };
    const configured = mk(path.join(tmp, 'configured', 'temporal'));
    const fromEnv = mk(path.join(tmp, 'env', 'temporal'));
    const onPath = mk(path.join(tmp, 'pathdir', 'temporal'));
    const local = mk(path.join(tmp, 'proj', '.temporal', 'bin', 'temporal'));
    const root = path.join(tmp, 'proj');
    const PATH = path.join(tmp, 'pathdir');
    expect(findTemporalCli({ configured, env: { TEMPORAL_CLI_PATH: fromEnv, PATH }, projectRoot: root })).toBe(
      configured,
    );
    expect(findTemporalCli({ configured: null, env: { TEMPORAL_CLI_PATH: fromEnv, PATH }, projectRoot: root })).toBe(
      fromEnv,
    );
    expect(findTemporalCli({ env: { PATH }, projectRoot: root })).toBe(onPath);
    expect(findTemporalCli({ env: { PATH: '' }, projectRoot: root })).toBe(local);
    expect(findTemporalCli({ configured: 'temporal', env: { PATH }, projectRoot: root })).toBe(onPath);
    // An explicit but wrong path is an error, not skipped.
    expect(() =>
      findTemporalCli({ env: { TEMPORAL_CLI_PATH: path.join(tmp, 'typo'), PATH }, projectRoot: root }),
    ).toThrow(/TEMPORAL_CLI_PATH: .*typo \(missing\)/);
    fs.chmodSync(onPath, 0o644);
    expect(() => findTemporalCli({ configured: onPath, env: {}, projectRoot: root })).toThrow(/not executable/);
  });

  test('dev-server: findTemporalCli finds the project root of this package by default', () => {
    const local = path.join(REPO_ROOT, '.temporal', 'bin', 'temporal');
    if (fs.existsSync(local)) {
      expect(findTemporalCli({ env: { PATH: '' } })).toBe(local);
    } else {
      expect(() => findTemporalCli({ env: { PATH: '' } })).toThrow(local);
    }
  });

  test('dev-server: a server that exits early fails with its last output lines', async () => {
    const fake = path.join(tmp, 'fake-temporal');
    fs.writeFileSync(fake, '#!/bin/sh\necho "starting up"\necho "fatal: disk on fire" >&2\nexit 3\n', { mode: 0o755 });
    const err = await startDevServer({ cliPath: fake, dataDir: tmp }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DevServerStartError);
    const msg = (err as Error).message;
    expect(msg).toContain('exit code 3');
    expect(msg).toContain('fatal: disk on fire');
    expect(msg).toContain('starting up');
    expect((err as DevServerStartError).logTail).toEqual(['starting up', 'fatal: disk on fire']);
  });

  test('dev-server: a server that never answers times out and is killed', async () => {
    const pidFile = path.join(tmp, 'fake.pid');
    const fake = path.join(tmp, 'fake-temporal');
    fs.writeFileSync(fake, `#!/bin/sh\necho $$ > ${pidFile}\necho "hanging"\nexec sleep 60\n`, { mode: 0o755 });
    const t0 = Date.now();
    const err = await startDevServer({ cliPath: fake, dataDir: tmp, startTimeoutMs: 1500 }).catch((e: unknown) => e);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(err).toBeInstanceOf(DevServerStartError);
    expect((err as Error).message).toMatch(/did not answer at 127\.0\.0\.1:\d+ within 1500 ms/);
    expect((err as Error).message).toContain('hanging');
    const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    expect(isProcessAlive(pid)).toBe(false);
  });
});

/**
 * Runs the built dev-server.js (`npm run build`) in a separate Node process, which starts a server,
 * prints its pid and then ends normally (the server must not keep it alive), or with `hold`, waits
 * to be killed.
 */
async function runInChildProcess(
  keepAlive: boolean,
  dataDir: string,
  hold = false,
): Promise<{ pid: number; address: string; child: ReturnType<typeof spawn> }> {
  const built = path.join(REPO_ROOT, 'dist', 'src', 'host', 'dev-server.js');
  if (!fs.existsSync(built)) throw new Error(`${built} is missing: run npm run build`);
  const script = `
    const ds = require(${JSON.stringify(built)});
    ds.startDevServer({ cliPath: ${JSON.stringify(cliPath)}, dataDir: ${JSON.stringify(dataDir)}, dbFilename: null, keepAlive: ${keepAlive} })
      .then((s) => {
        ds.writeServerState(${JSON.stringify(dataDir)}, { address: s.address, pid: s.pid, uiUrl: s.uiUrl });
        console.log(JSON.stringify({ pid: s.pid, address: s.address }));
        ${hold ? 'setInterval(() => {}, 1000);' : '// No stop() and no process.exit(): the process ends when its work is done.'}
      })
      .catch((e) => { console.error(e); process.exit(1); });
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let errOut = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (errOut += d.toString()));
  if (hold) {
    const ok = await waitFor(() => out.includes('\n'), 60_000);
    if (!ok) throw new Error(`child did not start a server: ${errOut}`);
  } else {
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    if (code !== 0) throw new Error(`child failed (${code}): ${errOut}`);
  }
  return { ...(JSON.parse(out.trim()) as { pid: number; address: string }), child };
}

describe('dev server lifetime', () => {
  test('dev-server: the server does not outlive a parent that exits normally', async () => {
    const { pid } = await runInChildProcess(false, tmp);
    expect(await waitFor(() => !isProcessAlive(pid), 10_000)).toBe(true);
    // Its port may close a moment after the process is gone (a loaded machine): wait for that too.
    expect(await waitFor(async () => (await readLiveServerState(tmp)) === null, 10_000)).toBe(true);
  });

  test('dev-server: the server dies with a parent killed by SIGKILL (parent-death signal through setpriv)', async () => {
    if (parentDeathWrapper() === null) return; // not Linux, or no util-linux setpriv: the lock adopts orphans instead
    const { pid, child } = await runInChildProcess(false, tmp, true);
    expect(isProcessAlive(pid)).toBe(true);
    child.kill('SIGKILL');
    expect(await waitFor(() => !isProcessAlive(pid), 5_000)).toBe(true);
  });

  test('dev-server: with keepAlive the server outlives its parent and is found through the state file', async () => {
    const { pid, address } = await runInChildProcess(true, tmp);
    try {
      expect(isProcessAlive(pid)).toBe(true);
      await expect(readLiveServerState(tmp)).resolves.toMatchObject({ address, pid, uiUrl: null });
      await withClient(address, 'default', async (client) => {
        await expect(client.workflow.count()).resolves.toEqual(expect.objectContaining({ count: 0 }));
      });
      // Its output goes to a log file instead of pipes that would break when the parent exits.
      expect(fs.existsSync(path.join(tmp, 'temporal-server.log'))).toBe(true);
    } finally {
      process.kill(pid, 'SIGKILL');
    }
    expect(await waitFor(() => !isProcessAlive(pid), 10_000)).toBe(true);
  });
});
