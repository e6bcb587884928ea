/**
 * What a session's repository, its user and its plugins define for the agent (Claude Code's
 * custom slash commands, skills, subagent definitions and plugins), as one JSON-safe catalog. The
 * client reads it (src/config-files/definitions/catalog.ts) and stores it as content; the
 * activities that expand a command, load a skill or list skills to the model read it from there,
 * so every host of a turn sees the same definitions. Pure types.
 */

import type { AgentRunFields } from './agent-fields';

/** Where a definition came from. */
export type DefinitionScope = 'user' | 'project' | 'plugin';

/**
 * A custom slash command (`.claude/commands/<name>.md`) or a skill
 * (`.claude/skills/<name>/SKILL.md`): both are prompts the user can type as `/name args` and
 * the model can load with the Skill tool.
 */
export interface CommandDefinition {
  kind: 'command' | 'skill';
  /** As typed after `/`: subfolders and plugins joined by `:` (`frontend:component`, `demo:hello`). */
  name: string;
  /** `description` of the frontmatter, else the body's first line. */
  description: string;
  /** `argument-hint` (a YAML list joined by spaces), or ''. */
  argumentHint: string;
  /** `allowed-tools`: permission rules that apply once the command or skill runs. */
  allowedTools: string[];
  /** `model`: the model of the turn a typed command starts. */
  model?: string;
  /** `disable-model-invocation`: only a person may run it (the Skill tool refuses it; not listed to the model). */
  disableModelInvocation: boolean;
  /** The text after the frontmatter. */
  body: string;
  /** Absolute path of the file. */
  path: string;
  /** Skills: the skill's directory (the model is told it, for the skill's other files). */
  baseDir?: string;
  scope: DefinitionScope;
  /** Plugin name, for `scope: "plugin"`. */
  plugin?: string;
}

/**
 * A subagent definition (`.claude/agents/<name>.md`, `~/.claude/agents`, a plugin's `agents/`):
 * the interface the `Agent` tool (issue 20) consumes. Nothing runs agents yet; `system/init`
 * lists them (`agents`).
 */
export interface AgentDefinition {
  /** `name` of the frontmatter (else the file name); plugin agents as `<plugin>:<name>`. */
  name: string;
  description: string;
  /** `tools`: the tools it may use; absent for all of them. */
  tools?: string[];
  /** `disallowedTools`, when given. */
  disallowedTools?: string[];
  /** `model` (`sonnet`, `opus`, `haiku`, `inherit` or a model id), when given. */
  model?: string;
  /** The body: the agent's system prompt. */
  prompt: string;
  /** Absolute path of the file. */
  path: string;
  scope: DefinitionScope;
  plugin?: string;
  /** `permissionMode`, `maxTurns`, `effort`, `background`, `isolation`, `skills`, `mcpServers`, when given (src/config-files/definitions/agent-fields.ts). */
  run?: AgentRunFields;
}

/** A plugin the session loaded, as `system/init.plugins` lists it. */
export interface PluginInfo {
  name: string;
  /** Absolute directory of the plugin. */
  path: string;
  /** `<name>@inline` for `--plugin-dir`, `<name>@<marketplace>` for one enabled in settings. */
  source: string;
  version?: string;
}

/** Schema version of a stored {@link Definitions} catalog. */
export const DEFINITIONS_VERSION = 1;

/** The catalog of one session's definitions. */
export interface Definitions {
  v: number;
  /**
   * Commands and skills, in Claude Code's listing order: user skills, project skills, commands
   * (user and project) by name, plugin commands, plugin skills. A name appears once (the user's
   * wins over the project's).
   */
  commands: CommandDefinition[];
  agents: AgentDefinition[];
  plugins: PluginInfo[];
}

/** An empty catalog (`--bare`, or nothing defined). */
export function emptyDefinitions(): Definitions {
  return { v: DEFINITIONS_VERSION, commands: [], agents: [], plugins: [] };
}
