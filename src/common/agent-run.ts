/**
 * Wire types of one subagent run: what the turn that makes an `Agent` call asks the `planAgent`
 * activity, what it gets back, what the child turn carries (`TurnInput.agent`), and what the
 * hand-back activity needs. Small and JSON-safe: the prompt, the agent's system prompt and its
 * report stay in the store.
 */
import type { EffortLevel } from './thinking';
import type { AgentCaps } from './agents';
import type { ContentRef } from './content-ref';
import type { AgentRequest, TaskKiller, TaskUsage } from './tasks';
import type { RunToolSummary, ToolPermission } from './tools';
import type { PermissionMode } from './permissions';

/** What a subagent's turn knows of itself (`TurnInput.agent`). */
export interface AgentRunInfo {
  agentId: string;
  /** `subagent_type` as resolved; `fork` for a fork. */
  agentType: string;
  runId: string;
  /** Run number of the agent, from 1 (SendMessage resumes start the next). */
  run: number;
  depth: number;
  /** The tool call that started this run, in the parent's conversation. */
  toolUseId: string;
  /** True: held by the session, notifies it at the end. */
  background: boolean;
  /** The call's `description`, cut to 200 characters. */
  description: string;
  /** Task id of the agent that started it (nested agents). */
  parentTaskId?: string;
  /** The first line of the run was written by `planAgent` (a fork's, or a resumed run's): no prompt line to record. */
  promptWritten?: boolean;
  /** Where the run's transcript is written when it ends (Claude Code's output file). */
  outputFile: string;
  /** The agent's own cap (the runner's extension), on top of the parent's budget. */
  caps?: AgentCaps;
  /**
   * The run fires SubagentStart and SubagentStop hooks instead of SessionStart, UserPromptSubmit
   * and Stop, as Claude Code 2.1.328 does (set by parents since SubagentStart/SubagentStop were
   * built; a run started before has none and replays as it ran).
   */
  subagentHooks?: true;
}

/** Input of the `planAgent` activity: one `Agent` call to check and prepare. */
export interface PlanAgentInput {
  sessionId: string;
  cwd: string;
  assistantUuid: string;
  toolUseId: string;
  /** Where an error result goes (the call's planned tool_result line). */
  resultUuid: string;
  parentUuid: string;
  /** The session's stored agent list (absent: the built-in types). */
  agentsRef?: ContentRef;
  /** The tools the calling agent is offered, in order. */
  parentTools: string[];
  /** The calling agent's model and system prompt (a fork inherits them). */
  parentModel: string;
  parentSystemPromptKey?: string;
  /** Depth the new agent would have. */
  depth: number;
  maxSpawnDepth: number;
  /** False when background tasks are off: every agent runs in the foreground. */
  backgroundTasks: boolean;
  /** The new agent's id and the uuid of its first line (from the workflow: stable on replay). */
  agentId: string;
  promptUuid: string;
  /** The call's permission as the workflow decided it: a denial is written instead of a plan. */
  permission?: ToolPermission;
  /** Agent types `Agent(<type>)` deny rules name (src/engine/agent-rules.ts): refused, and not listed as available. */
  deniedAgentTypes?: string[];
  /** Where the `Agent(<type>)` deny rules came from, by type (TurnOptions.agentRuleSources). */
  agentRuleSources?: Record<string, string>;
  /**
   * The workflow makes worktrees (`agentWorktree`): `isolation: "worktree"` is planned, not
   * refused. Absent from workflows built before worktrees, whose calls are refused as they were.
   */
  worktrees?: true;
}

/** What `planAgent` prepared: everything the child turn needs, by reference. */
export interface AgentPlan {
  ok: true;
  agentType: string;
  /** Model id of the agent's calls. */
  model: string;
  /** The tools it is offered, in order. */
  tools: string[];
  /** {@link tools} is the type's own list (`TurnOptions.ownToolList`). */
  ownToolList?: true;
  background: boolean;
  /** How the call asked for it (`run_in_background` true, false, or absent). */
  requested: AgentRequest;
  /** The call's `description`, cut to 200 characters. */
  description: string;
  /** The agent's prompt (the Agent `prompt`, or a fork's directive), stored as content. */
  promptRef: ContentRef;
  /** First line of the prompt (60 characters), for the Web UI. */
  promptLine: string;
  /** Content key of the agent's system prompt (absent for a fork: the parent's). */
  systemPromptKey?: string;
  /** A fork: its first line (the parent's call answered, the directive) is written; its chain starts at the call. */
  fork: boolean;
  /** The call (or the agent type) asks for its own git worktree: the workflow makes it (`agentWorktree`). */
  isolation?: 'worktree';
  /** With `isolation: "worktree"`: the agent's own worktree (its cwd) and branch, once made. */
  worktree?: { path: string; branch: string };
  outputFile: string;
  caps?: AgentCaps;
  maxTurns?: number;
  permissionMode?: PermissionMode;
  /** Reasoning effort of the agent's calls: the call's `effort`, else its type's (absent: the parent's). */
  effort?: EffortLevel;
}

/** `planAgent` refused the call: its is_error result is written. */
export interface AgentRefusal {
  ok: false;
  result: RunToolSummary;
  /** Why, for `subagent_stats.refused` (absent: bad input). */
  refused?: 'depth_limit';
}

/** What a subagent's turn reports of itself (`TurnOutcome.agent`): the hand-back's figures. */
export interface AgentRunReport {
  usage: TaskUsage;
  /** Distinct tools it used successfully, sorted. */
  toolsUsed: string[];
  /** Stopped by TaskStop, an interrupt or a limit. */
  killedBy?: TaskKiller;
}

/** Input of `recordAgentResult`: the tool_result of an Agent, SendMessage, TaskStop or ListAgents call. */
export interface RecordAgentResultInput {
  sessionId: string;
  toolUseId: string;
  toolName: string;
  resultUuid: string;
  parentUuid: string;
  /** What the result says (the text is built by the activity from the store). */
  result: AgentToolResult;
}

/** The kinds of task-tool results. */
export type AgentToolResult =
  | {
      kind: 'handback';
      agentId: string;
      /** The agent's final assistant line (its text is the report). */
      lastAssistantUuid: string | null;
      report: AgentRunReport;
      worktree?: { path: string; branch: string };
      /** The run's transcript goes to its output file. */
      outputFile: string;
      leafUuid: string;
      agentTurnId: string;
      /** Set when the run did not complete: its error text. */
      error?: string;
    }
  | { kind: 'launched'; agentId: string; outputFile: string }
  | { kind: 'resumed'; agentId: string }
  | { kind: 'queued'; agentId: string }
  | { kind: 'unreachable'; to: string }
  | { kind: 'stopped'; taskId: string; description: string; taskType?: 'local_agent' | 'local_bash' }
  | { kind: 'no-task'; taskId: string }
  | { kind: 'missing-task-id' }
  | { kind: 'list'; rows: Array<{ taskId: string; agentType: string; status: string; ageSeconds: number }> }
  | { kind: 'unavailable'; message: string };
