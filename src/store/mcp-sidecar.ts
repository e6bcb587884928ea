/**
 * MCP content kept in the transcript store: the session's MCP config and the tool lists (with
 * their JSON schemas) that the model is offered. Both are sidecar lines: `type: "system"`, no
 * parent, `isSidecar: true` (never on the conversation chain, never a leaf), with name-based
 * uuids so that writing the same content twice is a no-op in every store backend.
 */
import type { McpServerState } from '../common/mcp';
import { uuidV5 } from './uuid';
import { sidecarEntry } from './sidecar';
import type { TranscriptStore } from './transcript-store';
import type { McpConfig } from '../config-files/mcp-config';
import { configHash } from '../config-files/mcp-config';

/** One MCP tool as offered to the model. */
export interface StoredMcpTool {
  /** `mcp__<server>__<tool>`. */
  name: string;
  /** Server name as configured. */
  server: string;
  /** Tool name as the server knows it. */
  tool: string;
  description: string;
  /** JSON Schema of the input (an object schema), as the server declared it. */
  input_schema: { type: 'object'; [key: string]: unknown };
  /** MCP tool annotations (`readOnlyHint`, `idempotentHint`, …), when the server gave any. */
  annotations?: Record<string, unknown>;
}

/** Content of an `mcp_tools` line. */
export interface StoredMcpTools {
  configRef: string;
  cwd: string;
  servers: McpServerState[];
  tools: StoredMcpTool[];
}

/** Subtypes of the sidecar lines written here (the config by the client: src/client/stored-config.ts). */
export const MCP_CONFIG_SUBTYPE = 'mcp_config';
export const MCP_TOOLS_SUBTYPE = 'mcp_tools';

/** Reads a stored MCP config. @throws Error when the ref is not in the store */
export async function loadMcpConfig(store: TranscriptStore, sessionId: string, ref: string): Promise<McpConfig> {
  const e = await store.get(sessionId, ref);
  const config = e?.['mcpConfig'] as McpConfig | undefined;
  if (!config) throw new Error(`MCP config ${ref} of session ${sessionId} is not in the transcript store`);
  return config;
}

/** Stores a tool list; the ref depends on its content only. */
export async function storeMcpTools(store: TranscriptStore, sessionId: string, tools: StoredMcpTools): Promise<string> {
  const uuid = uuidV5(`${sessionId}/mcp-tools/${configHash(tools)}`);
  await store.append(sidecarEntry(sessionId, uuid, MCP_TOOLS_SUBTYPE, { mcpTools: tools }));
  return uuid;
}

/** Reads a stored tool list. @throws Error when the ref is not in the store */
export async function loadMcpTools(store: TranscriptStore, sessionId: string, ref: string): Promise<StoredMcpTools> {
  const e = await store.get(sessionId, ref);
  const tools = e?.['mcpTools'] as StoredMcpTools | undefined;
  if (!tools) throw new Error(`MCP tool list ${ref} of session ${sessionId} is not in the transcript store`);
  return tools;
}
