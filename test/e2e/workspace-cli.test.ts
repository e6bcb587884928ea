import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { JsonlTranscriptStore } from '../../src/store';
import { snapshotKey } from '../../src/common/workspace';
import { runCli } from '../helpers/cli';
import { startRunnerEnv, type RunnerEnv } from '../helpers/runner-env';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

function gitRepo(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ws-cli-'));
  fs.writeFileSync(path.join(dir, 'a.txt'), 'a\n');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  return dir;
}

describe('workspace: bad input is a clear error (exit 2) and loses nothing', () => {
  let env: RunnerEnv | undefined;
  let worker: WorkerProcess | undefined;
  afterEach(async () => {
    await worker?.stop();
    await env?.close();
  });

  test('workspace: a worker whose workspace root cannot be written refuses to start (exit 2)', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ws-root-')), 'a-file');
    fs.writeFileSync(file, 'not a directory');
    const r = await runCli(['worker'], {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: process.env['TEST_TEMPORAL_ADDRESS'],
        ANTHROPIC_API_KEY: 'test-key',
        AGENT_RUNNER_DATA_DIR: path.dirname(file),
        AGENT_RUNNER_WORKSPACE_ROOT: `${file}/workspaces`,
      },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the workspace root ${file}/workspaces cannot be written (ENOTDIR)`);
    expect(r.stderr).toContain('AGENT_RUNNER_WORKSPACE_ROOT');
  });

  test('workspace: a snapshot over the limit stops the turn with exit 2; the tree, the transcript and the last snapshot are kept', async () => {
    env = await startRunnerEnv({
      worker: false,
      scenario: {
        steps: [
          { content: [{ tool_use: { name: 'Write', input: { file_path: '{{cwd}}/small.txt', content: 'small\n' } } }] },
          { content: [{ tool_use: { name: 'Bash', input: { command: 'head -c 300000 /dev/urandom > big.bin' } } }] },
          { content: [{ text: 'never asked' }] },
        ],
      },
    });
    const configFile = path.join(env.dataDir, 'limits.yaml');
    fs.writeFileSync(configFile, 'workspace:\n  maxSnapshotBytes: 50000\n');
    const cliEnv = {
      ...env.workerEnv,
      AGENT_RUNNER_CONFIG: configFile,
      TEMPORAL_ADDRESS: process.env['TEST_TEMPORAL_ADDRESS'],
    };
    worker = await startWorkerProcess(cliEnv);
    const repo = gitRepo();
    const r = await runCli(
      ['-p', 'make a big file', '--output-format', 'json', '--cwd', repo, '--dangerously-skip-permissions'],
      {
        env: cliEnv,
      },
    );
    expect(r.code).toBe(2);
    const result = JSON.parse(r.stdout) as {
      subtype: string;
      terminal_reason: string;
      errors: string[];
      session_id: string;
    };
    expect(result).toMatchObject({
      subtype: 'error_during_execution',
      terminal_reason: 'workspace_snapshot_too_large',
    });
    expect(result.errors.join('\n')).toMatch(/larger than workspace\.maxSnapshotBytes \(50000 bytes.*intact/);

    // Nothing lost: the file is in the tree, the transcript has the call, the previous snapshot is stored.
    expect(fs.statSync(path.join(repo, 'big.bin')).size).toBe(300_000);
    const store = new JsonlTranscriptStore(env.dataDir);
    const lines = await store.load(result.session_id);
    expect(JSON.stringify(lines)).toContain('head -c 300000');
    const snaps = await store.listContent(result.session_id, 'workspace/snapshot/');
    expect(snaps).toHaveLength(1);
    // Export rebuilds the state before the refused call.
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ws-export-')), 'tree');
    const ex = await runCli(['workspace', 'export', result.session_id, '--to', out], { env: cliEnv });
    expect(ex.code).toBe(0);
    expect(fs.readFileSync(path.join(out, 'small.txt'), 'utf8')).toBe('small\n');
    expect(fs.existsSync(path.join(out, 'big.bin'))).toBe(false);
    expect(snaps[0]!.key).toBe(snapshotKey(snaps[0]!.key.split('/').pop()!));

    const again = await runCli(['workspace', 'export', result.session_id, '--to', out], { env: cliEnv });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('exists and is not empty');
  });
});
