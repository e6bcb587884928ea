/**
 * What the client stores for a session before its turns run, so that workflow inputs carry refs
 * (workflow history never holds the content, whatever its size):
 * - turn options on their way to Temporal: the system prompt parts and the user's own memory
 *   files go into the session's content blobs, and the options carry their keys;
 * - the `--mcp-config` servers and the hooks of the settings files, as sidecar lines whose uuid
 *   is the ref. Activities read them back (src/store/mcp-sidecar.ts,
 *   src/activities/hooks/run-hooks.ts).
 */
import { createHash } from 'node:crypto';
import type { MemoryFile } from '../common/context';
import type { HooksConfig } from '../common/hooks';
import type { TurnOptions } from '../common/turn';
import type { McpConfig } from '../config-files/mcp-config';
import { configHash } from '../config-files/mcp-config';
import { putContextContent } from '../store/context-content';
import { MCP_CONFIG_SUBTYPE } from '../store/mcp-sidecar';
import { sidecarEntry } from '../store/sidecar';
import type { TranscriptStore } from '../store/transcript-store';
import { uuidV5 } from '../store/uuid';

/** Subtype of the hooks config's sidecar line. */
export const HOOKS_CONFIG_SUBTYPE = 'hooks_config';

/**
 * `options` with `systemPrompt` and `appendSystemPrompt` replaced by `systemPromptKey` and
 * `appendSystemPromptKey`, and `userMemoryKey` set when the user's memory is wanted (the
 * `user` setting source, on by default) and there is some.
 * @param userMemory loads the user's memory files (called at most when needed)
 */
export async function storeContextOptions<T extends Partial<TurnOptions>>(
  store: TranscriptStore,
  sessionId: string,
  options: T,
  userMemory: () => Promise<readonly MemoryFile[]>,
): Promise<T> {
  const { systemPrompt, appendSystemPrompt, ...rest } = options;
  const out = { ...rest } as T;
  if (systemPrompt !== undefined) {
    out.systemPromptKey = await putContextContent(store, sessionId, 'system-prompt', systemPrompt);
  }
  if (appendSystemPrompt !== undefined) {
    out.appendSystemPromptKey = await putContextContent(store, sessionId, 'append-system-prompt', appendSystemPrompt);
  }
  if (options.userMemoryKey === undefined && (options.settingSources ?? ['user']).includes('user')) {
    const files = await userMemory();
    if (files.length > 0) {
      out.userMemoryKey = await putContextContent(store, sessionId, 'user-memory', JSON.stringify(files));
    }
  }
  return out;
}

/**
 * Stores a session's MCP config (once per distinct config) and returns its ref (the line's uuid),
 * which `TurnOptions.mcp.configRef` carries. `${VAR}` references are stored unexpanded.
 */
export async function storeMcpConfig(
  store: TranscriptStore,
  sessionId: string,
  config: McpConfig,
  cwd: string,
): Promise<string> {
  const uuid = uuidV5(`${sessionId}/mcp-config/${configHash(config)}`);
  // `cwd` as on prompt lines: a session whose first line this is is still found by `--continue`.
  await store.append(sidecarEntry(sessionId, uuid, MCP_CONFIG_SUBTYPE, { mcpConfig: config, cwd }));
  return uuid;
}

/** Stores a session's hooks config; returns its ref. */
export async function storeHooksConfig(
  store: TranscriptStore,
  sessionId: string,
  hooks: HooksConfig,
  cwd: string,
): Promise<string> {
  const hash = createHash('sha256').update(JSON.stringify(hooks)).digest('hex');
  const uuid = uuidV5(`${sessionId}/hooks-config/${hash}`);
  await store.append(sidecarEntry(sessionId, uuid, HOOKS_CONFIG_SUBTYPE, { hooksConfig: hooks, cwd }));
  return uuid;
}
