/**
 * MCP server configuration in Claude Code's format (`--mcp-config`, `.mcp.json`):
 * `{"mcpServers": {"<name>": {"type": "stdio", "command", "args", "env"} | {"type": "http" | "sse",
 * "url", "headers"}}}`. A value of `--mcp-config` is a file path or the JSON itself.
 * `${VAR}` and `${VAR:-default}` in commands, arguments, env values, URLs and headers are
 * expanded on the worker that starts the server (see `env.ts`), so secrets stay out of the
 * transcript store and out of workflow history.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { AgentRunnerError } from '../common/errors';

const nonEmpty = z.string({ error: 'expected a non-empty string' }).min(1, { error: 'expected a non-empty string' });
const stringMap = z.record(z.string(), z.string({ error: 'expected a string' }), {
  error: 'expected an object of strings',
});

/**
 * A server's own tool-call timeout (ms), as Claude Code has it: it overrides `MCP_TOOL_TIMEOUT`
 * for that server; values below 1000 are ignored.
 */
const serverTimeout = z
  .number({ error: 'expected a whole number of milliseconds' })
  .int({ error: 'expected a whole number of milliseconds' })
  .positive({ error: 'expected a whole number of milliseconds' })
  .optional();

/** A server started as a child process, spoken to over stdin/stdout. */
export const StdioServerSchema = z.looseObject({
  type: z.literal('stdio'),
  command: nonEmpty,
  args: z.array(z.string({ error: 'expected a string' }), { error: 'expected an array of strings' }).optional(),
  env: stringMap.optional(),
  timeout: serverTimeout,
});

/** A remote server: streamable HTTP (`http`) or the older HTTP+SSE transport (`sse`). */
export const RemoteServerSchema = z.looseObject({
  type: z.enum(['http', 'sse']),
  url: z.url({ error: 'expected an http(s) URL' }),
  headers: stringMap.optional(),
  timeout: serverTimeout,
});

/** One server entry; `type` defaults to `stdio`, as in Claude Code. */
export const McpServerConfigSchema = z.preprocess(
  (v) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) && (v as Record<string, unknown>)['type'] === undefined
      ? { ...v, type: 'stdio' }
      : v,
  z.discriminatedUnion('type', [StdioServerSchema, RemoteServerSchema], {
    error: 'expected {"command": …} (stdio) or {"type": "http" | "sse", "url": …}',
  }),
);
export type McpServerConfig = z.infer<typeof McpServerConfigSchema>;

/** A whole MCP config file. */
export const McpConfigFileSchema = z.looseObject({
  mcpServers: z.record(z.string().min(1, { error: 'server names must not be empty' }), McpServerConfigSchema, {
    error: 'expected an object of servers by name',
  }),
});

/** Servers by name, merged from every `--mcp-config` value (a later value wins for a name). */
export interface McpConfig {
  servers: Record<string, McpServerConfig>;
  /** Where each server came from (a file path or `--mcp-config (inline JSON)`), for messages. */
  sources: Record<string, string>;
  /** The run's `MCP_TOOL_TIMEOUT` and `MCP_TIMEOUT`, when set (they travel with the config to the worker). */
  timeouts?: McpTimeouts;
}

/** MCP timeouts of a run (ms), from Claude Code's environment variables. */
export interface McpTimeouts {
  /** `MCP_TOOL_TIMEOUT`: the longest tool call, wall clock (progress does not extend it). @default 900000 */
  toolMs?: number;
  /** `MCP_TIMEOUT`: how long a server may take to start and list its tools. @default 30000 */
  connectMs?: number;
}

/** Default longest MCP tool call (ms): 15 minutes. */
export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 900_000;
/** Default MCP server start-up bound (ms), Claude Code's `MCP_TIMEOUT` default. */
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 30_000;
/** The shortest tool-call timeout Claude Code accepts (ms); below it the next setting applies. */
export const MIN_MCP_TOOL_TIMEOUT_MS = 1000;
/** Longest timer (ms): Node's setTimeout limit, as Claude Code caps these values. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * `MCP_TOOL_TIMEOUT` and `MCP_TIMEOUT` from an environment: positive whole numbers of ms (an
 * empty value is unset).
 * @throws McpConfigError naming the variable for anything else
 */
export function mcpTimeoutsFromEnv(env: NodeJS.ProcessEnv): McpTimeouts {
  const read = (name: string): number | undefined => {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') return undefined;
    if (!/^\d+$/.test(raw) || Number(raw) === 0) {
      throw new McpConfigError(`${name} must be a positive whole number of milliseconds, got "${env[name]}"`);
    }
    return Math.min(Number(raw), MAX_TIMER_MS);
  };
  const toolMs = read('MCP_TOOL_TIMEOUT');
  const connectMs = read('MCP_TIMEOUT');
  return { ...(toolMs !== undefined ? { toolMs } : {}), ...(connectMs !== undefined ? { connectMs } : {}) };
}

/**
 * A server's tool-call timeout (ms), as Claude Code picks it: the server's own `timeout` (from
 * 1000 ms), else `MCP_TOOL_TIMEOUT` of the run, else `fallbackMs` (the worker's), at least 1 s.
 */
export function mcpToolTimeoutMs(
  server: McpServerConfig,
  runMs: number | undefined,
  fallbackMs = DEFAULT_MCP_TOOL_TIMEOUT_MS,
): number {
  const own = server.timeout !== undefined && server.timeout >= MIN_MCP_TOOL_TIMEOUT_MS ? server.timeout : undefined;
  return Math.min(Math.max(own ?? runMs ?? fallbackMs, MIN_MCP_TOOL_TIMEOUT_MS), MAX_TIMER_MS);
}

/** Thrown for an MCP config that cannot be read or is malformed; the CLI prints it and exits 2. */
export class McpConfigError extends AgentRunnerError {
  override readonly name = 'McpConfigError';
  readonly kind = 'usage';
}

function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
}

/**
 * Parses one `--mcp-config` value: JSON when it starts with `{`, else a file path resolved
 * against `cwd`.
 * @throws McpConfigError naming the file (or "inline JSON") and the field
 */
export function parseMcpConfigValue(value: string, cwd: string): McpConfig {
  const inline = value.trim().startsWith('{');
  const source = inline ? '--mcp-config (inline JSON)' : `--mcp-config ${resolve(cwd, value)}`;
  let text = value;
  if (!inline) {
    try {
      text = readFileSync(resolve(cwd, value), 'utf8');
    } catch (e) {
      throw new McpConfigError(`${source}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new McpConfigError(`${source}: not valid JSON (${(e as Error).message})`);
  }
  const parsed = McpConfigFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issuePath(issue.path)}: ` : '';
    throw new McpConfigError(`${source}: ${where}${issue?.message ?? 'invalid'}`);
  }
  const servers: McpConfig['servers'] = {};
  const sources: McpConfig['sources'] = {};
  for (const [name, server] of Object.entries(parsed.data.mcpServers)) {
    servers[name] = server;
    sources[name] = `${source}: mcpServers.${name}`;
  }
  return { servers, sources };
}

/** Merges configs in order (a later server of the same name replaces an earlier one). */
export function mergeMcpConfigs(configs: readonly McpConfig[]): McpConfig {
  const out: McpConfig = { servers: {}, sources: {} };
  for (const c of configs) {
    Object.assign(out.servers, c.servers);
    Object.assign(out.sources, c.sources);
    if (c.timeouts) out.timeouts = { ...out.timeouts, ...c.timeouts };
  }
  return out;
}

/** Parses every `--mcp-config` value and merges them. @throws McpConfigError */
export function parseMcpConfigValues(values: readonly string[], cwd: string): McpConfig {
  return mergeMcpConfigs(values.map((v) => parseMcpConfigValue(v, cwd)));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/** SHA-256 (hex) of a value's canonical JSON (sorted keys): equal configs hash equal. */
export function configHash(v: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(v)))
    .digest('hex');
}

/** Whether a server config is a remote (HTTP or SSE) server. */
export function isRemoteServer(s: McpServerConfig): s is z.infer<typeof RemoteServerSchema> {
  return s.type === 'http' || s.type === 'sse';
}
