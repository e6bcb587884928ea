/**
 * Agent definitions: the types of subagent the `Agent` tool can start (`subagent_type`), as
 * Claude Code 2.1.328 knows them — its built-in types, `.claude/agents/*.md` and
 * `~/.claude/agents/*.md` files, `--agents` JSON, the SDK's `agents` option and plugins.
 *
 * How a turn gets the session's list: the client builds it once per session (built-ins plus
 * whatever discovery found, in precedence order), stores it as content (`agents/<sha256>`, a JSON
 * {@link AgentList}) and passes its ref as `TurnOptions.agentsRef`. `callModel` reads it for the
 * agent listing of the context and the Agent tool's text; the Agent tool's run reads it to resolve
 * `subagent_type`. Without a ref the list is {@link builtInAgents}() (every built-in type). Only
 * names, tool lists and a model ever reach workflow history (the resolved type of one call); the
 * prompts stay in the store or in the worker's code.
 *
 * Pure and JSON-safe: shared by the client, the activities and the workflows.
 */
import type { ContentRef } from './content-ref';
import type { PermissionMode } from './permissions';

/** Schema version of a stored {@link AgentList}. */
export const AGENT_LIST_VERSION = 1;

/** Content-key prefix of a session's stored agent list (`agents/<sha256>`). */
export const AGENTS_KEY_PREFIX = 'agents/';

/**
 * Where a definition comes from, in Claude Code's precedence order (a later source's agent of the
 * same name wins): `built-in`, `plugin`, `user` (`~/.claude/agents`), `project`
 * (`.claude/agents`), `cli` (`--agents` JSON), `sdk` (the SDK's `agents` option / `initialize`).
 */
export type AgentSource = 'built-in' | 'plugin' | 'user' | 'project' | 'cli' | 'sdk';

/**
 * The system prompt of an agent type: its text (a custom type's body, small), a ref to the text in
 * the session's content store (a large one), or a built-in type's own prompt, which the worker
 * holds (`src/activities/agents/built-in-prompts.ts`) and which never travels.
 */
export type AgentPrompt = { text: string } | { ref: ContentRef } | { builtIn: BuiltInAgentType };

/**
 * Spending caps of one agent (a documented extension of the runner, `docs/agents.md`): each run of
 * an agent of this type stops with the matching error subtype when it reaches one, on top of the
 * parent's limits (which children always draw from).
 */
export interface AgentCaps {
  /** USD the agent may spend per run (its model calls, its own children included). */
  maxBudgetUsd?: number;
  /** Tokens (input + output + cache) the agent may use per run. */
  maxTokens?: number;
}

/** One agent type. JSON-safe. */
export interface AgentDefinition {
  /** The type's name: what the model passes as `subagent_type` (`general-purpose`, `reviewer`). */
  agentType: string;
  /** When to use it: the `description` the model sees in the agent listing. */
  description: string;
  /**
   * Tools the agent may use, by name (`Read`, `Bash`, `mcp__server__tool`), in the order they are
   * offered. Absent or `['*']`: every tool the parent is offered, minus the ones no subagent gets
   * ({@link SUBAGENT_EXCLUDED_TOOLS}).
   */
  tools?: string[];
  /** Tools removed from what {@link tools} allows (`disallowedTools`). */
  disallowedTools?: string[];
  /**
   * Model: an alias (`sonnet`, `opus`, `haiku`, `fable`), `inherit`, or a model id. Absent or
   * `inherit`: the parent's model. An Agent call's `model` input overrides it.
   */
  model?: string;
  prompt: AgentPrompt;
  source: AgentSource;
  /** The definition's file (`.claude/agents/x.md`), for messages; absent for built-in, cli and sdk. */
  filePath?: string;
  /** Permission mode of the agent's tool calls (frontmatter `permissionMode`). Absent: the parent's. */
  permissionMode?: PermissionMode;
  /** Model calls per run of the agent (frontmatter `maxTurns`). Absent: the parent's limit. */
  maxTurns?: number;
  /** Always run in the background (frontmatter `background`). */
  background?: boolean;
  /** Always run in its own git worktree (frontmatter `isolation: worktree`). */
  isolation?: 'worktree';
  /** Reasoning effort of the agent (frontmatter `effort`). */
  effort?: string;
  /** Terminal colour (frontmatter `color`); shown only by interactive Claude Code. */
  color?: string;
  /** Skill names preloaded into the agent's context (frontmatter `skills`). */
  skills?: string[];
  /** MCP server names (or inline configs, as JSON) the agent may use (frontmatter `mcpServers`). */
  mcpServers?: unknown[];
  /** Spending caps (the runner's extension; frontmatter or `--agents` key `caps`). */
  caps?: AgentCaps;
}

/** What the store holds under `agentsRef`: the session's agent types, in listing order. */
export interface AgentList {
  v: number;
  agents: AgentDefinition[];
}

/** Names of Claude Code 2.1.328's built-in agent types. */
export const BUILT_IN_AGENT_TYPES = ['claude', 'Explore', 'general-purpose', 'Plan', 'statusline-setup'] as const;
export type BuiltInAgentType = (typeof BUILT_IN_AGENT_TYPES)[number];

/** The type an Agent call without `subagent_type` starts. */
export const DEFAULT_AGENT_TYPE = 'general-purpose';
/** The `subagent_type` that forks the calling agent instead of starting a fresh one. */
export const FORK_AGENT_TYPE = 'fork';

/** The model aliases an Agent call's `model` input accepts (its schema's enum), as in 2.1.328. */
export const AGENT_MODEL_ALIASES = ['sonnet', 'opus', 'haiku', 'fable'] as const;

/**
 * Tools the read-only built-in types (`Explore`, `Plan`) may not use, as 2.1.328 lists them
 * ("All tools except …").
 */
export const READ_ONLY_AGENT_DISALLOWED = [
  'Agent',
  'Artifact',
  'ArtifactComments',
  'ArtifactData',
  'ArtifactCheck',
  'ExitPlanMode',
  'Edit',
  'Write',
  'NotebookEdit',
] as const;

/**
 * Tools no subagent is offered, whatever its type allows (recorded: a general-purpose agent gets
 * the parent's set minus `ScheduleWakeup`; the others are interactive-only in Claude Code).
 */
export const SUBAGENT_EXCLUDED_TOOLS: ReadonlySet<string> = new Set([
  'ScheduleWakeup',
  'AskUserQuestion',
  'EnterPlanMode',
  'ExitPlanMode',
]);

/**
 * How deep agents may nest (`CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH`): an agent at this depth is not
 * offered `Agent` (the main agent is depth 0). Recorded default 3.
 */
export const DEFAULT_MAX_SPAWN_DEPTH = 3;

/**
 * Claude Code 2.1.328's built-in types, with its descriptions and tool restrictions (recorded in
 * test/conformance/recordings/async/claude-2.1.328/agent-types). Their prompts live in the worker.
 * @param o.explorePlan include `Explore` and `Plan` (off with `CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS=1`)
 */
export function builtInAgents(o: { explorePlan?: boolean } = {}): AgentDefinition[] {
  const readOnly = { disallowedTools: [...READ_ONLY_AGENT_DISALLOWED] };
  const all: AgentDefinition[] = [
    {
      agentType: 'claude',
      description:
        "Catch-all for any task that doesn't fit a more specific agent. FleetView's default when no agent name is typed.",
      tools: ['*'],
      prompt: { builtIn: 'claude' },
      source: 'built-in',
    },
    {
      agentType: 'Explore',
      description:
        'Read-only search agent for broad fan-out searches — when answering means sweeping many files, directories, or naming conventions and you only need the conclusion, not the file dumps. It reads excerpts rather than whole files, so it locates code; it doesn\'t review or audit it. Specify search breadth: "medium" for moderate exploration, "very thorough" for multiple locations and naming conventions.',
      ...readOnly,
      prompt: { builtIn: 'Explore' },
      source: 'built-in',
    },
    {
      agentType: 'general-purpose',
      description:
        'General-purpose agent for researching complex questions, searching for code, and executing multi-step tasks. When you are searching for a keyword or file and are not confident that you will find the right match in the first few tries use this agent to perform the search for you.',
      tools: ['*'],
      prompt: { builtIn: 'general-purpose' },
      source: 'built-in',
    },
    {
      agentType: 'Plan',
      description:
        'Software architect agent for designing implementation plans. Use this when you need to plan the implementation strategy for a task. Returns step-by-step plans, identifies critical files, and considers architectural trade-offs.',
      ...readOnly,
      prompt: { builtIn: 'Plan' },
      source: 'built-in',
    },
    {
      agentType: 'statusline-setup',
      description: "Use this agent to configure the user's Claude Code status line setting.",
      tools: ['Read', 'Edit'],
      prompt: { builtIn: 'statusline-setup' },
      source: 'built-in',
    },
  ];
  return o.explorePlan === false ? all.filter((a) => a.agentType !== 'Explore' && a.agentType !== 'Plan') : all;
}

/**
 * Merges definitions by precedence: for one name the last one wins (pass them in
 * {@link AgentSource} order), and the result is sorted by name, case-insensitively, as 2.1.328
 * lists them (the listing and `system/init.agents`).
 */
export function mergeAgentDefinitions(lists: ReadonlyArray<readonly AgentDefinition[]>): AgentDefinition[] {
  const byName = new Map<string, AgentDefinition>();
  for (const list of lists) for (const a of list) byName.set(a.agentType, a);
  return [...byName.values()].sort((a, b) => compareAgentNames(a.agentType, b.agentType));
}

/** Claude Code's listing order: case-insensitive by name, then by code unit. */
export function compareAgentNames(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x !== y) return x < y ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The definition named `agentType` in `agents`, if any (names are case-sensitive, as in 2.1.328). */
export function findAgent(agents: readonly AgentDefinition[], agentType: string): AgentDefinition | undefined {
  return agents.find((a) => a.agentType === agentType);
}

const allowsAll = (tools: readonly string[] | undefined): boolean => tools === undefined || tools.includes('*');

/**
 * Whether a type names its tools (`tools` without `*`): its agents are offered that list in its
 * order; the others get the parent's set, sorted by name like every request (Claude Code 2.1.328).
 */
export function hasOwnToolList(def: Pick<AgentDefinition, 'tools'>): boolean {
  return !allowsAll(def.tools);
}

/**
 * The tools an agent of type `def` is offered, in order: from what its parent is offered
 * (`parentTools`, in the parent's order), without {@link SUBAGENT_EXCLUDED_TOOLS}; a type with a
 * tool list gets exactly those of its list the session has, in its list's order; then its
 * `disallowedTools` go; and an agent at `maxDepth` loses `Agent`.
 * @param depth the new agent's depth (1 for a child of the main agent)
 */
export function agentTools(
  def: Pick<AgentDefinition, 'tools' | 'disallowedTools'>,
  parentTools: readonly string[],
  depth: number,
  maxDepth: number = DEFAULT_MAX_SPAWN_DEPTH,
): string[] {
  const available = parentTools.filter((t) => !SUBAGENT_EXCLUDED_TOOLS.has(t));
  const base = allowsAll(def.tools) ? available : (def.tools ?? []).filter((t) => available.includes(t));
  const denied = new Set(def.disallowedTools ?? []);
  if (depth >= maxDepth) denied.add('Agent');
  return [...new Set(base)].filter((t) => !denied.has(t));
}

/**
 * The `(Tools: …)` part of a type's listing line, as 2.1.328 writes it: `*` for every tool,
 * `All tools except A, B` with only a deny list, else the list itself (`Read, Grep`).
 */
export function agentToolsLabel(def: Pick<AgentDefinition, 'tools' | 'disallowedTools'>): string {
  const denied = def.disallowedTools ?? [];
  if (allowsAll(def.tools)) return denied.length === 0 ? '*' : `All tools except ${denied.join(', ')}`;
  const tools = (def.tools ?? []).filter((t) => !denied.includes(t));
  return tools.length === 0 ? 'None' : tools.join(', ');
}

/**
 * The agent listing of the context (a section of the `role: "system"` context message of the
 * parent's requests), byte for byte as 2.1.328 renders it, or `''` when there is no type to list.
 */
export function agentListing(agents: readonly AgentDefinition[]): string {
  if (agents.length === 0) return '';
  const lines = [...agents]
    .sort((a, b) => compareAgentNames(a.agentType, b.agentType))
    .map((a) => `- ${a.agentType}: ${a.description} (Tools: ${agentToolsLabel(a)})`);
  return [
    'Available agent types for the Agent tool:',
    ...lines,
    '',
    'When you launch multiple agents for independent work, send them in a single message with multiple tool uses so they run concurrently.',
  ].join('\n');
}

/** How a session's subagents are started; every field has Claude Code's default. JSON-safe. */
export interface SubagentSettings {
  /** Deepest agent that may still be offered `Agent` (see {@link DEFAULT_MAX_SPAWN_DEPTH}). Env: `CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH`. */
  maxSpawnDepth?: number;
  /** False with `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1`: `run_in_background` leaves the Agent tool and agents run in the foreground. @default true */
  backgroundTasks?: boolean;
  /** Depth of the agent this turn runs (0: the session's own agent; a subagent's turn carries its depth). @default 0 */
  depth?: number;
  /** The agent this turn runs is a fork (`subagent_type: "fork"`): it has its parent's conversation and listing. */
  fork?: true;
}
