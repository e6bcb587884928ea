/**
 * Environment of MCP server processes, and `${VAR}` expansion in server configs, on the worker.
 * Server processes get the runner's tool-process environment (src/env/child-env.ts).
 */
import type { McpServerConfig } from '../../config-files/mcp-config';
import { isRemoteServer } from '../../config-files/mcp-config';
import { toolEnvironment } from '../../env/child-env';

/** Thrown when a config names an environment variable the worker does not have (and no default). */
export class McpEnvError extends Error {
  override readonly name = 'McpEnvError';
}

const VAR_RE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands `${VAR}` and `${VAR:-default}` as Claude Code does in MCP configs.
 * @throws McpEnvError naming the variable and `field` when VAR is unset and has no default
 */
export function expandVars(text: string, env: NodeJS.ProcessEnv, field: string): string {
  return text.replace(VAR_RE, (_m, name: string, def: string | undefined) => {
    const v = env[name];
    if (v !== undefined) return v;
    if (def !== undefined) return def;
    throw new McpEnvError(`${field}: environment variable ${name} is not set on the worker and has no default`);
  });
}

function expandMap(
  m: Record<string, string> | undefined,
  env: NodeJS.ProcessEnv,
  field: string,
): Record<string, string> | undefined {
  if (!m) return undefined;
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [k, expandVars(v, env, `${field}.${k}`)]));
}

/** A server config with every `${VAR}` expanded against the worker's environment. @throws McpEnvError */
export function expandServerConfig(name: string, s: McpServerConfig, env: NodeJS.ProcessEnv): McpServerConfig {
  const at = `mcpServers.${name}`;
  if (isRemoteServer(s)) {
    const headers = expandMap(s.headers, env, `${at}.headers`);
    return { ...s, url: expandVars(s.url, env, `${at}.url`), ...(headers ? { headers } : {}) };
  }
  const out = { ...s, command: expandVars(s.command, env, `${at}.command`) };
  if (s.args) out.args = s.args.map((a, i) => expandVars(a, env, `${at}.args[${i}]`));
  const childEnv = expandMap(s.env, env, `${at}.env`);
  if (childEnv) out.env = childEnv;
  return out;
}

/**
 * Environment of a stdio server's process, by the runner's rules for tool processes
 * (src/env/child-env.ts): the worker's environment minus the runner's secrets, plus the server's
 * own `env` (which wins, secrets it names included: the user chose to give them).
 */
export function mcpServerEnv(
  serverEnv: Record<string, string> | undefined,
  base: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(toolEnvironment({ base, ...(serverEnv ? { extra: serverEnv } : {}) }))) {
    if (v !== undefined) out[k] = v;
  }
  return out;
}
