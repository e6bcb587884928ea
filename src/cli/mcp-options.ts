import { McpConfigError, mcpTimeoutsFromEnv, mcpToolTimeoutMs, parseMcpConfigValues } from '../config-files/mcp-config';
import type { McpConfig } from '../config-files/mcp-config';
import { UsageError } from './turn-options';

/** MCP flags of `-p`, as `claude` has them. */
export interface McpFlags {
  /** `--mcp-config <file-or-json...>` (repeatable): servers of the session. */
  mcpConfig?: string[];
  /**
   * `--strict-mcp-config`: use only the servers of `--mcp-config`. agent-runner reads no other
   * MCP configuration (no `.mcp.json`, no user scope), so every run is strict.
   */
  strictMcpConfig?: boolean;
}

/**
 * The MCP config of a run from its flags, or undefined without `--mcp-config` (or with no servers).
 * @throws UsageError naming the file (or inline JSON) and the field of a malformed config
 */
export function mcpConfigFromFlags(
  flags: McpFlags,
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): McpConfig | undefined {
  if (!flags.mcpConfig?.length) return undefined;
  let config: McpConfig;
  try {
    config = parseMcpConfigValues(flags.mcpConfig, cwd);
    // The run's MCP_TOOL_TIMEOUT and MCP_TIMEOUT go with the servers to the worker that starts them.
    const timeouts = mcpTimeoutsFromEnv(env);
    if (Object.keys(timeouts).length > 0) config.timeouts = timeouts;
  } catch (e) {
    if (e instanceof McpConfigError) throw new UsageError(e.message);
    throw e;
  }
  return Object.keys(config.servers).length > 0 ? config : undefined;
}

/**
 * The tool-activity bound a run needs for its MCP calls (ms): the longest MCP tool timeout of
 * its servers plus a minute, when that is more than `currentMs` (an MCP call must time out as
 * MCP, with its message, before the activity does); undefined when `currentMs` is enough.
 */
export function toolActivityBoundFor(config: McpConfig, currentMs: number): number | undefined {
  const longest = Math.max(...Object.values(config.servers).map((s) => mcpToolTimeoutMs(s, config.timeouts?.toolMs)));
  const needed = longest + 60_000;
  return needed > currentMs ? needed : undefined;
}
