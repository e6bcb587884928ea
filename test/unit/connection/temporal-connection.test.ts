import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError, loadConfig } from '../../../src/config';
import {
  TemporalConnectionConfigError,
  describeConnection,
  temporalConnectionOptions,
} from '../../../src/connection/temporal-connection';
import { makeTestPki, type TestPki } from '../../helpers/tls';

let pki: TestPki;
beforeAll(() => {
  pki = makeTestPki();
});
afterAll(() => {
  fs.rmSync(pki.dir, { recursive: true, force: true });
});

const base = { HOME: '/home/tester', TEMPORAL_ADDRESS: 'temporal.example.com:7233' };

let configs = 0;

/** Options as the runner builds them: loadConfig (file + env), then the connection module. */
function optionsFor(env: NodeJS.ProcessEnv, yaml?: string) {
  let file: string | undefined;
  if (yaml !== undefined) {
    file = path.join(pki.dir, `config-${++configs}.yaml`);
    fs.writeFileSync(file, yaml);
  }
  const full = { ...base, ...env };
  const config = loadConfig({ env: full, cwd: pki.dir, ...(file ? { path: file } : {}) });
  return temporalConnectionOptions(config.temporal, full);
}

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

describe('Temporal connection options from config and environment', () => {
  test('connection: nothing set is a plaintext connection to the address', () => {
    const o = optionsFor({});
    expect(o).toEqual({ address: 'temporal.example.com:7233' });
    expect(describeConnection(o)).toBe('plaintext');
  });

  test('connection: an API key turns TLS on (envconfig rule) unless TEMPORAL_TLS=false', () => {
    expect(optionsFor({ TEMPORAL_API_KEY: 'k-123' })).toEqual({
      address: 'temporal.example.com:7233',
      apiKey: 'k-123',
      tls: {},
    });
    expect(optionsFor({ TEMPORAL_API_KEY: 'k-123', TEMPORAL_TLS: 'false' })).toMatchObject({ tls: false });
    expect(optionsFor({ TEMPORAL_TLS: 'true' })).toMatchObject({ tls: {} });
    // The variable name is configurable.
    expect(optionsFor({ MY_KEY: 'k-9' }, 'temporal:\n  apiKeyEnv: MY_KEY\n')).toMatchObject({ apiKey: 'k-9' });
  });

  test('connection: temporal.yaml paths are files, relative to the config file, read as PEM', () => {
    fs.mkdirSync(path.join(pki.dir, 'certs'), { recursive: true });
    fs.copyFileSync(pki.clientCert, path.join(pki.dir, 'certs', 'client.pem'));
    fs.copyFileSync(pki.clientKey, path.join(pki.dir, 'certs', 'client.key'));
    const o = optionsFor(
      {},
      [
        'temporal:',
        '  tls:',
        '    serverNameOverride: temporal.internal',
        `    serverCaCertPath: ${pki.caCert}`,
        '    clientCertPath: certs/client.pem',
        '    clientKeyPath: certs/client.key',
        '',
      ].join('\n'),
    );
    expect(o.tls).toEqual({
      serverNameOverride: 'temporal.internal',
      serverRootCACertificate: fs.readFileSync(pki.caCert),
      clientCertPair: { crt: fs.readFileSync(pki.clientCert), key: fs.readFileSync(pki.clientKey) },
    });
    expect(describeConnection(o)).toBe('mTLS');
  });

  test('connection: *_PATH variables are file paths and *_DATA variables are PEM contents', () => {
    const fromPaths = optionsFor({
      TEMPORAL_TLS_CLIENT_CERT_PATH: pki.clientCert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: pki.clientKey,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.caCert,
      TEMPORAL_TLS_SERVER_NAME: 'localhost',
    });
    const fromData = optionsFor({
      TEMPORAL_TLS_CLIENT_CERT_DATA: fs.readFileSync(pki.clientCert, 'utf8'),
      // One-line secrets with literal \n are accepted too.
      TEMPORAL_TLS_CLIENT_KEY_DATA: fs.readFileSync(pki.clientKey, 'utf8').replace(/\n/g, '\\n'),
      TEMPORAL_TLS_SERVER_CA_CERT_DATA: fs.readFileSync(pki.caCert, 'utf8'),
      TEMPORAL_TLS_SERVER_NAME: 'localhost',
    });
    expect(fromData).toEqual(fromPaths);
    expect(fromPaths.tls).toMatchObject({ serverNameOverride: 'localhost', clientCertPair: expect.any(Object) });
  });

  test('connection: gRPC headers come from TEMPORAL_GRPC_META_*', () => {
    expect(optionsFor({ TEMPORAL_GRPC_META_X_TEAM_NAME: 'agents', TEMPORAL_GRPC_META_EMPTY: '' }).metadata).toEqual({
      'x-team-name': 'agents',
    });
  });
});

describe('Temporal connection options: bad TLS input is a clear error', () => {
  test('connection: a path where PEM data is expected says which kind of variable holds what', () => {
    const err = errorOf(() =>
      optionsFor({ TEMPORAL_TLS_CLIENT_CERT_DATA: pki.clientCert, TEMPORAL_TLS_CLIENT_KEY_PATH: pki.clientKey }),
    );
    expect(err).toBeInstanceOf(TemporalConnectionConfigError);
    expect(err.message).toMatch(/client certificate TEMPORAL_TLS_CLIENT_CERT_DATA \(PEM data\) is not PEM text/);
    expect(err.message).toMatch(/a \*_DATA variable holds the PEM itself, a \*_PATH variable a file path/);
  });

  test('connection: a missing file names the path and the setting it came from', () => {
    const err = errorOf(() => optionsFor({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/nope/ca.pem' }));
    expect(err).toBeInstanceOf(TemporalConnectionConfigError);
    expect(err.message).toBe(
      'Temporal TLS server CA certificate: cannot read /nope/ca.pem (ENOENT), from temporal.tls.serverCaCertPath (env TEMPORAL_TLS_SERVER_CA_CERT_PATH)',
    );
  });

  test('connection: a damaged certificate or a key that is not a key is refused', () => {
    const damaged = path.join(pki.dir, 'damaged.pem');
    const pem = fs.readFileSync(pki.clientCert, 'utf8');
    fs.writeFileSync(damaged, pem.slice(0, 80) + 'AAAA' + pem.slice(120));
    expect(
      errorOf(() => optionsFor({ TEMPORAL_TLS_CLIENT_CERT_PATH: damaged, TEMPORAL_TLS_CLIENT_KEY_PATH: pki.clientKey }))
        .message,
    ).toMatch(/client certificate .*damaged\.pem .* is not a valid certificate/);
    expect(
      errorOf(() =>
        optionsFor({ TEMPORAL_TLS_CLIENT_CERT_PATH: pki.clientCert, TEMPORAL_TLS_CLIENT_KEY_PATH: pki.clientCert }),
      ).message,
    ).toMatch(/client private key .* is not a valid private key/);
  });

  test('connection: a path and data for one item, a certificate without key, or certificates with TLS off are refused', () => {
    expect(
      errorOf(() =>
        optionsFor({
          TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.caCert,
          TEMPORAL_TLS_SERVER_CA_CERT_DATA: fs.readFileSync(pki.caCert, 'utf8'),
        }),
      ).message,
    ).toMatch(/both a path .* and PEM data \(TEMPORAL_TLS_SERVER_CA_CERT_DATA\) are set/);
    expect(errorOf(() => optionsFor({ TEMPORAL_TLS_CLIENT_CERT_PATH: pki.clientCert })).message).toMatch(
      /a client certificate is set without its key/,
    );
    expect(
      errorOf(() => optionsFor({ TEMPORAL_TLS: '0', TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.caCert })).message,
    ).toMatch(/TLS is disabled .* but TLS certificates or a server name are set/);
  });

  test('connection: TEMPORAL_TLS must be a boolean; the config error names the variable', () => {
    const err = errorOf(() => optionsFor({ TEMPORAL_TLS: 'maybe' }));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(/temporal\.tls\.enabled \(from env TEMPORAL_TLS\): expected true, false or null/);
  });
});
