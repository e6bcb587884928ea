/**
 * Subagent definitions (`.claude/agents/*.md`, `~/.claude/agents/*.md`, a plugin's `agents/`):
 * frontmatter `name`, `description`, `tools`, `disallowedTools`, `model` and the run settings
 * (`permissionMode`, `maxTurns`, `effort`, `background`, …: src/config-files/definitions/agent-fields.ts);
 * the body is the agent's system prompt. This is the list issue 20's `Agent` tool takes its agent types from
 * ({@link AgentDefinition}); a plugin's agents are named `<plugin>:<name>`.
 */
import type { AgentDefinition } from './types';
import type { DefinitionOrigin } from './commands';
import { markdownFiles } from './files';
import { agentRunFields, warnUnappliedAgentKeys } from './agent-fields';
import { firstLine, parseFrontmatter, textField, toolListField } from './frontmatter';

/** The agents of one directory (not recursive), sorted by name. */
export function loadAgentDir(dir: string, origin: DefinitionOrigin, warn: (m: string) => void): AgentDefinition[] {
  return markdownFiles(dir, origin.roots, warn, false).map((f) => {
    const { data, body } = parseFrontmatter(f.text);
    const own = textField(data['name']) || f.rel;
    const tools = data['tools'] === undefined ? undefined : toolListField(data['tools']);
    const disallowed = data['disallowedTools'] === undefined ? undefined : toolListField(data['disallowedTools']);
    const model = textField(data['model']);
    const run = agentRunFields(data);
    for (const problem of run.problems) warn(`${f.path}: ${problem}; ignored`);
    warnUnappliedAgentKeys(run.unapplied, f.path, warn);
    return {
      name: origin.plugin !== undefined ? `${origin.plugin}:${own}` : own,
      description: textField(data['description']) || firstLine(body),
      ...(tools !== undefined ? { tools } : {}),
      ...(disallowed !== undefined ? { disallowedTools: disallowed } : {}),
      ...(model !== '' ? { model } : {}),
      prompt: body,
      path: f.path,
      scope: origin.scope,
      ...(origin.plugin !== undefined ? { plugin: origin.plugin } : {}),
      ...(Object.keys(run.fields).length > 0 ? { run: run.fields } : {}),
    };
  });
}
