import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError, ConfigSchema, DEFAULT_PRICES, loadConfig, type Config } from '../../../src/config';

const REPO_ROOT = path.resolve(__dirname, '../../..');
const SHIPPED = path.join(REPO_ROOT, 'temporal.yaml');

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'config-test-'));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** An environment with nothing set but HOME, so the host's variables never leak into a test. */
const cleanEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ HOME: '/home/tester', ...extra });

function writeConfig(text: string, name = 'temporal.yaml'): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, text);
  return file;
}

function loadError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('config defaults', () => {
  test('config: built-in defaults equal the shipped temporal.yaml', () => {
    const fromFile = loadConfig({ path: SHIPPED, env: cleanEnv(), cwd: tmp });
    const builtIn = loadConfig({ env: cleanEnv(), cwd: tmp });
    expect(builtIn).toEqual(fromFile);
  });

  test('config: the shipped prices table equals DEFAULT_PRICES key for key', () => {
    // The file's table is merged over the built-ins, so compare the raw schema parse of the file.
    const raw = parseYaml(fs.readFileSync(SHIPPED, 'utf8')) as { prices: unknown };
    expect(raw.prices).toEqual({ ...DEFAULT_PRICES });
  });

  test('config: the shipped temporal.yaml sets every field of the schema explicitly', () => {
    const raw = parseYaml(fs.readFileSync(SHIPPED, 'utf8')) as Record<string, unknown>;
    const defaults = ConfigSchema.parse({}) as unknown as Record<string, unknown>;
    const keyPaths = (o: unknown, prefix = ''): string[] =>
      typeof o === 'object' && o !== null && !Array.isArray(o)
        ? Object.entries(o).flatMap(([k, v]) => (prefix === 'prices.' ? [] : keyPaths(v, `${prefix}${k}.`)))
        : [prefix];
    expect(keyPaths(raw).sort()).toEqual(keyPaths(defaults).sort());
  });

  test('config: defaults have the documented values', () => {
    const c: Config = loadConfig({ env: cleanEnv(), cwd: tmp });
    expect(c.temporal).toEqual({
      address: null,
      namespace: 'default',
      taskQueue: 'agent-runner',
      tls: { enabled: null, serverCaCertPath: null, clientCertPath: null, clientKeyPath: null },
      apiKeyEnv: 'TEMPORAL_API_KEY',
      outageTimeoutMs: 600000,
    });
    expect(c.devServer).toEqual({
      cliPath: null,
      ip: '127.0.0.1',
      port: 0,
      uiPort: 8233,
      ui: false,
      dbFilename: 'temporal.db',
      startTimeoutMs: 60000,
      logLevel: 'warn',
      idleTimeoutMs: 600000,
      spareClients: 1,
      dynamicConfig: {},
      sqlitePragmas: {},
    });
    expect(c.worker.maxCachedWorkflows).toBe(500);
    expect(c.model.name).toBe('sonnet');
    expect(c.model.baseUrl).toBeNull();
    expect(c.tools).toEqual({
      bashTimeoutMs: 120000,
      bashOutputLimitChars: 8_000_000,
      largeResultChars: 30_000,
      secretEnv: [],
    });
    expect(c.store).toEqual({
      url: null,
      maxContentBytes: 268435456,
      poolSize: 10,
      connectTimeoutMs: 10000,
      outageTimeoutMs: 600000,
    });
    expect(c.dataDir).toBe('/home/tester/.agent-runner');
  });
});

describe('config file lookup', () => {
  test('config: temporal.yaml in cwd is used when present', () => {
    writeConfig('worker:\n  maxCachedWorkflows: 7\n');
    expect(loadConfig({ env: cleanEnv(), cwd: tmp }).worker.maxCachedWorkflows).toBe(7);
  });

  test('config: AGENT_RUNNER_CONFIG wins over temporal.yaml in cwd', () => {
    writeConfig('worker:\n  maxCachedWorkflows: 7\n');
    writeConfig('worker:\n  maxCachedWorkflows: 9\n', 'other.yaml');
    const c = loadConfig({ env: cleanEnv({ AGENT_RUNNER_CONFIG: 'other.yaml' }), cwd: tmp });
    expect(c.worker.maxCachedWorkflows).toBe(9);
  });

  test('config: an explicit path wins over AGENT_RUNNER_CONFIG', () => {
    writeConfig('worker:\n  maxCachedWorkflows: 9\n', 'other.yaml');
    const explicit = writeConfig('worker:\n  maxCachedWorkflows: 11\n', 'explicit.yaml');
    const c = loadConfig({ path: explicit, env: cleanEnv({ AGENT_RUNNER_CONFIG: 'other.yaml' }), cwd: tmp });
    expect(c.worker.maxCachedWorkflows).toBe(11);
  });

  test('config: a partial file keeps the defaults of the fields it omits', () => {
    const file = writeConfig('temporal:\n  namespace: agents\n');
    const c = loadConfig({ path: file, env: cleanEnv(), cwd: tmp });
    expect(c.temporal.namespace).toBe('agents');
    expect(c.temporal.taskQueue).toBe('agent-runner');
    expect(c.worker.maxConcurrentWorkflowTaskExecutions).toBe(40);
  });

  test('config: an empty file gives the defaults', () => {
    const file = writeConfig('# nothing here\n');
    expect(loadConfig({ path: file, env: cleanEnv(), cwd: tmp })).toEqual(loadConfig({ env: cleanEnv(), cwd: tmp }));
  });

  test('config: prices of the file are added to the built-in table', () => {
    const file = writeConfig(
      'prices:\n  my-model: { input: 1, output: 2, cacheWrite5m: 3, cacheWrite1h: 4, cacheRead: 0.5 }\n',
    );
    const c = loadConfig({ path: file, env: cleanEnv(), cwd: tmp });
    expect(c.prices['my-model']).toEqual({ input: 1, output: 2, cacheWrite5m: 3, cacheWrite1h: 4, cacheRead: 0.5 });
    expect(c.prices['claude-sonnet-4-5']).toEqual(DEFAULT_PRICES['claude-sonnet-4-5']);
  });

  test('config: a relative dataDir in a file resolves against the file directory, ~ expands', () => {
    const sub = path.join(tmp, 'conf');
    fs.mkdirSync(sub);
    fs.writeFileSync(path.join(sub, 'a.yaml'), 'dataDir: data\ndevServer:\n  cliPath: ~/bin/temporal\n');
    const c = loadConfig({ path: 'conf/a.yaml', env: cleanEnv(), cwd: tmp });
    expect(c.dataDir).toBe(path.join(sub, 'data'));
    expect(c.devServer.cliPath).toBe('/home/tester/bin/temporal');
  });
});

describe('config environment overrides', () => {
  test('config: environment variables override the file', () => {
    const file = writeConfig(
      [
        'temporal:',
        '  address: file-host:7233',
        '  namespace: file-ns',
        '  taskQueue: file-q',
        'devServer:',
        '  cliPath: /file/temporal',
        'model:',
        '  name: file-model',
        '  baseUrl: http://file.example',
        'dataDir: /file/data',
        '',
      ].join('\n'),
    );
    const c = loadConfig({
      path: file,
      cwd: tmp,
      env: cleanEnv({
        TEMPORAL_ADDRESS: 'env-host:7233',
        TEMPORAL_NAMESPACE: 'env-ns',
        AGENT_RUNNER_TASK_QUEUE: 'env-q',
        TEMPORAL_CLI_PATH: '/env/temporal',
        AGENT_RUNNER_DATA_DIR: '~/env-data',
        AGENT_RUNNER_MODEL: 'env-model',
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:9999',
      }),
    });
    expect(c.temporal.address).toBe('env-host:7233');
    expect(c.temporal.namespace).toBe('env-ns');
    expect(c.temporal.taskQueue).toBe('env-q');
    expect(c.devServer.cliPath).toBe('/env/temporal');
    expect(c.dataDir).toBe('/home/tester/env-data');
    expect(c.model.name).toBe('env-model');
    expect(c.model.baseUrl).toBe('http://127.0.0.1:9999');
  });

  test('config: environment variables apply without a file, and empty ones are ignored', () => {
    const c = loadConfig({ cwd: tmp, env: cleanEnv({ TEMPORAL_ADDRESS: 'h:1', AGENT_RUNNER_MODEL: '' }) });
    expect(c.temporal.address).toBe('h:1');
    expect(c.model.name).toBe('sonnet');
  });

  test('config: a relative AGENT_RUNNER_DATA_DIR resolves against cwd', () => {
    const c = loadConfig({ cwd: tmp, env: cleanEnv({ AGENT_RUNNER_DATA_DIR: 'd' }) });
    expect(c.dataDir).toBe(path.join(tmp, 'd'));
  });

  test('config: a bad TEMPORAL_ADDRESS names the environment variable', () => {
    const err = loadError(() => loadConfig({ cwd: tmp, env: cleanEnv({ TEMPORAL_ADDRESS: 'no port here' }) }));
    expect(err.message).toContain('temporal.address (from env TEMPORAL_ADDRESS)');
    expect(err.message).toContain('expected host:port or null, got "no port here"');
    expect(err.file).toBeNull();
  });
});

describe('config errors', () => {
  test('config: a negative maxCachedWorkflows names the field', () => {
    const file = writeConfig('worker:\n  maxConcurrentWorkflowTaskExecutions: 4\n  maxCachedWorkflows: -1\n');
    const err = loadError(() => loadConfig({ path: file, env: cleanEnv(), cwd: tmp }));
    expect(err.message).toContain(file);
    expect(err.message).toContain('worker.maxCachedWorkflows');
    expect(err.message).toContain('expected a positive integer, got -1');
    expect(err.message).toContain(`${file}:3:`);
    expect(err.issues).toEqual([
      { path: 'worker.maxCachedWorkflows', message: 'expected a positive integer, got -1', line: 3 },
    ]);
  });

  test('config: a string where a number belongs is reported with its value', () => {
    const file = writeConfig('model:\n  maxTokens: lots\n');
    const err = loadError(() => loadConfig({ path: file, env: cleanEnv(), cwd: tmp }));
    expect(err.message).toContain('model.maxTokens: expected a positive integer or null, got "lots"');
  });

  test('config: an unknown key is an error and suggests the closest field', () => {
    const file = writeConfig('worker:\n  maxCachedWorkflow: 5\n');
    const err = loadError(() => loadConfig({ path: file, env: cleanEnv(), cwd: tmp }));
    expect(err.message).toContain('worker.maxCachedWorkflow');
    expect(err.message).toContain('unknown key (did you mean "maxCachedWorkflows"?)');
    expect(err.issues[0]?.line).toBe(2);
  });

  test('config: an unknown top-level section is an error', () => {
    const file = writeConfig('temporall:\n  address: x:1\n');
    const err = loadError(() => loadConfig({ path: file, env: cleanEnv(), cwd: tmp }));
    expect(err.message).toContain('temporall: unknown key (did you mean "temporal"?)');
  });

  test('config: an unknown key in a price entry is an error', () => {
    const file = writeConfig(
      'prices:\n  m: { input: 1, output: 2, cacheWrite5m: 3, cacheWrite1h: 4, cacheRead: 0.5, cacheRaed: 1 }\n',
    );
    const err = loadError(() => loadConfig({ path: file, env: cleanEnv(), cwd: tmp }));
    expect(err.message).toContain('prices.m.cacheRaed: unknown key (did you mean "cacheRead"?)');
  });

  test('config: a price entry with a missing field says so', () => {
    const file = writeConfig('prices:\n  m: { input: 1, output: 2, cacheWrite5m: 3, cacheWrite1h: 4 }\n');
    const err = loadError(() => loadConfig({ path: file, env: cleanEnv(), cwd: tmp }));
    expect(err.message).toContain('prices.m.cacheRead');
    expect(err.message).toContain('the field is missing');
  });

  test('config: bad YAML names the file and the line', () => {
    const file = writeConfig('temporal:\n  namespace: a\n  taskQueue: [unclosed\nworker: {\n');
    const err = loadError(() => loadConfig({ path: file, env: cleanEnv(), cwd: tmp }));
    expect(err.message).toContain(file);
    expect(err.message).toMatch(/invalid YAML/);
    expect(err.issues[0]?.line).toEqual(expect.any(Number));
    expect(err.message).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: invalid YAML`));
  });

  test('config: a duplicate key is a YAML error with its line', () => {
    const file = writeConfig('worker:\n  maxCachedWorkflows: 1\n  maxCachedWorkflows: 2\n');
    const err = loadError(() => loadConfig({ path: file, env: cleanEnv(), cwd: tmp }));
    expect(err.message).toMatch(/invalid YAML/);
    expect(err.issues[0]?.line).toBe(3);
  });

  test('config: a missing explicit file is an error naming it', () => {
    const missing = path.join(tmp, 'nope.yaml');
    const err = loadError(() => loadConfig({ path: missing, env: cleanEnv(), cwd: tmp }));
    expect(err.message).toContain(missing);
    expect(err.message).toContain('file not found');
  });

  test('config: a missing AGENT_RUNNER_CONFIG file is an error', () => {
    const err = loadError(() => loadConfig({ env: cleanEnv({ AGENT_RUNNER_CONFIG: 'gone.yaml' }), cwd: tmp }));
    expect(err.message).toContain(path.join(tmp, 'gone.yaml'));
  });

  test('config: a top level that is not a mapping is an error', () => {
    const file = writeConfig('- a\n- b\n');
    const err = loadError(() => loadConfig({ path: file, env: cleanEnv(), cwd: tmp }));
    expect(err.message).toContain('expected a mapping at the top level, got a list');
  });

  test('config: several problems are all reported', () => {
    const file = writeConfig('devServer:\n  port: 70000\n  logLevel: loud\nmodel:\n  baseUrl: ftp://x\n');
    const err = loadError(() => loadConfig({ path: file, env: cleanEnv(), cwd: tmp }));
    expect(err.issues.map((i) => i.path).sort()).toEqual(['devServer.logLevel', 'devServer.port', 'model.baseUrl']);
    expect(err.message).toContain('devServer.port: expected a port number (0-65535, 0 = a free port), got 70000');
    expect(err.message).toContain('devServer.logLevel: expected one of debug, info, warn, error, never, got "loud"');
    expect(err.message).toContain('model.baseUrl: expected an http(s) URL or null, got "ftp://x"');
  });

  test('config: a section that is not a mapping is an error', () => {
    const file = writeConfig('worker: 5\n');
    const err = loadError(() => loadConfig({ path: file, env: cleanEnv(), cwd: tmp }));
    expect(err.message).toContain('worker:');
    expect(err.message).toContain('got 5');
  });
});
