/**
 * Temporal's client configuration profiles (the TOML file of `temporal config`, read by
 * `@temporalio/envconfig` as the `temporal` CLI and the other SDKs read it).
 *
 * The file is `TEMPORAL_CONFIG_FILE` when set, else the default path
 * (`$XDG_CONFIG_HOME/temporalio/temporal.toml`, `~/.config/temporalio/temporal.toml` on Linux,
 * `~/Library/Application Support/temporalio/temporal.toml` on macOS, `%APPDATA%\temporalio\temporal.toml`
 * on Windows). The profile is `TEMPORAL_PROFILE`, else `default`.
 *
 * Precedence (lowest first): built-in defaults → `temporal.yaml` → the profile → the environment
 * (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_TLS*`, `TEMPORAL_API_KEY`, …), the order of the
 * `temporal` CLI, where the environment overrides the profile.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadClientConfigProfile, type ClientConfigProfile, type ConfigDataSource } from '@temporalio/envconfig';
import { AgentRunnerError } from '../common/errors';

/** Env var naming the TOML file (as for the `temporal` CLI). */
export const TEMPORAL_CONFIG_FILE_ENV = 'TEMPORAL_CONFIG_FILE';
/** Env var naming the profile (as for the `temporal` CLI). @default "default" */
export const TEMPORAL_PROFILE_ENV = 'TEMPORAL_PROFILE';

/**
 * Thrown by {@link loadTemporalProfile} when the file named by `TEMPORAL_CONFIG_FILE` cannot be
 * read, the TOML is invalid, or the profile named by `TEMPORAL_PROFILE` is not in it. The CLI
 * exits 2.
 */
export class TemporalProfileError extends AgentRunnerError {
  override readonly name = 'TemporalProfileError';
  readonly kind = 'usage';
}

/** A loaded profile: `@temporalio/envconfig`'s fields, and where they came from. */
export interface TemporalProfile extends ClientConfigProfile {
  /** The profile's name (`TEMPORAL_PROFILE` or `default`). */
  profileName: string;
  /** The TOML file it was read from (absolute). */
  file: string;
}

/**
 * The profile selected by the environment, from the TOML file only (the environment's own
 * overrides are applied by `loadConfig` and `temporalConnectionOptions`, one layer above).
 *
 * @returns null when no file is named and none exists at the default path (and no profile is
 *   named explicitly), or when the file has no `default` profile and none is named.
 * @throws TemporalProfileError for a named file that is missing or cannot be read, invalid TOML,
 *   a named profile that is not in the file, or a named profile without any file.
 */
export function loadTemporalProfile(env: NodeJS.ProcessEnv = process.env): TemporalProfile | null {
  const named = env[TEMPORAL_CONFIG_FILE_ENV] || undefined;
  const profileName = env[TEMPORAL_PROFILE_ENV] || undefined;
  const file = named ? path.resolve(named) : defaultConfigFilePath(env);
  const where = named ? `${file} (from ${TEMPORAL_CONFIG_FILE_ENV})` : file;
  if (file === undefined || !fs.existsSync(file)) {
    if (named) throw new TemporalProfileError(`Temporal config file ${where}: file not found`);
    if (profileName) {
      throw new TemporalProfileError(
        `Temporal profile "${profileName}" (${TEMPORAL_PROFILE_ENV}) is named, but there is no config file` +
          `${file ? ` at ${file}` : ''}: create it or set ${TEMPORAL_CONFIG_FILE_ENV}`,
      );
    }
    return null;
  }
  let profile: ClientConfigProfile;
  try {
    profile = loadClientConfigProfile({
      configSource: { path: file },
      disableEnv: true,
      ...(profileName ? { profile: profileName } : {}),
      overrideEnvVars: stringEnv(env),
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const what = code ? `cannot read the file (${code})` : (err as Error).message;
    throw new TemporalProfileError(`Temporal config file ${where}: ${what}`);
  }
  if (Object.keys(profile).length === 0 && !profileName) return null;
  return { ...profile, profileName: profileName ?? 'default', file };
}

/** The fields `loadConfig` layers over `temporal.yaml`'s `temporal` section (paths absolute). */
export function profileConfigLayer(profile: TemporalProfile, cwd: string): Record<string, unknown> {
  const layer: Record<string, unknown> = {};
  if (profile.address) layer['address'] = profile.address;
  if (profile.namespace) layer['namespace'] = profile.namespace;
  const tls: Record<string, unknown> = {};
  const t = profile.tls;
  if (t) {
    tls['enabled'] = t.disabled === true ? false : true;
    if (t.serverName) tls['serverNameOverride'] = t.serverName;
    const paths = { serverCaCertPath: t.serverCACert, clientCertPath: t.clientCert, clientKeyPath: t.clientKey };
    for (const [key, source] of Object.entries(paths)) {
      if (source && 'path' in source) tls[key] = path.resolve(cwd, source.path);
    }
  }
  if (Object.keys(tls).length > 0) layer['tls'] = tls;
  return layer;
}

/** The PEM text a profile holds inline (`client_cert_data`, …), by item. */
export function profileTlsData(
  profile: TemporalProfile | null,
): Partial<Record<'serverCaCert' | 'clientCert' | 'clientKey', Buffer>> {
  const out: Partial<Record<'serverCaCert' | 'clientCert' | 'clientKey', Buffer>> = {};
  const t = profile?.tls;
  if (!t) return out;
  const items: Array<['serverCaCert' | 'clientCert' | 'clientKey', ConfigDataSource | undefined]> = [
    ['serverCaCert', t.serverCACert],
    ['clientCert', t.clientCert],
    ['clientKey', t.clientKey],
  ];
  for (const [item, source] of items) {
    if (source && 'data' in source) out[item] = Buffer.from(source.data);
  }
  return out;
}

/** `@temporalio/envconfig`'s default path of `temporal.toml` for this platform, if it exists. */
function defaultConfigFilePath(env: NodeJS.ProcessEnv): string | undefined {
  let dir: string | undefined;
  if (process.platform === 'win32') dir = env['APPDATA'] || undefined;
  else if (process.platform === 'darwin')
    dir = env['HOME'] ? path.join(env['HOME'], 'Library', 'Application Support') : undefined;
  else {
    const xdg = env['XDG_CONFIG_HOME'];
    dir = xdg ? (path.isAbsolute(xdg) ? xdg : undefined) : env['HOME'] ? path.join(env['HOME'], '.config') : undefined;
  }
  return dir === undefined ? undefined : path.join(dir, 'temporalio', 'temporal.toml');
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}
