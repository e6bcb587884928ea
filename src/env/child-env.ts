/**
 * The environment of every child process the runner starts, built in one place:
 * - the embedded Temporal dev server gets a minimal environment (what a Go program needs to find
 *   its home, temp directory, locale and time zone), so no key of the runner reaches it;
 * - tool processes (Bash commands today; hook commands and MCP servers later) get the user's
 *   environment minus the runner's secrets, plus the `env` of the settings files.
 *
 * The runner's secrets are: the model API key variable (`model.apiKeyEnv`, and
 * `ANTHROPIC_AUTH_TOKEN`), the Temporal API key (`temporal.apiKeyEnv`) and TLS key variables,
 * and every name in `tools.secretEnv` of the config.
 */
import { MODEL_SECRET_ENV_NAMES } from '../config/model-credentials';

/** Variables the dev server gets from the runner's environment (when set). */
export const DEV_SERVER_ENV_NAMES: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'TMPDIR',
  'TMP',
  'TEMP',
  'TZ',
  'LANG',
  'SYSTEMROOT',
];

/** Secrets of the runner when no config names others (the config defaults). */
export const DEFAULT_SECRET_ENV_NAMES: readonly string[] = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  // Model credentials of the providers (Bedrock API keys, Foundry keys and tokens).
  ...MODEL_SECRET_ENV_NAMES,
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS_KEY',
  'TEMPORAL_TLS_CERT',
  'TEMPORAL_TLS_CA',
];

/** The config fields that name secret variables (a subset of `Config`). */
export interface SecretEnvConfig {
  model?: { apiKeyEnv?: string };
  temporal?: { apiKeyEnv?: string };
  tools?: { secretEnv?: readonly string[] };
}

/** Names of the runner's secret variables under a config. */
export function secretEnvNames(config: SecretEnvConfig = {}): Set<string> {
  const names = new Set(DEFAULT_SECRET_ENV_NAMES);
  const add = (n: string | undefined): void => {
    if (n) names.add(n);
  };
  add(config.model?.apiKeyEnv);
  add(config.temporal?.apiKeyEnv);
  for (const n of config.tools?.secretEnv ?? []) add(n);
  return names;
}

/**
 * Environment of the embedded Temporal dev server: only {@link DEV_SERVER_ENV_NAMES} and the
 * `LC_*` locale variables.
 */
export function devServerEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) {
    if (v !== undefined && (DEV_SERVER_ENV_NAMES.includes(k) || k.startsWith('LC_'))) env[k] = v;
  }
  return env;
}

/** Options of {@link toolEnvironment}. */
export interface ToolEnvironmentOptions {
  /** The user's environment. @default process.env */
  base?: NodeJS.ProcessEnv;
  /** Names to leave out. @default secretEnvNames() */
  secretNames?: ReadonlySet<string>;
  /** Variables to set on top (the `env` of the settings files); secret names among them are kept (the user set them for tools). */
  extra?: Readonly<Record<string, string>>;
}

/** Environment of a tool process: the user's environment minus the runner's secrets, plus `extra`. */
export function toolEnvironment(opts: ToolEnvironmentOptions = {}): NodeJS.ProcessEnv {
  const secrets = opts.secretNames ?? secretEnvNames();
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(opts.base ?? process.env)) {
    if (v !== undefined && !secrets.has(k)) env[k] = v;
  }
  return { ...env, ...(opts.extra ?? {}) };
}

/** Names of the variables tool processes get (see {@link toolEnvironment}). */
export function toolEnvironmentNames(opts: ToolEnvironmentOptions = {}): Set<string> {
  return new Set(Object.keys(toolEnvironment(opts)));
}

/** The child environments of one worker, under its config. */
export class ChildEnvironments {
  private readonly secrets: Set<string>;

  constructor(
    config: SecretEnvConfig = {},
    private readonly base: NodeJS.ProcessEnv = process.env,
  ) {
    this.secrets = secretEnvNames(config);
  }

  /** Environment of a tool process, with the settings files' `env` on top. */
  forTools(extra?: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
    return toolEnvironment({ base: this.base, secretNames: this.secrets, ...(extra ? { extra } : {}) });
  }

  /** Environment of the embedded dev server. */
  forDevServer(): NodeJS.ProcessEnv {
    return devServerEnvironment(this.base);
  }
}

/**
 * Variables the runner's own git commands get from the runner's environment (when set): what git
 * needs to find itself, the user's git config, ssh and proxies. Nothing else, so no key of the
 * runner (nor one a config names) reaches git or a program it might start.
 */
export const GIT_ENV_NAMES: readonly string[] = [
  ...DEV_SERVER_ENV_NAMES,
  'XDG_CONFIG_HOME',
  'SSH_AUTH_SOCK',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_SSH_VARIANT',
  'GIT_EXEC_PATH',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_NOSYSTEM',
  'GIT_SSL_CAINFO',
  'GIT_SSL_CAPATH',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
];

/**
 * Environment of the runner's own git commands (workspace snapshots, the git status context):
 * only {@link GIT_ENV_NAMES} and the `LC_*` variables of `base`, plus no prompts and no pager.
 * The config that keeps git from running repository-configured programs is added by
 * src/env/git-env.ts.
 */
export function gitEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) {
    if (v !== undefined && (GIT_ENV_NAMES.includes(k) || k.startsWith('LC_'))) env[k] = v;
  }
  return { ...env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat' };
}
