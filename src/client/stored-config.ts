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
import type { ContextContentKind } from '../store/context-content';
import { contextContentKey, putContextContent } from '../store/context-content';
import { MCP_CONFIG_SUBTYPE } from '../store/mcp-sidecar';
import { sidecarEntry } from '../store/sidecar';
import type { TranscriptStore } from '../store/transcript-store';
import { uuidV5 } from '../store/uuid';

/** Subtype of the hooks config's sidecar line. */
export const HOOKS_CONFIG_SUBTYPE = 'hooks_config';

/**
 * Writes a session's context text to the store once: a second `put` of the same text (the same
 * content key) returns the key of the first without writing again. One per engine, so that the
 * defaults and each submission's options, which mostly carry the same system prompt and memory,
 * write each text once.
 */
export class ContextContentWriter {
  private readonly written = new Map<string, Promise<string>>();

  constructor(
    private readonly store: TranscriptStore,
    readonly sessionId: string,
  ) {}

  /** Stores `text` (once per content key) and returns its key. */
  put(kind: ContextContentKind, text: string): Promise<string> {
    const key = contextContentKey(kind, text);
    let write = this.written.get(key);
    if (!write) {
      write = putContextContent(this.store, this.sessionId, kind, text);
      this.written.set(key, write);
      // A failed write is tried again by the next put.
      write.catch(() => this.written.delete(key));
    }
    return write;
  }
}

/**
 * `options` with `systemPrompt` and `appendSystemPrompt` replaced by `systemPromptKey` and
 * `appendSystemPromptKey`, and `userMemoryKey` set when the user's memory is wanted (the
 * `user` setting source, on by default) and there is some.
 * @param content where the texts go (each written once)
 * @param userMemory loads the user's memory files (called at most when needed)
 */
export async function storeContextOptions<T extends Partial<TurnOptions>>(
  content: ContextContentWriter,
  options: T,
  userMemory: () => Promise<readonly MemoryFile[]>,
): Promise<T> {
  const { systemPrompt, appendSystemPrompt, ...rest } = options;
  const out = { ...rest } as T;
  if (systemPrompt !== undefined) {
    out.systemPromptKey = await content.put('system-prompt', systemPrompt);
  }
  if (appendSystemPrompt !== undefined) {
    out.appendSystemPromptKey = await content.put('append-system-prompt', appendSystemPrompt);
  }
  if (options.userMemoryKey === undefined && (options.settingSources ?? ['user']).includes('user')) {
    const files = await userMemory();
    if (files.length > 0) {
      out.userMemoryKey = await content.put('user-memory', JSON.stringify(files));
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
