/**
 * MCP (Model Context Protocol) wire types and tool naming, shared by the workflows, the
 * activities and the client. JSON-safe and pure: tool schemas, server commands and results are
 * content and live in the transcript store; workflow history carries the refs below.
 */

/** Prefix of every MCP tool name the model sees (`mcp__<server>__<tool>`), as in Claude Code. */
export const MCP_TOOL_PREFIX = 'mcp__';

/**
 * A server or tool name as it appears inside an `mcp__…` tool name: every character other than
 * letters, digits, `_` and `-` becomes `_` (Claude Code normalizes the same way, so the Messages
 * API's tool-name pattern `^[a-zA-Z0-9_-]{1,128}$` holds).
 */
export function normalizeMcpName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/** The name the model calls a server's tool by: `mcp__<server>__<tool>`. */
export function mcpToolName(server: string, tool: string): string {
  return `${MCP_TOOL_PREFIX}${normalizeMcpName(server)}__${normalizeMcpName(tool)}`;
}

/** True for a tool name in the MCP namespace (`mcp__…`). */
export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_TOOL_PREFIX);
}

/**
 * The (normalized) server part of an MCP tool name or of a server rule: `mcp__git__status` →
 * `git`, `mcp__git` → `git`; null for a name outside the MCP namespace.
 */
export function mcpServerOf(name: string): string | null {
  if (!isMcpToolName(name)) return null;
  const rest = name.slice(MCP_TOOL_PREFIX.length);
  const sep = rest.indexOf('__');
  return sep === -1 ? rest : rest.slice(0, sep);
}

/**
 * Whether a permission rule names an MCP tool, as Claude Code reads MCP rules: `mcp__server`
 * (every tool of the server), `mcp__server__*` (the same) or `mcp__server__tool` (one tool).
 * Pure: used by the permission decision in the workflow.
 */
export function mcpRuleMatches(rule: string, toolName: string): boolean {
  if (!isMcpToolName(rule) || !isMcpToolName(toolName)) return false;
  if (rule === toolName) return true;
  const server = mcpServerOf(toolName);
  return rule === `${MCP_TOOL_PREFIX}${server}` || rule === `${MCP_TOOL_PREFIX}${server}__*`;
}

/** Connection status of one MCP server, as `system/init` reports it (`mcp_servers[].status`). */
export type McpServerStatus = 'connected' | 'failed' | 'pending' | 'needs-auth';

/** One server in `system/init` and in the connect summary. */
export interface McpServerState {
  name: string;
  status: McpServerStatus;
  /** Where the server was configured; `dynamic` for `--mcp-config`, as in Claude Code. */
  source?: string;
}

/** Input of the `connectMcpServers` activity. */
export interface ConnectMcpInput {
  sessionId: string;
  /** Working directory: stdio servers are spawned there. */
  cwd: string;
  /** Uuid of the session's stored MCP config line (see `src/store/mcp-sidecar.ts`). */
  configRef: string;
}

/**
 * Output of `connectMcpServers`: small. The tool list with schemas is content and is stored in
 * the transcript store under `toolsRef`; `callModel` and `runTool` read it from there.
 */
export interface ConnectMcpSummary {
  /** Uuid of the stored tool list line (stable for the same config, cwd and tools). */
  toolsRef: string;
  servers: McpServerState[];
  /** Number of tools offered (all servers). */
  toolCount: number;
  /**
   * Servers that did not start, each with its reason (the server's own stderr, cut to 2 KB):
   * the turn ends before any model call when this is not empty.
   */
  failures: Array<{ name: string; error: string }>;
}
