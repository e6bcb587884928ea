import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '../../../src/config';
import { TemporalProfileError, loadTemporalProfile } from '../../../src/config/temporal-profile';
import { TemporalConnectionConfigError, temporalConnectionOptions } from '../../../src/connection/temporal-connection';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'profile-test-'));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

const TOML = [
  '[profile.default]',
  'address = "default.example.com:7233"',
  'namespace = "ns-default"',
  '',
  '[profile.prod]',
  'address = "prod.example.com:7233"',
  'namespace = "ns-prod"',
  'api_key = "key-from-profile"',
  '[profile.prod.grpc_meta]',
  'x-team = "platform"',
  '',
].join('\n');

function write(rel: string, text: string): string {
  const file = path.join(tmp, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

describe('Temporal profiles: which file and profile', () => {
  test('profiles: the default path ($XDG_CONFIG_HOME/temporalio/temporal.toml) and the default profile are read', () => {
    write('xdg/temporalio/temporal.toml', TOML);
    const env = { HOME: tmp, XDG_CONFIG_HOME: path.join(tmp, 'xdg') };
    const config = loadConfig({ env, cwd: tmp });
    expect(config.temporal.address).toBe('default.example.com:7233');
    expect(config.temporal.namespace).toBe('ns-default');
  });

  test('profiles: ~/.config/temporalio/temporal.toml is the default path without XDG_CONFIG_HOME', () => {
    write('.config/temporalio/temporal.toml', TOML);
    expect(loadTemporalProfile({ HOME: tmp })?.address).toBe('default.example.com:7233');
  });

  test('profiles: no file at the default path is no profile (the built-in defaults stand)', () => {
    expect(loadTemporalProfile({ HOME: tmp })).toBeNull();
    expect(loadConfig({ env: { HOME: tmp }, cwd: tmp }).temporal.address).toBeNull();
  });

  test('profiles: TEMPORAL_CONFIG_FILE and TEMPORAL_PROFILE pick the file and profile; its API key and gRPC headers are sent', () => {
    const file = write('elsewhere.toml', TOML);
    const env = { HOME: tmp, TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod' };
    const config = loadConfig({ env, cwd: tmp });
    expect(config.temporal.address).toBe('prod.example.com:7233');
    expect(config.temporal.namespace).toBe('ns-prod');
    const opts = temporalConnectionOptions(config.temporal, env);
    expect(opts.apiKey).toBe('key-from-profile');
    expect(opts.metadata).toEqual({ 'x-team': 'platform' });
    expect(opts.tls).toEqual({}); // an API key turns TLS on, as in envconfig
  });
});

describe('Temporal profiles: precedence defaults < temporal.yaml < profile < environment', () => {
  test('profiles: the profile overrides temporal.yaml, and the environment overrides the profile', () => {
    const file = write('t.toml', TOML);
    const yaml = write(
      'temporal.yaml',
      'temporal:\n  address: yaml.example.com:7233\n  namespace: ns-yaml\n  taskQueue: q-yaml\n',
    );
    const env = { HOME: tmp, TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod' };
    const fromProfile = loadConfig({ env, cwd: tmp, path: yaml });
    expect(fromProfile.temporal.address).toBe('prod.example.com:7233');
    expect(fromProfile.temporal.taskQueue).toBe('q-yaml'); // what a profile does not hold stays
    const withEnv = { ...env, TEMPORAL_ADDRESS: 'env.example.com:7233', TEMPORAL_API_KEY: 'key-from-env' };
    const config = loadConfig({ env: withEnv, cwd: tmp, path: yaml });
    expect(config.temporal.address).toBe('env.example.com:7233');
    expect(config.temporal.namespace).toBe('ns-prod');
    expect(temporalConnectionOptions(config.temporal, withEnv).apiKey).toBe('key-from-env');
  });

  test('profiles: a profile with tls.disabled turns TLS off even with its API key', () => {
    const file = write(
      't.toml',
      '[profile.default]\naddress = "a:1"\napi_key = "k"\n[profile.default.tls]\ndisabled = true\n',
    );
    const env = { HOME: tmp, TEMPORAL_CONFIG_FILE: file };
    const opts = temporalConnectionOptions(loadConfig({ env, cwd: tmp }).temporal, env);
    expect(opts.tls).toBe(false);
  });
});

describe('Temporal profiles: bad input is a clear error', () => {
  test('profiles: a named profile missing from the file, a missing named file and invalid TOML are usage errors', () => {
    const file = write('t.toml', TOML);
    const missing = errorOf(() =>
      loadConfig({ env: { HOME: tmp, TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'staging' }, cwd: tmp }),
    );
    expect(missing).toBeInstanceOf(TemporalProfileError);
    expect(missing.message).toBe(
      `Temporal config file ${file} (from TEMPORAL_CONFIG_FILE): Profile 'staging' not found in config data`,
    );
    const noFile = errorOf(() => loadTemporalProfile({ HOME: tmp, TEMPORAL_CONFIG_FILE: path.join(tmp, 'none.toml') }));
    expect(noFile.message).toContain('none.toml (from TEMPORAL_CONFIG_FILE): file not found');
    const bad = write('bad.toml', '[profile.default\naddress = 1\n');
    const invalid = errorOf(() => loadTemporalProfile({ HOME: tmp, TEMPORAL_CONFIG_FILE: bad }));
    expect(invalid).toBeInstanceOf(TemporalProfileError);
    expect(invalid.message).toContain('bad.toml (from TEMPORAL_CONFIG_FILE):');
  });

  test('profiles: TEMPORAL_PROFILE without any file is an error, not a silent default', () => {
    const err = errorOf(() => loadTemporalProfile({ HOME: tmp, TEMPORAL_PROFILE: 'prod' }));
    expect(err).toBeInstanceOf(TemporalProfileError);
    expect(err.message).toContain('is named, but there is no config file at');
  });

  test('profiles: TEMPORAL_TLS_DISABLE_HOST_VERIFICATION=true is read and refused with the alternatives; false is accepted', () => {
    const env = { HOME: tmp, TEMPORAL_ADDRESS: 'a:1', TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: 'true' };
    const err = errorOf(() => temporalConnectionOptions(loadConfig({ env, cwd: tmp }).temporal, env));
    expect(err).toBeInstanceOf(TemporalConnectionConfigError);
    expect(err.message).toContain('set TEMPORAL_TLS_SERVER_NAME');
    const ok = { ...env, TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: 'false' };
    expect(temporalConnectionOptions(loadConfig({ env: ok, cwd: tmp }).temporal, ok).address).toBe('a:1');
  });
});
