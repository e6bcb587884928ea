/**
 * `agent-runner worker` started while Temporal or the PostgreSQL store is down waits for them
 * (as a running worker does when they go away) and starts when they answer, instead of exiting.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SEARCH_ATTRIBUTES } from '../../src/common/search-attributes';
import { findTemporalCli, startDevServer } from '../../src/host/dev-server';
import { BIN } from '../helpers/cli';
import { startPostgresProcess } from '../helpers/postgres-process';
import { waitUntil } from '../helpers/processes';

jest.setTimeout(180_000);

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function startWorker(env: NodeJS.ProcessEnv): {
  stderr: () => string;
  exited: () => number | null | undefined;
  stop: () => Promise<void>;
} {
  const proc = spawn(process.execPath, [BIN, 'worker'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  let code: number | null | undefined;
  proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const done = new Promise<void>((r) =>
    proc.once('exit', (c) => {
      code = c;
      r();
    }),
  );
  return {
    stderr: () => err,
    exited: () => code,
    async stop() {
      if (code === undefined) proc.kill('SIGTERM');
      await done;
    },
  };
}

function workerEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AGENT_RUNNER_DATA_DIR: mkdtempSync(join(tmpdir(), 'dar-wait-')),
    AGENT_RUNNER_TASK_QUEUE: `wait-${randomUUID()}`,
    ANTHROPIC_API_KEY: 'k',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    ...extra,
  };
  delete env['AGENT_RUNNER_CONFIG'];
  return env;
}

describe('agent-runner worker: started before its services', () => {
  test('worker start: Temporal down at start: the worker waits, says so, and polls once a server answers on that address', async () => {
    const port = await freePort();
    const w = startWorker(workerEnv({ TEMPORAL_ADDRESS: `127.0.0.1:${port}` }));
    try {
      expect(await waitUntil(() => /Temporal at 127\.0\.0\.1:\d+ is unreachable/.test(w.stderr()), 60_000)).toBe(true);
      await sleep(3000);
      expect(w.exited()).toBeUndefined(); // still waiting, not exited
      expect(w.stderr()).toMatch(/the worker waits for it and starts when it answers/);
      const server = await startDevServer({
        cliPath: findTemporalCli(),
        dataDir: mkdtempSync(join(tmpdir(), 'dar-wait-temporal-')),
        dbFilename: null,
        port,
        searchAttributes: { ...SEARCH_ATTRIBUTES },
        logLevel: 'error',
      });
      try {
        expect(await waitUntil(() => w.stderr().includes('worker polling'), 60_000)).toBe(true);
        expect(w.stderr()).toMatch(/Temporal at 127\.0\.0\.1:\d+ answers after \d+ s/);
      } finally {
        await w.stop();
        await server.stop();
      }
    } finally {
      await w.stop();
    }
  });

  test('worker start: the PostgreSQL store down at start: the worker waits for it and starts once it is back', async () => {
    const pg = await startPostgresProcess();
    try {
      const url = await pg.createDatabase(`wait_${randomUUID().slice(0, 8)}`);
      await pg.halt();
      const address = process.env['TEST_TEMPORAL_ADDRESS'] as string;
      const w = startWorker(workerEnv({ TEMPORAL_ADDRESS: address, AGENT_RUNNER_STORE_URL: url }));
      try {
        expect(await waitUntil(() => /the PostgreSQL transcript store is unreachable/.test(w.stderr()), 60_000)).toBe(
          true,
        );
        await sleep(2000);
        expect(w.exited()).toBeUndefined();
        await pg.restart();
        expect(await waitUntil(() => w.stderr().includes('worker polling'), 60_000)).toBe(true);
      } finally {
        await w.stop();
      }
    } finally {
      await pg.stop();
    }
  });
});
