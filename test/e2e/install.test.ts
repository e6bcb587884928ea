/**
 * The package installed outside the checkout, as a user gets it: `npm pack` of the built tree,
 * `npm install -g` of the tarball into a temporary prefix, then `agent-runner` in a repository
 * that has nothing to do with this checkout. Needs the npm registry (or its cache) for the
 * dependencies.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModelServer, type FakeModelServer } from '../../src/fake-model';
import { findTemporalCli } from '../../src/host/dev-server';

jest.setTimeout(600_000);

const ROOT = join(__dirname, '..', '..');

function run(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

describe('installed package', () => {
  let work: string;
  let prefix: string;
  let fake: FakeModelServer;
  let bin: string;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'dar-install-'));
    prefix = join(work, 'prefix');
    // The tree is built (pretest); pack it as it is.
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: ROOT, stdio: 'pipe' });
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error('npm pack made no tarball');
    const r = spawnSync(
      'npm',
      ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(work, tarball)],
      { cwd: work, encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`npm install -g failed:\n${r.stderr}`);
    bin = join(prefix, 'bin', 'agent-runner');
    fake = await startFakeModelServer({
      responder: (req, ctx) =>
        ctx.step === 0
          ? { content: [{ tool_use: { name: 'Bash', input: { command: 'git status --short && cat notes.txt' } } }] }
          : { content: [{ text: 'the notes say hi' }] },
    });
  });
  afterAll(async () => {
    await fake?.close();
    rmSync(work, { recursive: true, force: true });
  });

  test('install: the tarball holds the built code, the prebuilt workflow bundle and no sources or tests', () => {
    const root = join(prefix, 'lib', 'node_modules', ...PKG.name.split('/'));
    const files = execFileSync('find', ['.', '-path', './node_modules', '-prune', '-o', '-type', 'f', '-print'], {
      cwd: root,
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean);
    expect(files).toContain('./dist/workflow-bundle/workflow-bundle.js');
    expect(files).toContain('./scripts/install-temporal-cli.sh');
    expect(files.filter((f) => /^\.\/(src|test|bench|demo)\//.test(f) || f.startsWith('./dist/bench/'))).toEqual([]);
    const fresh = execFileSync(
      process.execPath,
      [
        '-e',
        `process.stdout.write(JSON.stringify(require('./dist/src/worker/workflow-bundle.js').loadPrebuiltBundle().ok))`,
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(fresh).toBe('true');
  });

  test('install: agent-runner runs a turn in an unrelated repository; the client entry resolves by its package name', async () => {
    const repo = join(work, 'some-repo');
    execFileSync('git', ['init', '-q', repo]);
    writeFileSync(join(repo, 'notes.txt'), 'hi\n');
    const env: NodeJS.ProcessEnv = {
      PATH: `${join(prefix, 'bin')}:${process.env['PATH'] ?? ''}`,
      HOME: work,
      AGENT_RUNNER_DATA_DIR: join(work, 'data'),
      ANTHROPIC_BASE_URL: fake.baseUrl,
      ANTHROPIC_API_KEY: 'k',
      TEMPORAL_CLI_PATH: findTemporalCli(),
    };
    expect(spawnSync(bin, ['--version'], { env, encoding: 'utf8' }).stdout.trim()).toBe(PKG.version);
    // Asynchronously: the local model server answers from this process.
    const r = await run(bin, ['-p', 'what do the notes say?', '--allowedTools', 'Bash', '--output-format', 'json'], {
      cwd: repo,
      env,
    });
    try {
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
      expect(JSON.parse(r.stdout)).toMatchObject({ subtype: 'success', result: 'the notes say hi' });
    } finally {
      await run(bin, ['server', 'stop'], { cwd: repo, env });
    }
    const client = spawnSync(
      process.execPath,
      [
        '-e',
        `const c = require('${PKG.name}/client'); process.stdout.write(typeof c.QueryEngine + ' ' + typeof c.connectClient)`,
      ],
      { cwd: work, env: { ...env, NODE_PATH: join(prefix, 'lib', 'node_modules') }, encoding: 'utf8' },
    );
    expect(client.stdout).toBe('function function');
  });
});
