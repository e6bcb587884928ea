/**
 * The system prompt of a subagent (block 2 of its request's `system`), as Claude Code 2.1.328
 * builds it: the type's own text (a built-in type's from the worker, a custom type's body from its
 * definition or the store), a blank line and the common suffix; for a Haiku model, a last line
 * giving the context left (recorded: `<total_tokens>15000000 tokens left</total_tokens>` for
 * general-purpose and custom agents on `claude-haiku-5-5`, never on Sonnet or Opus).
 */
import type { AgentDefinition } from '../../common/agents';
import type { ContentRef } from '../../common/content-ref';
import { BUILT_IN_AGENT_PROMPTS, SUBAGENT_PROMPT_SUFFIX } from './built-in-prompts';

/** What Claude Code appends for Haiku subagents (recorded verbatim). */
export const HAIKU_CONTEXT_LINE = '<total_tokens>15000000 tokens left</total_tokens>';

/**
 * The agent's system prompt text.
 * @param readRef reads a prompt stored by ref (the session's content store)
 * @throws Error when a stored prompt cannot be read (the store's error)
 */
export async function agentSystemPrompt(
  def: Pick<AgentDefinition, 'prompt'>,
  model: string,
  readRef: (ref: ContentRef) => Promise<string>,
): Promise<string> {
  const p = def.prompt;
  // A custom body loses its trailing newlines (a file ends with one); a built-in text is Claude Code's own.
  const own =
    'builtIn' in p ? BUILT_IN_AGENT_PROMPTS[p.builtIn] : ('text' in p ? p.text : await readRef(p.ref)).trimEnd();
  const text = `${own}\n\n${SUBAGENT_PROMPT_SUFFIX}`;
  return /^claude-haiku-/.test(model) ? `${text}\n\n${HAIKU_CONTEXT_LINE}` : text;
}
