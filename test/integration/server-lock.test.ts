/**
 * The server lock of a data directory: one dev server per SQLite file, whatever happens to the
 * processes that run it.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '../../src/config';
import { adoptOrStopOrphan, findTemporalCli } from '../../src/host/dev-server';
import { openRuntime } from '../../src/host/runtime';
import { acquireServerLock, EmbeddedServerBusyError, readServerLock } from '../../src/host/server-lock';
import { isProcessAlive, waitUntil } from '../helpers/processes';

jest.setTimeout(180_000);

const REPO_ROOT = path.resolve(__dirname, '../..');
const BUILT = (m: string): string => path.join(REPO_ROOT, 'dist', 'src', 'host', `${m}.js`);

/** Pids of `temporal server start-dev` processes on `dbPath`. */
function devServersOn(dbPath: string): number[] {
  const out = spawnSync('pgrep', ['-f', `start-dev.*--db-filename ${dbPath}`], { encoding: 'utf8' }).stdout;
  return out.split('\n').filter(Boolean).map(Number).filter(isProcessAlive);
}

/** Runs `script` (with `lock` = the built server-lock module, `ds` = dev-server) in a child that prints one line and holds. */
async function holder(script: string): Promise<{ child: ReturnType<typeof spawn>; line: string }> {
  for (const m of ['server-lock', 'dev-server']) {
    if (!fs.existsSync(BUILT(m))) throw new Error(`${BUILT(m)} is missing: run npm run build`);
  }
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const lock = require(${JSON.stringify(BUILT('server-lock'))}); const ds = require(${JSON.stringify(BUILT('dev-server'))});
       (async () => { ${script} })().then((l) => { console.log(l); setInterval(() => {}, 1000); }, (e) => { console.error(e); process.exit(1); });`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  if (!(await waitUntil(() => out.includes('\n'), 60_000))) throw new Error(`holder did not start: ${err}`);
  return { child, line: out.trim() };
}

describe('server lock', () => {
  const dirs: string[] = [];
  const tmp = (): string => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'dar-lock-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  test('server lock: a second holder is refused while the first lives, and may take it once released', async () => {
    const dataDir = tmp();
    const first = await acquireServerLock(dataDir, 'private');
    const err = await acquireServerLock(dataDir, 'background').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbeddedServerBusyError);
    expect((err as EmbeddedServerBusyError).pid).toBe(process.pid);
    first.release();
    const second = await acquireServerLock(dataDir, 'background');
    expect(readServerLock(dataDir)).toMatchObject({ ownerPid: process.pid, mode: 'background' });
    second.release();
    expect(readServerLock(dataDir)).toBeNull();
  });

  test('server lock: a holder killed with SIGKILL frees it at once, and its record tells the next holder what it ran', async () => {
    const dataDir = tmp();
    const { child } = await holder(
      `const l = await lock.acquireServerLock(${JSON.stringify(dataDir)}, 'background');
       l.setDevServer({ pid: process.pid, address: '127.0.0.1:1', uiUrl: null }); return 'held';`,
    );
    await expect(acquireServerLock(dataDir, 'private')).rejects.toBeInstanceOf(EmbeddedServerBusyError);
    const pid = child.pid as number;
    child.kill('SIGKILL');
    await waitUntil(() => !isProcessAlive(pid), 5000);
    const lock = await acquireServerLock(dataDir, 'private');
    try {
      expect(lock.previous).toMatchObject({ ownerPid: pid, mode: 'background', devServerPid: pid });
    } finally {
      lock.release();
    }
  });

  test('orphan: a dev server left running by a killed holder is adopted, never run beside a second one', async () => {
    const dataDir = tmp();
    const dbPath = path.join(dataDir, 'temporal.db');
    // keepAlive: a dev server without a parent-death signal, as on systems without setpriv.
    const { child, line } = await holder(
      `const l = await lock.acquireServerLock(${JSON.stringify(dataDir)}, 'background');
       const s = await ds.startDevServer({ cliPath: ${JSON.stringify(findTemporalCli())}, dataDir: ${JSON.stringify(dataDir)}, keepAlive: true });
       l.setDevServer(s); return JSON.stringify({ pid: s.pid, address: s.address });`,
    );
    const orphan = JSON.parse(line) as { pid: number; address: string };
    child.kill('SIGKILL');
    await waitUntil(() => !isProcessAlive(child.pid as number), 5000);
    expect(devServersOn(dbPath)).toEqual([orphan.pid]);

    const config = loadConfig({ env: { AGENT_RUNNER_DATA_DIR: dataDir }, cwd: dataDir });
    const rt = await openRuntime({
      config,
      forceEmbedded: true,
      worker: false,
      preflight: false,
      forwardCoreLogs: false,
    });
    try {
      expect(rt.devServer).toMatchObject({ pid: orphan.pid, address: orphan.address, adopted: true });
      await expect(rt.client.workflow.count()).resolves.toMatchObject({ count: 0 });
      expect(devServersOn(dbPath)).toEqual([orphan.pid]);
      expect(readServerLock(dataDir)).toMatchObject({ ownerPid: process.pid, devServerPid: orphan.pid });
    } finally {
      await rt.close();
    }
    expect(await waitUntil(() => !isProcessAlive(orphan.pid), 15_000)).toBe(true);
  });

  test('orphan: one that does not answer is stopped, and a process that only reuses its pid is left alone', async () => {
    const dataDir = tmp();
    const dbPath = path.join(dataDir, 'temporal.db');
    const fake = spawn(
      process.execPath,
      ['-e', 'setInterval(() => {}, 1000)', 'server', 'start-dev', '--db-filename', dbPath],
      {
        stdio: 'ignore',
      },
    );
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      await waitUntil(() => isProcessAlive(fake.pid as number) && isProcessAlive(other.pid as number), 5000);
      await expect(
        adoptOrStopOrphan({ pid: other.pid as number, address: '127.0.0.1:1', uiUrl: null }, dbPath),
      ).resolves.toBeNull();
      expect(isProcessAlive(other.pid as number)).toBe(true);
      await expect(
        adoptOrStopOrphan({ pid: fake.pid as number, address: '127.0.0.1:1', uiUrl: null }, dbPath),
      ).resolves.toBeNull();
      expect(await waitUntil(() => !isProcessAlive(fake.pid as number), 5000)).toBe(true);
    } finally {
      fake.kill('SIGKILL');
      other.kill('SIGKILL');
    }
  });
});
