/**
 * Connection options for a configured Temporal server (a cluster or Temporal Cloud), from
 * `temporal.yaml` and the environment, following `@temporalio/envconfig`'s names and rules:
 *
 * | what | temporal.yaml | environment |
 * | --- | --- | --- |
 * | address, namespace | `temporal.address`, `temporal.namespace` | `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE` |
 * | API key | — (a secret) | `TEMPORAL_API_KEY` (the name is `temporal.apiKeyEnv`) |
 * | TLS on/off | `temporal.tls.enabled` | `TEMPORAL_TLS` |
 * | server name | `temporal.tls.serverNameOverride` | `TEMPORAL_TLS_SERVER_NAME` |
 * | CA certificate | `temporal.tls.serverCaCertPath` (a path) | `TEMPORAL_TLS_SERVER_CA_CERT_PATH` or `…_DATA` (PEM) |
 * | client certificate | `temporal.tls.clientCertPath` (a path) | `TEMPORAL_TLS_CLIENT_CERT_PATH` or `…_DATA` (PEM) |
 * | client key | `temporal.tls.clientKeyPath` (a path) | `TEMPORAL_TLS_CLIENT_KEY_PATH` or `…_DATA` (PEM) |
 * | gRPC headers | — | `TEMPORAL_GRPC_META_<NAME>` |
 *
 * `*_PATH` and config settings are file paths; `*_DATA` variables hold the PEM text itself. TLS is
 * on when an API key or a certificate is given, unless disabled explicitly.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/common/lib/internal-non-workflow';
import type { TemporalConfig } from '../config';
import { AgentRunnerError } from '../common/errors';
import { loadTemporalProfile, profileTlsData, type TemporalProfile } from '../config/temporal-profile';

/** Options accepted by both the client's `Connection` and the worker's `NativeConnection`. */
export interface TemporalConnectionOptions {
  /** `host:port` of the frontend. */
  address: string;
  /** Sent as the `Authorization` bearer token. */
  apiKey?: string;
  /** TLS settings; false turns TLS off even with an API key. */
  tls?: TLSConfig | false;
  /** gRPC headers sent with every call. */
  metadata?: Record<string, string>;
}

/** Environment variables holding PEM contents (never a path). */
export const TLS_DATA_ENV = {
  serverCaCert: 'TEMPORAL_TLS_SERVER_CA_CERT_DATA',
  clientCert: 'TEMPORAL_TLS_CLIENT_CERT_DATA',
  clientKey: 'TEMPORAL_TLS_CLIENT_KEY_DATA',
} as const;

/**
 * Env var of `@temporalio/envconfig` that asks to skip the check of the server certificate's host
 * name. The TypeScript SDK (1.23) has no way to do that, so `true` is refused with an error that
 * names the alternatives instead of being ignored.
 */
export const TLS_DISABLE_HOST_VERIFICATION_ENV = 'TEMPORAL_TLS_DISABLE_HOST_VERIFICATION';

/** Prefix of the environment variables that become gRPC headers (`TEMPORAL_GRPC_META_X_TEAM` → `x-team`). */
export const GRPC_META_ENV_PREFIX = 'TEMPORAL_GRPC_META_';

/**
 * Thrown by {@link temporalConnectionOptions} for TLS settings that cannot work: an unreadable
 * file, text that is not a PEM certificate or key, a path and data for the same item, a
 * certificate without its key, or certificates with TLS disabled. The CLI exits 2.
 */
export class TemporalConnectionConfigError extends AgentRunnerError {
  override readonly name = 'TemporalConnectionConfigError';
  readonly kind = 'usage';
}

type Item = keyof typeof TLS_DATA_ENV;

const ITEMS: Record<Item, { field: keyof TemporalConfig['tls']; pathEnv: string; what: string }> = {
  serverCaCert: {
    field: 'serverCaCertPath',
    pathEnv: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
    what: 'server CA certificate',
  },
  clientCert: { field: 'clientCertPath', pathEnv: 'TEMPORAL_TLS_CLIENT_CERT_PATH', what: 'client certificate' },
  clientKey: { field: 'clientKeyPath', pathEnv: 'TEMPORAL_TLS_CLIENT_KEY_PATH', what: 'client private key' },
};

/**
 * The options of `Connection.connect` / `NativeConnection.connect` for `temporal` (as loaded by
 * `loadConfig`, where the `*_PATH` variables and `TEMPORAL_TLS` already apply) and the
 * environment (API key, PEM data, gRPC headers).
 * @throws TemporalConnectionConfigError for TLS settings that cannot work (see the class).
 */
export function temporalConnectionOptions(
  temporal: TemporalConfig,
  env: NodeJS.ProcessEnv = process.env,
  profile: TemporalProfile | null = loadTemporalProfile(env),
): TemporalConnectionOptions {
  const opts: TemporalConnectionOptions = { address: temporal.address ?? '' };
  const apiKey = env[temporal.apiKeyEnv] || profile?.apiKey || undefined;
  if (apiKey) opts.apiKey = apiKey;
  const skipHost = (env[TLS_DISABLE_HOST_VERIFICATION_ENV] ?? '').toLowerCase();
  if (skipHost === 'true' || skipHost === '1') {
    throw new TemporalConnectionConfigError(
      `${TLS_DISABLE_HOST_VERIFICATION_ENV}=${env[TLS_DISABLE_HOST_VERIFICATION_ENV]}: the Temporal TypeScript SDK cannot skip ` +
        "the server certificate's host check; set TEMPORAL_TLS_SERVER_NAME to the name in the certificate " +
        '(or TEMPORAL_TLS_SERVER_CA_CERT_PATH to its CA) instead',
    );
  }

  const pem: Partial<Record<Item, Buffer>> = {};
  const fromProfile = profileTlsData(profile);
  for (const item of Object.keys(ITEMS) as Item[]) {
    const buf = loadItem(temporal, env, item);
    const inline = fromProfile[item];
    if (buf) pem[item] = buf;
    else if (inline) {
      checkPem(
        inline,
        item,
        `Temporal TLS ${ITEMS[item].what} (inline data of profile "${profile?.profileName}" in ${profile?.file})`,
      );
      pem[item] = inline;
    }
  }
  if ((pem.clientCert === undefined) !== (pem.clientKey === undefined)) {
    const has = pem.clientCert ? 'a client certificate' : 'a client key';
    throw new TemporalConnectionConfigError(
      `Temporal mTLS: ${has} is set without its ${pem.clientCert ? 'key' : 'certificate'} ` +
        '(temporal.tls.clientCertPath and clientKeyPath, or TEMPORAL_TLS_CLIENT_CERT_* and TEMPORAL_TLS_CLIENT_KEY_*)',
    );
  }
  const anyTls = pem.serverCaCert !== undefined || pem.clientCert !== undefined || !!temporal.tls.serverNameOverride;
  const enabled = temporal.tls.enabled ?? (anyTls || apiKey !== undefined);
  if (!enabled) {
    if (anyTls) {
      throw new TemporalConnectionConfigError(
        'Temporal TLS is disabled (temporal.tls.enabled / TEMPORAL_TLS is false) but TLS certificates or a server name are set',
      );
    }
    if (temporal.tls.enabled === false) opts.tls = false;
  } else {
    opts.tls = {
      ...(temporal.tls.serverNameOverride ? { serverNameOverride: temporal.tls.serverNameOverride } : {}),
      ...(pem.serverCaCert ? { serverRootCACertificate: pem.serverCaCert } : {}),
      ...(pem.clientCert && pem.clientKey ? { clientCertPair: { crt: pem.clientCert, key: pem.clientKey } } : {}),
    };
  }

  const metadata: Record<string, string> = { ...profile?.grpcMeta };
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(GRPC_META_ENV_PREFIX) || !value) continue;
    metadata[name.slice(GRPC_META_ENV_PREFIX.length).toLowerCase().replace(/_/g, '-')] = value;
  }
  if (Object.keys(metadata).length > 0) opts.metadata = metadata;
  return opts;
}

/** A short description for messages: `TLS with client certificate, API key` / `plaintext`. */
export function describeConnection(opts: TemporalConnectionOptions): string {
  const parts: string[] = [];
  if (opts.tls) {
    parts.push(opts.tls.clientCertPair ? 'mTLS' : 'TLS');
  } else if (opts.apiKey && opts.tls !== false) {
    parts.push('TLS');
  } else {
    parts.push('plaintext');
  }
  if (opts.apiKey) parts.push('API key');
  return parts.join(', ');
}

function loadItem(temporal: TemporalConfig, env: NodeJS.ProcessEnv, item: Item): Buffer | undefined {
  const spec = ITEMS[item];
  const file = temporal.tls[spec.field] as string | null;
  const dataEnv = TLS_DATA_ENV[item];
  const data = env[dataEnv] || undefined;
  const fieldName = `temporal.tls.${spec.field} (env ${spec.pathEnv})`;
  if (file && data) {
    throw new TemporalConnectionConfigError(
      `Temporal TLS ${spec.what}: both a path (${fieldName}: ${file}) and PEM data (${dataEnv}) are set; set one`,
    );
  }
  let buf: Buffer;
  let source: string;
  if (data) {
    buf = Buffer.from(data.replace(/\\n/g, '\n'), 'utf8');
    source = `${dataEnv} (PEM data)`;
  } else if (file) {
    try {
      buf = readFileSync(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      throw new TemporalConnectionConfigError(
        `Temporal TLS ${spec.what}: cannot read ${file} (${code}), from ${fieldName}`,
      );
    }
    source = `${file} (from ${fieldName})`;
  } else {
    return undefined;
  }
  checkPem(buf, item, `Temporal TLS ${spec.what} ${source}`);
  return buf;
}

function checkPem(buf: Buffer, item: Item, where: string): void {
  const text = buf.toString('utf8');
  if (!/-----BEGIN [A-Z0-9 ]+-----/.test(text)) {
    throw new TemporalConnectionConfigError(
      `${where} is not PEM text (expected "-----BEGIN …-----"; a *_DATA variable holds the PEM itself, a *_PATH variable a file path)`,
    );
  }
  try {
    if (item === 'clientKey') createPrivateKey(buf);
    else new X509Certificate(buf);
  } catch (err) {
    throw new TemporalConnectionConfigError(
      `${where} is not a valid ${item === 'clientKey' ? 'private key' : 'certificate'}: ${(err as Error).message}`,
    );
  }
}
