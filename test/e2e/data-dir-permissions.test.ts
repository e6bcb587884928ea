/**
 * The data directory is private (issue 18): a run in an existing 0755 data directory repairs it,
 * and everything the runner creates there (transcripts, content blobs, stream events, server
 * state, locks, logs, the socket) cannot be read by another user.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModelServer } from '../../src/fake-model';
import type { FakeModelServer } from '../../src/fake-model';
import { runCli } from '../helpers/cli';
import { makeRepo } from '../helpers/runner-env';

jest.setTimeout(180_000);

let fake: FakeModelServer;
beforeAll(async () => {
  fake = await startFakeModelServer({
    scenario: {
      steps: [
        { content: [{ tool_use: { name: 'Bash', input: { command: 'echo hi', description: 'x' } } }] },
        { content: [{ text: 'Done.' }] },
      ],
    },
  });
});
afterAll(async () => fake?.close());

function walk(dir: string, out: Array<{ path: string; mode: number; kind: string }> = []): typeof out {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = lstatSync(p);
    const kind = st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'link' : st.isSocket() ? 'socket' : 'file';
    out.push({ path: p, mode: st.mode & 0o777, kind });
    if (st.isDirectory()) walk(p, out);
  }
  return out;
}

describe('data directory permissions', () => {
  test('an existing 0755 data directory is repaired, and nothing the run creates there is open to other users', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const dataDir = join(mkdtempSync(join(tmpdir(), 'dd-perm-')), 'data');
    mkdirSync(join(dataDir, 'sessions'), { recursive: true });
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'sessions'), 0o755);
    const old = join(dataDir, 'sessions', 'earlier.jsonl');
    writeFileSync(old, '{"secret":"an earlier transcript"}\n');
    chmodSync(old, 0o644);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: mkdtempSync(join(tmpdir(), 'dd-perm-home-')),
      ANTHROPIC_BASE_URL: fake.baseUrl,
      ANTHROPIC_API_KEY: 'test',
      AGENT_RUNNER_DATA_DIR: dataDir,
    };
    delete env['TEMPORAL_ADDRESS'];
    try {
      const r = await runCli(
        ['-p', 'say hi', '--cwd', repo, '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash'],
        { env },
      );
      expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, stderr: '' });
      expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
      // Also the embedded Temporal database and its -wal and -shm files.
      const open = walk(dataDir).filter((e) => e.kind !== 'link' && (e.mode & 0o077) !== 0);
      expect(open).toEqual([]);
      expect(lstatSync(old).mode & 0o777).toBe(0o600);
      const transcripts = readdirSync(join(dataDir, 'sessions')).filter((n) => n.endsWith('.jsonl'));
      expect(transcripts.length).toBeGreaterThan(1);
      // Another user (nobody) cannot read a transcript, as the attacker did.
      const setpriv = spawnSync('setpriv', ['--version']);
      if (process.getuid?.() === 0 && setpriv.status === 0) {
        const t = join(dataDir, 'sessions', transcripts.find((n) => n !== 'earlier.jsonl') ?? '');
        const asNobody = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'cat', t], {
          encoding: 'utf8',
        });
        expect(asNobody.status).not.toBe(0);
        expect(asNobody.stderr).toMatch(/Permission denied/);
      }
    } finally {
      await runCli(['server', 'stop'], { env }).catch(() => undefined);
      if (existsSync(dataDir)) rmSync(join(dataDir, '..'), { recursive: true, force: true });
    }
  });
});
