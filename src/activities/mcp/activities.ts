/**
 * The MCP parts of the worker's activities: `connectMcpServers` (start the session's servers on
 * this worker, list their tools, store the list) and the execution of one `mcp__…` tool call
 * (through the worker's {@link McpClientPool}), which `runTool` dispatches to.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ConnectMcpInput, ConnectMcpSummary, McpServerState } from '../../common/mcp';
import { mcpToolName } from '../../common/mcp';
import type { ContentBlock } from '../../common/transcript';
import type { TranscriptStore } from '../../store/transcript-store';
import type { ToolContext, ToolOutput } from '../tools/types';
import type { McpConfig } from '../../config-files/mcp-config';
import type { McpClientPool } from './pool';
import { McpServerDiedError, McpServerStartError } from './pool';
import type { StoredMcpTool, StoredMcpTools } from '../../store/mcp-sidecar';
import { loadMcpConfig, loadMcpTools, storeMcpTools } from '../../store/mcp-sidecar';

/** What the MCP activities need from the worker. */
export interface McpDeps {
  store: TranscriptStore;
  pool: McpClientPool;
}

/** Bytes of a server failure message kept (the server's stderr is cut to its tail). */
const MAX_FAILURE_CHARS = 2048;

function inputSchemaOf(t: Tool): StoredMcpTool['input_schema'] {
  const s = (t.inputSchema ?? {}) as Record<string, unknown>;
  return { ...s, type: 'object' };
}

/**
 * Creates `connectMcpServers`: starts (or reuses) every server of the stored config on this
 * worker, in the turn's working directory, lists their tools and stores the list (with schemas)
 * as content. Never throws for a server that does not start: it is reported in `failures` with
 * its own stderr and as `failed` in `servers`.
 */
export function createConnectMcpServers(deps: McpDeps): (input: ConnectMcpInput) => Promise<ConnectMcpSummary> {
  return async (input) => {
    const config = await loadMcpConfig(deps.store, input.sessionId, input.configRef);
    const names = Object.keys(config.servers);
    const listed = await Promise.allSettled(
      names.map((name) => deps.pool.listTools(name, config.servers[name]!, input.cwd, config.timeouts ?? {})),
    );
    const servers: McpServerState[] = [];
    const failures: ConnectMcpSummary['failures'] = [];
    const tools: StoredMcpTool[] = [];
    listed.forEach((r, i) => {
      const name = names[i]!;
      if (r.status === 'rejected') {
        servers.push({ name, status: 'failed', source: sourceOf(name) });
        const reason = r.reason instanceof Error ? r.reason.message : String(r.reason);
        failures.push({
          name,
          error: `${config.sources[name] ?? `mcpServers.${name}`}: ${reason}`.slice(-MAX_FAILURE_CHARS),
        });
        return;
      }
      servers.push({ name, status: 'connected', source: sourceOf(name) });
      for (const t of r.value) {
        tools.push({
          name: mcpToolName(name, t.name),
          server: name,
          tool: t.name,
          description: t.description ?? '',
          input_schema: inputSchemaOf(t),
          ...(t.annotations ? { annotations: { ...t.annotations } } : {}),
        });
      }
    });
    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const stored: StoredMcpTools = { configRef: input.configRef, cwd: input.cwd, servers, tools };
    const toolsRef = await storeMcpTools(deps.store, input.sessionId, stored);
    return { toolsRef, servers, toolCount: tools.length, failures };
  };
}

/** MCP content blocks → Messages API `tool_result` content blocks. */
export function toToolResultContent(content: CallToolResult['content']): ContentBlock[] {
  return (content ?? []).map((b): ContentBlock => {
    switch (b.type) {
      case 'text':
        return { type: 'text', text: b.text };
      case 'image':
        return { type: 'image', source: { type: 'base64', media_type: b.mimeType, data: b.data } };
      case 'resource': {
        const r = b.resource as { uri: string; text?: string; mimeType?: string };
        return { type: 'text', text: r.text ?? `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ''}]` };
      }
      case 'resource_link':
        return { type: 'text', text: `[resource link ${b.uri}${b.name ? ` (${b.name})` : ''}]` };
      default:
        return { type: 'text', text: `[unsupported MCP content: ${(b as { type: string }).type}]` };
    }
  });
}

function textOf(content: CallToolResult['content']): string {
  return (content ?? [])
    .filter((b): b is { type: 'text'; text: string } => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

function errorOutput(message: string): ToolOutput & { outcome: 'error' } {
  return { content: message, isError: true, structured: `Error: ${message}`, outcome: 'error' };
}

/** Tool lists and configs by ref, cached (both are immutable once stored). */
class RefCache<T> {
  private readonly items = new Map<string, Promise<T>>();
  get(key: string, load: () => Promise<T>): Promise<T> {
    let p = this.items.get(key);
    if (!p) {
      p = load();
      this.items.set(key, p);
      p.catch(() => this.items.delete(key));
      if (this.items.size > 256) this.items.delete(this.items.keys().next().value as string);
    }
    return p;
  }
}

/** Runs `mcp__…` tool calls for `runTool`. */
export interface McpToolExecutor {
  /**
   * Runs the MCP tool `name` on `rawInput`, with the tool list stored under `toolsRef`. Never
   * throws: an unknown tool, a server that does not start or dies mid-call, a protocol error and
   * an `isError` result all become `is_error` outputs, as in Claude Code.
   */
  execute(
    sessionId: string,
    toolsRef: string,
    name: string,
    rawInput: unknown,
    ctx: ToolContext,
  ): Promise<ToolOutput & { outcome: 'ok' | 'error' | 'invalid' }>;
}

/** Creates the executor of MCP tool calls over the worker's pool. */
export function createMcpToolExecutor(deps: McpDeps): McpToolExecutor {
  const lists = new RefCache<StoredMcpTools>();
  const configs = new RefCache<McpConfig>();
  return {
    async execute(sessionId, toolsRef, name, rawInput, ctx) {
      const list = await lists.get(`${sessionId}/${toolsRef}`, () => loadMcpTools(deps.store, sessionId, toolsRef));
      const tool = list.tools.find((t) => t.name === name);
      if (!tool) {
        return {
          content: `<tool_use_error>Error: No such tool available: ${name}</tool_use_error>`,
          isError: true,
          structured: `Error: No such tool available: ${name}`,
          outcome: 'invalid',
        };
      }
      if (rawInput === null || typeof rawInput !== 'object' || Array.isArray(rawInput)) {
        return {
          content: `<tool_use_error>InputValidationError: ${name}: the input must be a JSON object</tool_use_error>`,
          isError: true,
          structured: 'InputValidationError: the input must be a JSON object',
          outcome: 'invalid',
        };
      }
      const config = await configs.get(`${sessionId}/${list.configRef}`, () =>
        loadMcpConfig(deps.store, sessionId, list.configRef),
      );
      const server = config.servers[tool.server];
      if (!server) return errorOutput(`MCP server "${tool.server}" is no longer configured`);
      try {
        const result = await deps.pool.callTool(
          tool.server,
          server,
          ctx.cwd,
          tool.tool,
          rawInput as Record<string, unknown>,
          {
            signal: ctx.signal,
            onProgress: () => ctx.heartbeat(),
            ...(config.timeouts ? { timeouts: config.timeouts } : {}),
          },
        );
        if (result.isError) return errorOutput(textOf(result.content));
        const content = toToolResultContent(result.content);
        return { content, isError: false, structured: content, outcome: 'ok' };
      } catch (e) {
        if (e instanceof McpServerDiedError || e instanceof McpServerStartError) return errorOutput(e.message);
        return errorOutput(e instanceof Error ? e.message : String(e));
      }
    },
  };
}

/** The Messages API `tools` entries of a stored MCP tool list. */
export async function mcpToolSpecs(
  store: TranscriptStore,
  sessionId: string,
  ref: string,
): Promise<Array<{ name: string; description: string; input_schema: StoredMcpTool['input_schema'] }>> {
  const list = await loadMcpTools(store, sessionId, ref);
  return list.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema }));
}

/** Where a server was configured, as `system/init` says: a plugin's (`plugin:<name>:<server>`) or `--mcp-config` (`dynamic`). */
function sourceOf(name: string): string {
  return name.startsWith('plugin:') ? 'plugin' : 'dynamic';
}
