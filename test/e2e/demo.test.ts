/**
 * The main demo end to end, as a new user runs it (`node dist/demo/run-demo.js`, built by the
 * pretest): ms@2.1.3 from the npm registry, the injected bug, `agent-runner -p` on the embedded
 * Temporal dev server, and the local model server (ANTHROPIC_API_KEY removed).
 * Needs the npm registry, git and a Temporal CLI (`npm run setup:temporal`, TEMPORAL_CLI_PATH or PATH).
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

jest.setTimeout(600_000);

const REPO_ROOT = path.resolve(__dirname, '../..');
const DEMO_JS = path.join(REPO_ROOT, 'dist', 'demo', 'run-demo.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runNode(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('npm run demo', () => {
  const cleanup: string[] = [];
  afterAll(() => {
    for (const dir of cleanup) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('--help describes the demo without running it', async () => {
    const r = await runNode([DEMO_JS, '--help'], process.env, 60_000);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('ms@2.1.3');
    expect(r.stdout).toContain('--no-keep');
  });

  test('the agent fixes the injected bug in ms@2.1.3 with the local model server', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dar-demo-data-'));
    cleanup.push(dataDir);
    const env: NodeJS.ProcessEnv = { ...process.env, AGENT_RUNNER_DATA_DIR: dataDir };
    for (const name of [
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_BASE_URL',
      'TEMPORAL_ADDRESS',
      'AGENT_RUNNER_CONFIG',
      'AGENT_RUNNER_TASK_QUEUE',
      'NODE_TEST_CONTEXT',
    ]) {
      delete env[name];
    }

    const r = await runNode([DEMO_JS], env, 540_000);
    const repo = /^\[demo\] repository: (.+)$/m.exec(r.stderr)?.[1]?.trim();
    if (repo !== undefined) cleanup.push(path.dirname(repo));
    const context = `exit ${String(r.code)}\n--- stderr ---\n${r.stderr.slice(-6000)}`;

    expect({ code: r.code, context }).toEqual({ code: 0, context });

    // stdout: only stream-json messages, the last one the success result.
    const lines = r.stdout.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThan(2);
    const messages = lines.map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        throw new Error(`a stdout line is not JSON: ${l.slice(0, 300)}`);
      }
    });
    expect(r.stdout.endsWith('\n')).toBe(true);
    const last = messages[messages.length - 1];
    expect(last).toMatchObject({ type: 'result', subtype: 'success', is_error: false });
    expect(messages[0]).toMatchObject({ type: 'system', subtype: 'init' });

    // The agent edited the source with an Edit tool call.
    const toolUses = messages
      .filter((m) => m['type'] === 'assistant')
      .flatMap((m) => (m['message'] as { content?: Array<Record<string, unknown>> }).content ?? [])
      .filter((b) => b['type'] === 'tool_use');
    const edits = toolUses.filter((b) => b['name'] === 'Edit');
    expect(edits).toHaveLength(1);
    expect(String((edits[0]?.['input'] as Record<string, unknown>)['file_path'])).toMatch(/index\.js$/);
    expect(toolUses.filter((b) => b['name'] === 'Bash')).toHaveLength(2);

    // The demo's own report, and the package's tests re-run here.
    expect(r.stderr).toContain('npm test fails as intended');
    expect(r.stderr).toContain('npm test PASSES');
    expect(r.stderr).toContain('ANTHROPIC_API_KEY is not set');
    expect(repo).toBeDefined();
    const repoDir = repo ?? '';
    const source = fs.readFileSync(path.join(repoDir, 'index.js'), 'utf8');
    expect(source).toContain("  if (msAbs >= m) {\n    return Math.round(ms / m) + 'm';");
    const envForTests = { ...env };
    const npmTest = spawnSync('npm', ['test'], { cwd: repoDir, env: envForTests, encoding: 'utf8', timeout: 120_000 });
    expect({ status: npmTest.status, out: npmTest.stdout }).toMatchObject({ status: 0 });
    expect(npmTest.stdout).toMatch(/fail 0/);
    // The test file is the one the demo committed: the fix is in the source.
    const changed = spawnSync('git', ['status', '--porcelain'], { cwd: repoDir, encoding: 'utf8' });
    expect(changed.stdout.trim()).toBe('M index.js');

    // The session is in the data directory (transcripts under AGENT_RUNNER_DATA_DIR).
    expect(fs.readdirSync(dataDir).length).toBeGreaterThan(0);
  });
});
