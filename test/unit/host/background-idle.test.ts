import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Client } from '@temporalio/client';
import { watchIdle } from '../../../src/host/background';
import { serverTouchPath } from '../../../src/host/server-state';

/** A Temporal client whose only use here, counting running turns, answers `running`. */
function countingClient(running: () => number): Client {
  return {
    workflow: { count: async () => ({ count: running(), groups: [] }) },
    schedule: { list: async function* () {} },
  } as unknown as Client;
}

/** A pid no process has (the spawning run has ended). */
const GONE = 2 ** 22 + 11;

/** watchIdle for up to `ms`, then aborted: what it decided, or 'aborted' when it kept serving. */
async function decide(
  opts: Omit<Parameters<typeof watchIdle>[0], 'log' | 'idleTimeoutMs'>,
  ms = 2500,
): Promise<string> {
  const stop = new AbortController();
  const t = setTimeout(() => stop.abort(), ms);
  try {
    return await watchIdle({ ...opts, idleTimeoutMs: 0, log: () => undefined }, stop.signal);
  } finally {
    clearTimeout(t);
  }
}

describe('the background server stops early only when the run that started it ended unused', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'dar-idle-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  test('a run that used it before the worker loaded (a touch after server.json, seconds before the watch) keeps it', async () => {
    const readyAt = Date.now() - 8000;
    writeFileSync(serverTouchPath(dataDir), '');
    const touched = new Date(readyAt + 2000);
    utimesSync(serverTouchPath(dataDir), touched, touched);
    expect(await decide({ client: countingClient(() => 0), dataDir, spawnedBy: GONE, readyAt })).toBe('aborted');
  });

  test('a turn of another run still running keeps it, with no touch at all', async () => {
    expect(await decide({ client: countingClient(() => 1), dataDir, spawnedBy: GONE })).toBe('aborted');
  });

  test('a server Temporal cannot count turns on is taken as busy', async () => {
    const client = {
      workflow: {
        count: async () => {
          throw new Error('14 UNAVAILABLE');
        },
      },
    } as unknown as Client;
    expect(await decide({ client, dataDir, spawnedBy: GONE })).toBe('aborted');
  });

  test('no touch since it was ready and no turn running: it stops', async () => {
    const readyAt = Date.now();
    writeFileSync(serverTouchPath(dataDir), '');
    const before = new Date(readyAt - 5000);
    utimesSync(serverTouchPath(dataDir), before, before);
    expect(await decide({ client: countingClient(() => 0), dataDir, spawnedBy: GONE, readyAt })).toBe(
      'unused by the run that started it',
    );
  });

  test('a session that holds a pending task (no turn running) keeps it, as long as idleness would otherwise stop it', async () => {
    // The visibility store as the server would answer: one running session (a cron job pending), no turn.
    const running = [{ type: 'sessionWorkflow' }];
    const client = {
      workflow: {
        count: async (query: string) => ({
          count: running.filter((w) => query.includes(`WorkflowType = '${w.type}'`)).length,
          groups: [],
        }),
      },
      schedule: { list: async function* () {} },
    } as unknown as Client;
    const stop = new AbortController();
    const t = setTimeout(() => stop.abort(), 2500);
    const why = await watchIdle(
      { client, dataDir, idleTimeoutMs: 1000, intervalMs: 250, log: () => undefined },
      stop.signal,
    );
    clearTimeout(t);
    expect(why).toBe('aborted');
    running.length = 0;
    expect(
      await watchIdle(
        { client, dataDir, idleTimeoutMs: 1000, intervalMs: 250, log: () => undefined },
        new AbortController().signal,
      ),
    ).toBe('idle');
  });

  test('an active schedule (its fires need this server) keeps it; a paused one or one with no next fire does not', async () => {
    const schedules = [{ state: { paused: false }, info: { nextActionTimes: [new Date(Date.now() + 3_600_000)] } }];
    const client = {
      workflow: { count: async () => ({ count: 0, groups: [] }) },
      schedule: {
        list: async function* () {
          yield* schedules;
        },
      },
    } as unknown as Client;
    const watch = (signal: AbortSignal): Promise<string> =>
      watchIdle({ client, dataDir, idleTimeoutMs: 1000, intervalMs: 250, log: () => undefined }, signal);
    const stop = new AbortController();
    const t = setTimeout(() => stop.abort(), 2500);
    expect(await watch(stop.signal)).toBe('aborted');
    clearTimeout(t);
    schedules.push({ state: { paused: true }, info: { nextActionTimes: [new Date()] } });
    schedules[0] = { state: { paused: false }, info: { nextActionTimes: [] } };
    expect(await watch(new AbortController().signal)).toBe('idle');
  });

  test('a removed data directory stops it whatever else holds', async () => {
    rmSync(dataDir, { recursive: true, force: true });
    expect(await decide({ client: countingClient(() => 3), dataDir })).toBe('data dir removed');
  });
});
