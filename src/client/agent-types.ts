/**
 * A session's agent types (what the `Agent` tool's `subagent_type` selects), put together where
 * the session starts: Claude Code 2.1.328's built-in types, the catalog's `.claude/agents` and
 * `~/.claude/agents` files and plugins' agents, `--agents` JSON and the SDK's `agents` option, in
 * that precedence (a later source's type of the same name wins). The list is stored once as
 * content (`agents/<sha256>`); turns carry its ref (`TurnOptions.agentsRef`).
 */
import { createHash } from 'node:crypto';
import type { AgentDefinition, AgentList, AgentSource } from '../common/agents';
import { AGENT_LIST_VERSION, AGENTS_KEY_PREFIX, builtInAgents, mergeAgentDefinitions } from '../common/agents';
import type { ContentRef } from '../common/content-ref';
import type { AgentDefinition as CatalogAgent } from '../config-files/definitions/types';
import type { TranscriptStore } from '../store/transcript-store';
import { agentRunFields, warnUnappliedAgentKeys } from '../config-files/definitions/agent-fields';

/** Thrown for an `--agents` / SDK `agents` value that is not a map of agent definitions. */
export class AgentsOptionError extends Error {
  override readonly name = 'AgentsOptionError';
}

/** A definition file of the catalog as an agent type (its body is the agent's system prompt). */
export function catalogAgentType(a: CatalogAgent): AgentDefinition {
  return {
    agentType: a.name,
    description: a.description,
    ...(a.tools !== undefined ? { tools: a.tools } : {}),
    ...(a.disallowedTools !== undefined ? { disallowedTools: a.disallowedTools } : {}),
    ...(a.model !== undefined ? { model: a.model } : {}),
    ...a.run,
    prompt: { text: a.prompt.trim() },
    source: a.scope === 'plugin' ? 'plugin' : a.scope,
    filePath: a.path,
  };
}

const stringList = (v: unknown, where: string): string[] => {
  if (typeof v === 'string') {
    return v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  }
  if (!Array.isArray(v) || v.some((t) => typeof t !== 'string')) {
    throw new AgentsOptionError(`${where}: must be a list of tool names`);
  }
  return v as string[];
};

/**
 * The agent types of an `--agents` JSON text or the SDK's `agents` option: an object whose keys
 * are type names and whose values have `description` and `prompt` (strings, required), and may
 * have `tools` and `disallowedTools` (lists of tool names), `model` (an alias, `inherit` or an
 * id), `maxTurns` (a positive integer), `background` (boolean), `permissionMode`, `effort`,
 * `skills`, `mcpServers`, `isolation` (src/config-files/definitions/agent-fields.ts; the last three
 * are not applied yet and warned about once on stderr) and `caps`
 * (`{ maxBudgetUsd?, maxTokens? }`, the runner's extension).
 * @param value the parsed object, or the JSON text (`--agents '{…}'`)
 * @throws AgentsOptionError naming the first bad key, for JSON that does not parse or has the wrong shape
 */
export function parseAgentsOption(
  value: unknown,
  source: Extract<AgentSource, 'cli' | 'sdk'>,
  warn: (m: string) => void = (m) => process.stderr.write(`agent-runner: ${m}\n`),
): AgentDefinition[] {
  const flag = source === 'cli' ? '--agents' : 'agents';
  let raw = value;
  if (typeof value === 'string') {
    try {
      raw = JSON.parse(value);
    } catch (e) {
      throw new AgentsOptionError(`${flag}: not valid JSON (${(e as Error).message})`);
    }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new AgentsOptionError(`${flag}: must be an object mapping agent names to definitions`);
  }
  return Object.entries(raw as Record<string, unknown>).map(([name, d]) => {
    const where = `${flag}: agent "${name}"`;
    // The name is the Agent call's `subagent_type`: an empty one can never be called.
    if (name.trim() === '') throw new AgentsOptionError(`${flag}: an agent name must be a non-empty string`);
    if (typeof d !== 'object' || d === null || Array.isArray(d))
      throw new AgentsOptionError(`${where}: must be an object`);
    const o = d as Record<string, unknown>;
    for (const k of ['description', 'prompt'] as const) {
      if (typeof o[k] !== 'string' || o[k] === '')
        throw new AgentsOptionError(`${where}: "${k}" must be a non-empty string`);
    }
    if (o['model'] !== undefined && typeof o['model'] !== 'string') {
      throw new AgentsOptionError(`${where}: "model" must be a string`);
    }
    const maxTurns = o['maxTurns'];
    if (maxTurns !== undefined && !(typeof maxTurns === 'number' && Number.isInteger(maxTurns) && maxTurns > 0)) {
      throw new AgentsOptionError(`${where}: "maxTurns" must be a positive integer`);
    }
    const run = agentRunFields(o);
    if (run.problems[0] !== undefined) throw new AgentsOptionError(`${where}: ${run.problems[0]}`);
    warnUnappliedAgentKeys(run.unapplied, where, warn);
    return {
      agentType: name,
      description: o['description'] as string,
      ...(o['tools'] !== undefined ? { tools: stringList(o['tools'], `${where}: "tools"`) } : {}),
      ...(o['disallowedTools'] !== undefined
        ? { disallowedTools: stringList(o['disallowedTools'], `${where}: "disallowedTools"`) }
        : {}),
      ...(typeof o['model'] === 'string' ? { model: o['model'] } : {}),
      ...run.fields,
      ...(capsOf(o['caps'], where) ?? {}),
      prompt: { text: o['prompt'] as string },
      source,
    };
  });
}

function capsOf(v: unknown, where: string): Pick<AgentDefinition, 'caps'> | undefined {
  if (v === undefined) return undefined;
  const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  const ok = (x: unknown): boolean => x === undefined || (typeof x === 'number' && x > 0);
  if (typeof v !== 'object' || v === null || !ok(o['maxBudgetUsd']) || !ok(o['maxTokens'])) {
    throw new AgentsOptionError(`${where}: "caps" must be { maxBudgetUsd?: number > 0, maxTokens?: number > 0 }`);
  }
  return {
    caps: {
      ...(typeof o['maxBudgetUsd'] === 'number' ? { maxBudgetUsd: o['maxBudgetUsd'] } : {}),
      ...(typeof o['maxTokens'] === 'number' ? { maxTokens: o['maxTokens'] } : {}),
    },
  };
}

/** Where a session's agent types come from. */
export interface AgentTypeSources {
  /** The catalog's agents (plugins', the user's, the project's). */
  catalog?: readonly CatalogAgent[];
  /** `--agents`. */
  cli?: readonly AgentDefinition[];
  /** The SDK's `agents` option. */
  sdk?: readonly AgentDefinition[];
  /**
   * The environment: `CLAUDE_AGENT_SDK_DISABLE_BUILTIN_AGENTS=1` drops every built-in type,
   * `CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS=1` drops `Explore` and `Plan` (as 2.1.328).
   */
  env?: NodeJS.ProcessEnv;
}

const on = (v: string | undefined): boolean => v === '1' || v === 'true';

/** The session's agent types, merged by precedence and sorted as 2.1.328 lists them. */
export function sessionAgentTypes(s: AgentTypeSources): AgentDefinition[] {
  const env = s.env ?? process.env;
  const builtIn = on(env['CLAUDE_AGENT_SDK_DISABLE_BUILTIN_AGENTS'])
    ? []
    : builtInAgents({ explorePlan: !on(env['CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS']) });
  const catalog = (s.catalog ?? []).map(catalogAgentType);
  const order: AgentSource[] = ['plugin', 'user', 'project'];
  return mergeAgentDefinitions([
    builtIn,
    ...order.map((src) => catalog.filter((a) => a.source === src)),
    s.cli ?? [],
    s.sdk ?? [],
  ]);
}

/** Stores a session's agent types (`agents/<sha256>`, an {@link AgentList}); the same list gives the same ref. */
export async function putAgentList(
  store: TranscriptStore,
  sessionId: string,
  agents: readonly AgentDefinition[],
): Promise<ContentRef> {
  const list: AgentList = { v: AGENT_LIST_VERSION, agents: [...agents] };
  const bytes = Buffer.from(JSON.stringify(list), 'utf8');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const key = `${AGENTS_KEY_PREFIX}${sha256}`;
  const stored = await store.putContent(sessionId, key, bytes);
  return { key, bytes: stored.size, sha256: stored.sha256 };
}
