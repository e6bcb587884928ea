/**
 * Start-up of the CLI: each command loads only what it uses, and a run that cannot work fails
 * before anything starts, with an error that says what to do.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { startRunnerEnv } from '../helpers/runner-env';

const PRELOAD = join(__dirname, '..', 'helpers', 'report-loaded-modules.js');

function baseEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, AGENT_RUNNER_DATA_DIR: dataDir };
  for (const k of [
    'TEMPORAL_ADDRESS',
    'AGENT_RUNNER_CONFIG',
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_BASE_URL',
    'NODE_OPTIONS',
  ])
    delete env[k];
  return env;
}

/** Runs the CLI and returns its result plus the modules it loaded. */
async function runAndTrace(args: string[], env: NodeJS.ProcessEnv) {
  const out = join(mkdtempSync(join(tmpdir(), 'dar-mods-')), 'mods.json');
  const r = await runCli(args, {
    env: { ...env, NODE_OPTIONS: `--require ${PRELOAD}`, LOADED_MODULES_OUT: out },
    cwd: tmpdir(),
  });
  const modules = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as string[]) : [];
  return { ...r, modules };
}

const has = (mods: string[], re: RegExp): string[] => mods.filter((m) => re.test(m));
const TEMPORAL = /node_modules\/@temporalio\//;
const WORKER_SIDE =
  /node_modules\/(@temporalio\/worker|@temporalio\/core-bridge|webpack|@anthropic-ai\/sdk|pg)\/|dist\/src\/(worker\/(worker|workflow-bundle|logging)|host\/dev-server|activities\/)/;

describe('agent-runner start-up', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dar-startup-'));

  test('--help, --version and usage errors: load no Temporal, worker, bundler or model SDK code', async () => {
    for (const [args, code] of [
      [['--help'], 0],
      [['--version'], 0],
      [['status', '--help'], 0],
      [['--no-such-flag'], 2],
      [['-p', 'hi', '--output-format', 'yaml'], 2],
    ] as Array<[string[], number]>) {
      const r = await runAndTrace(args, baseEnv(dataDir));
      expect({ args, code: r.code }).toEqual({ args, code });
      expect(r.modules.length).toBeGreaterThan(0);
      expect({ args, temporal: has(r.modules, TEMPORAL) }).toEqual({ args, temporal: [] });
    }
  });

  test('control commands: load the Temporal client but no worker, bundler, dev-server launcher or model SDK', async () => {
    const r = await runAndTrace(['status', 'some-session'], baseEnv(dataDir));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('needs a running Temporal server');
    expect(has(r.modules, /node_modules\/@temporalio\/client\//).length).toBeGreaterThan(0);
    expect(has(r.modules, WORKER_SIDE)).toEqual([]);
  });

  test('-p with an unwritable data directory: exit 2 naming the directory and the setting, nothing started', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'dar-ro-'));
    writeFileSync(join(parent, 'file'), '');
    const bad = join(parent, 'file', 'data'); // a file is in the way: cannot be created
    const env = { ...baseEnv(bad), ANTHROPIC_API_KEY: 'k' };
    const r = await runCli(['-p', 'hello'], { env, cwd: tmpdir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the data directory ${bad} is not writable`);
    expect(r.stderr).toContain('AGENT_RUNNER_DATA_DIR');
    expect(r.stderr).not.toMatch(/ENOTDIR|at .*\.js:\d+/);
    expect(readdirSync(parent)).toEqual(['file']);
  });

  test('-p with an empty or whitespace-only prompt (argument or stdin): exit 2 as claude -p refuses it, nothing started', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'dar-empty-'));
    const env = { ...baseEnv(fresh), ANTHROPIC_API_KEY: 'k' };
    for (const [args, input, says] of [
      [['-p', ''], undefined, 'input must be provided either through stdin or as a prompt argument'],
      [['-p', ' \n\t '], undefined, 'input contained only whitespace'],
      [['-p'], '', 'input must be provided either through stdin or as a prompt argument'],
      [['-p'], '   \n', 'input contained only whitespace'],
    ] as Array<[string[], string | undefined, string]>) {
      const r = await runCli(args, { env, cwd: tmpdir(), ...(input !== undefined ? { input } : {}) });
      expect({ args, input, code: r.code, stdout: r.stdout }).toEqual({ args, input, code: 2, stdout: '' });
      expect(r.stderr).toContain(says);
    }
    expect(readdirSync(fresh)).toEqual([]);
  });

  test('-p with no model API key and no server: exit 2 before a dev server starts', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'dar-nokey-'));
    const started = Date.now();
    const r = await runCli(['-p', 'hello'], { env: baseEnv(fresh), cwd: tmpdir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('ANTHROPIC_API_KEY is not set');
    expect(readdirSync(fresh).filter((f) => !f.startsWith('.'))).toEqual([]);
    expect(Date.now() - started).toBeLessThan(30_000); // a started dev server would show up in the data dir
  });

  test('-p against a running server: runs the turn without loading the worker, bundler or model SDK', async () => {
    const env = await startRunnerEnv({
      scenario: { steps: [{ content: [{ text: 'hello from the model' }] }] },
    });
    try {
      const r = await runAndTrace(['-p', 'say hello', '--output-format', 'json'], {
        ...baseEnv(env.dataDir),
        ...env.workerEnv,
      });
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(r.stdout)).toMatchObject({ subtype: 'success', result: 'hello from the model' });
      expect(has(r.modules, WORKER_SIDE)).toEqual([]);
    } finally {
      await env.close();
    }
  });
});
