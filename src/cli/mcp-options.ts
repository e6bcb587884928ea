import { McpConfigError, parseMcpConfigValues } from '../config-files/mcp-config';
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
export function mcpConfigFromFlags(flags: McpFlags, cwd: string): McpConfig | undefined {
  if (!flags.mcpConfig?.length) return undefined;
  let config: McpConfig;
  try {
    config = parseMcpConfigValues(flags.mcpConfig, cwd);
  } catch (e) {
    if (e instanceof McpConfigError) throw new UsageError(e.message);
    throw e;
  }
  return Object.keys(config.servers).length > 0 ? config : undefined;
}
