/** Reads a session's agent types (src/common/agents.ts) back from its content store. */
import type { AgentDefinition, AgentList } from '../../common/agents';
import { AGENT_LIST_VERSION, builtInAgents } from '../../common/agents';
import type { ContentRef } from '../../common/content-ref';
import type { TranscriptStore } from '../../store/transcript-store';

/**
 * The session's agent types: its stored list (`ref`), or the built-in ones without a ref.
 * @throws Error when the ref names nothing in the store, or a list of a newer schema
 */
export async function loadAgentList(
  store: TranscriptStore,
  sessionId: string,
  ref: ContentRef | undefined,
): Promise<AgentDefinition[]> {
  if (!ref) return builtInAgents();
  const body = await store.getContent(sessionId, ref.key);
  if (!body) throw new Error(`session ${sessionId}: the agent list ${ref.key} is not in the store`);
  const list = JSON.parse(body.toString('utf8')) as AgentList;
  if (list.v > AGENT_LIST_VERSION) {
    throw new Error(
      `session ${sessionId}: the agent list ${ref.key} has schema version ${list.v}; this version reads ${AGENT_LIST_VERSION}`,
    );
  }
  return list.agents;
}

/**
 * The types the agent listing shows: the session's list without those `Agent(<type>)` deny rules
 * name (`denied`), as Claude Code 2.1.328 lists them.
 */
export async function listedAgents(
  store: TranscriptStore,
  sessionId: string,
  types: { ref?: ContentRef; denied?: readonly string[] },
): Promise<AgentDefinition[]> {
  const all = await loadAgentList(store, sessionId, types.ref);
  const denied = types.denied ?? [];
  return denied.length === 0 ? all : all.filter((a) => !denied.includes(a.agentType));
}
