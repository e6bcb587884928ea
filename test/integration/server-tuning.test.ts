/**
 * Every dev server the project starts is tuned: the history service's transfer-queue poll rate
 * (`history.transferProcessorMaxPollRPS`) and, for a database file, SQLite WAL. The step-latency
 * effect is measured by `bench/` (docs/performance.md, "Server tuning"); here the settings.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findTemporalCli, startDevServer, type DevServer } from '../../src/host/dev-server';

jest.setTimeout(120_000);

/** The argv of a running process (Linux /proc). */
function argv(pid: number): string[] {
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

/** Values that follow each occurrence of `flag` in `args`. */
function values(args: string[], flag: string): string[] {
  return args.flatMap((a, i) => (a === flag && args[i + 1] !== undefined ? [args[i + 1] as string] : []));
}

describe('dev server tuning', () => {
  const servers: DevServer[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  const tmp = (): string => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'dar-tuning-'));
    dirs.push(d);
    return d;
  };

  test('dev-server: a file database runs with WAL and the transfer-queue poll rate raised', async () => {
    const dataDir = tmp();
    const server = await startDevServer({ cliPath: findTemporalCli(), dataDir, dbFilename: 'temporal.db' });
    servers.push(server);
    const args = argv(server.pid);
    expect(values(args, '--dynamic-config-value')).toContain('history.transferProcessorMaxPollRPS=1000');
    expect(values(args, '--sqlite-pragma')).toEqual(['journal_mode=wal', 'synchronous=normal']);
    expect(fs.existsSync(path.join(dataDir, 'temporal.db-wal'))).toBe(true);
  });

  test('dev-server: configured values override the tuning; an in-memory database gets no pragmas', async () => {
    const server = await startDevServer({
      cliPath: findTemporalCli(),
      dataDir: tmp(),
      dbFilename: null,
      dynamicConfig: { 'history.transferProcessorMaxPollRPS': 500 },
    });
    servers.push(server);
    const args = argv(server.pid);
    expect(values(args, '--dynamic-config-value')).toEqual(['history.transferProcessorMaxPollRPS=500']);
    expect(values(args, '--sqlite-pragma')).toEqual([]);
  });
});
