/**
 * A real mTLS connection: the dev server behind a TLS-terminating proxy that requires client
 * certificates of a test CA. The options come from the environment, as on a cluster host.
 */
import * as fs from 'node:fs';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../../src/config';
import { temporalConnectionOptions } from '../../src/connection/temporal-connection';
import { runCli } from '../helpers/cli';
import { temporalAddress } from '../helpers/runner-env';
import { makeTestPki, startTlsProxy, type TestPki, type TlsProxy } from '../helpers/tls';
import { startWorkerProcess } from '../helpers/worker-process';

let pki: TestPki;
let proxy: TlsProxy;
beforeAll(async () => {
  pki = makeTestPki();
  proxy = await startTlsProxy(pki, temporalAddress());
});
afterAll(async () => {
  await proxy.close();
  fs.rmSync(pki.dir, { recursive: true, force: true });
});

function tlsEnv(over: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    HOME: process.env['HOME'],
    PATH: process.env['PATH'],
    AGENT_RUNNER_DATA_DIR: pki.dir,
    ANTHROPIC_API_KEY: 'test-key',
    TEMPORAL_ADDRESS: proxy.address,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.caCert,
    TEMPORAL_TLS_CLIENT_CERT_PATH: pki.clientCert,
    TEMPORAL_TLS_CLIENT_KEY_PATH: pki.clientKey,
    TEMPORAL_TLS_SERVER_NAME: 'localhost',
    ...over,
  };
}

function optionsFrom(env: NodeJS.ProcessEnv) {
  return temporalConnectionOptions(loadConfig({ env, cwd: pki.dir }).temporal, env);
}

describe('Temporal over mTLS', () => {
  test('tls: the client and the worker connection reach the server with certificates from *_PATH variables', async () => {
    const opts = optionsFrom(tlsEnv());
    const conn = await Connection.connect({ ...opts, connectTimeout: 10_000 });
    try {
      const info = await conn.workflowService.getSystemInfo({});
      expect(info.capabilities).toBeDefined();
    } finally {
      await conn.close();
    }
    const native = await NativeConnection.connect(opts);
    await native.close();
  });

  test('tls: the same certificates as *_DATA (PEM contents) work too', async () => {
    const env = tlsEnv({
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: undefined,
      TEMPORAL_TLS_CLIENT_CERT_PATH: undefined,
      TEMPORAL_TLS_CLIENT_KEY_PATH: undefined,
      TEMPORAL_TLS_SERVER_CA_CERT_DATA: fs.readFileSync(pki.caCert, 'utf8'),
      TEMPORAL_TLS_CLIENT_CERT_DATA: fs.readFileSync(pki.clientCert, 'utf8'),
      TEMPORAL_TLS_CLIENT_KEY_DATA: fs.readFileSync(pki.clientKey, 'utf8'),
    });
    const conn = await Connection.connect({ ...optionsFrom(env), connectTimeout: 10_000 });
    await conn.workflowService.getSystemInfo({});
    await conn.close();
  });

  test('tls: a client certificate of another CA, or none, is refused by the server', async () => {
    const before = proxy.refused();
    const stranger = optionsFrom(
      tlsEnv({ TEMPORAL_TLS_CLIENT_CERT_PATH: pki.strangerCert, TEMPORAL_TLS_CLIENT_KEY_PATH: pki.strangerKey }),
    );
    await expect(
      Connection.connect({ ...stranger, connectTimeout: 5000 }).then((c) => c.workflowService.getSystemInfo({})),
    ).rejects.toThrow();
    const none = optionsFrom(
      tlsEnv({ TEMPORAL_TLS_CLIENT_CERT_PATH: undefined, TEMPORAL_TLS_CLIENT_KEY_PATH: undefined }),
    );
    await expect(
      Connection.connect({ ...none, connectTimeout: 5000 }).then((c) => c.workflowService.getSystemInfo({})),
    ).rejects.toThrow();
    expect(proxy.refused()).toBeGreaterThan(before);
  });

  test('tls: `agent-runner worker` connects over mTLS from the environment; a bad path exits 2', async () => {
    const worker = await startWorkerProcess({ ...tlsEnv(), AGENT_RUNNER_TASK_QUEUE: `tls-${Date.now()}` });
    expect(worker.stderr()).toContain(`worker polling task queue`);
    await worker.stop();

    const bad = await runCli(['worker'], { env: tlsEnv({ TEMPORAL_TLS_CLIENT_KEY_PATH: '/nope/client.key' }) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'Temporal TLS client private key: cannot read /nope/client.key (ENOENT), from temporal.tls.clientKeyPath (env TEMPORAL_TLS_CLIENT_KEY_PATH)',
    );
  });
});

describe('Temporal profiles (envconfig TOML)', () => {
  function profileFile(body: string): string {
    const file = `${pki.dir}/temporal-${Math.random().toString(36).slice(2)}.toml`;
    fs.writeFileSync(file, body);
    return file;
  }
  const pem = (p: string) => JSON.stringify(fs.readFileSync(p, 'utf8'));

  test('profiles: TEMPORAL_PROFILE selects a profile of TEMPORAL_CONFIG_FILE, which picks the server and its mTLS', async () => {
    const file = profileFile(
      [
        '[profile.default]',
        'address = "127.0.0.1:1"',
        '',
        '[profile.prod]',
        `address = "${proxy.address}"`,
        'namespace = "default"',
        '[profile.prod.tls]',
        'server_name = "localhost"',
        `server_ca_cert_data = ${pem(pki.caCert)}`,
        `client_cert_path = "${pki.clientCert}"`,
        `client_key_data = ${pem(pki.clientKey)}`,
        '',
      ].join('\n'),
    );
    const env: NodeJS.ProcessEnv = {
      HOME: pki.dir,
      PATH: process.env['PATH'],
      AGENT_RUNNER_DATA_DIR: pki.dir,
      ANTHROPIC_API_KEY: 'test-key',
      TEMPORAL_CONFIG_FILE: file,
      TEMPORAL_PROFILE: 'prod',
    };
    const config = loadConfig({ env, cwd: pki.dir });
    expect(config.temporal.address).toBe(proxy.address);
    const conn = await Connection.connect({ ...optionsFrom(env), connectTimeout: 10_000 });
    await conn.workflowService.getSystemInfo({});
    await conn.close();

    const worker = await startWorkerProcess({ ...env, AGENT_RUNNER_TASK_QUEUE: `tls-profile-${Date.now()}` });
    expect(worker.stderr()).toContain('worker polling task queue');
    await worker.stop();
  });

  test('profiles: a profile that is not in the file, or a missing named file, exits 2 naming it', async () => {
    const file = profileFile('[profile.default]\naddress = "127.0.0.1:1"\n');
    const base = { HOME: pki.dir, PATH: process.env['PATH'], AGENT_RUNNER_DATA_DIR: pki.dir };
    const missingProfile = await runCli(['worker'], {
      env: { ...base, TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'nope' },
    });
    expect(missingProfile.code).toBe(2);
    expect(missingProfile.stderr).toContain(
      `Temporal config file ${file} (from TEMPORAL_CONFIG_FILE): Profile 'nope' not found`,
    );
    const missingFile = await runCli(['worker'], { env: { ...base, TEMPORAL_CONFIG_FILE: `${pki.dir}/none.toml` } });
    expect(missingFile.code).toBe(2);
    expect(missingFile.stderr).toContain(
      `Temporal config file ${pki.dir}/none.toml (from TEMPORAL_CONFIG_FILE): file not found`,
    );
  });
});
