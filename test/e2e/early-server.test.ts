/**
 * The background server, started early: a `-p` run that will need it spawns it once its flags,
 * prompt and config are checked, before loading its client code; a run that ends without using
 * it leaves nothing behind.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readServerState } from '../../src/host/server-state';
import { BIN, runCli } from '../helpers/cli';
import { isProcessAlive, waitUntil } from '../helpers/processes';

jest.setTimeout(180_000);

describe('early background server', () => {
  test('early start: a run killed before it used the server it spawned leaves no server behind', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dar-early-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      AGENT_RUNNER_DATA_DIR: dataDir,
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', // never called
    };
    for (const k of ['TEMPORAL_ADDRESS', 'AGENT_RUNNER_CONFIG', 'AGENT_RUNNER_NO_DAEMON', 'NODE_OPTIONS'])
      delete env[k];
    try {
      const client = spawn(process.execPath, [BIN, '-p', 'hello'], { env, cwd: tmpdir(), stdio: 'ignore' });
      const log = join(dataDir, 'server.log');
      // The server is spawned (its log opened) while the client is still loading.
      expect(await waitUntil(() => existsSync(log), 30_000)).toBe(true);
      client.kill('SIGKILL');
      // It comes up, sees its run gone without having used it, and stops.
      expect(
        await waitUntil(() => readFileSync(log, 'utf8').includes('unused by the run that started it'), 120_000),
      ).toBe(true);
      expect(await waitUntil(() => readFileSync(log, 'utf8').includes('stopped'), 60_000)).toBe(true);
      const state = readServerState(dataDir);
      expect(state === null || !isProcessAlive(state.ownerPid ?? state.pid)).toBe(true);
    } finally {
      await runCli(['server', 'stop'], { env, cwd: tmpdir() }).catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
