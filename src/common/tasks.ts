/**
 * The session's task table: work that outlives one tool call, and often the turn that started
 * it (DESIGN.md "Asynchronous work"). One table for every kind of task: subagents (`Agent`) now;
 * background shells, monitors, wake-ups and crons (issue 21) are further {@link TaskKind}s with
 * their own `kind`-named field beside `agent`, never a second table.
 *
 * Everything here is small and JSON-safe: the table lives in `sessionWorkflow`'s state and is
 * carried through continue-as-new; content (prompts, reports, transcripts) stays in the store and
 * is named by refs.
 */
import type { ContentRef } from './content-ref';
import type { ModelUsage } from './usage';
import type { ShellEnd, ShellTaskInfo } from './shell-tasks';
import type { WakeupTaskInfo } from './wakeup';
import type { CronTaskInfo } from './cron';
import type { MonitorEnd } from './monitor';
import type { PermissionMode } from './permissions';
import type { EffortLevel } from './thinking';

/** Schema version of a carried {@link TaskTable}. */
export const TASK_TABLE_VERSION = 1;

/**
 * What runs the task: a subagent, or a background command (`shell`: Bash with
 * `run_in_background`, `shellTaskWorkflow`), a wake-up (`ScheduleWakeup`) or a cron job
 * (`CronCreate`: a recurring or one-shot prompt, the session's timer).
 */
export type TaskKind = 'agent' | 'shell' | 'wakeup' | 'cron';

/** Where a task is. `killed`: stopped by `TaskStop`, an interrupt or a limit. */
export type TaskStatus = 'running' | 'completed' | 'failed' | 'killed';

/**
 * Who holds the task: a `turn` (a foreground agent: the turn waits for it) or the `session` (a
 * background agent: it outlives the turn, and its end starts a notification turn).
 */
export type TaskOwner = 'turn' | 'session';

/** Who stopped a killed task, as Claude Code counts it (`subagent_stats.killed`). */
export type TaskKiller = 'parent' | 'user' | 'system';

/** What a finished run of a task came to (the figures of Claude Code's `<usage>` and `task_*` messages). */
export interface TaskUsage {
  /** The agent's last context size: input + cache + output tokens of its last model call. */
  totalTokens: number;
  /** Tool calls the run made (refused ones included). */
  toolUses: number;
  /** Wall time of the run, ms. */
  durationMs: number;
  /** USD of every model call of the run (its own children included). */
  costUsd: number;
}

/** The agent-specific part of a task. */
export interface AgentTaskInfo {
  /** `subagent_type` as resolved (`general-purpose`, `fork`, `reviewer`). */
  agentType: string;
  /** Nesting depth (1: started by the session's own agent). */
  depth: number;
  /** The task id of the agent that started this one, when nested. */
  parentTaskId?: string;
  /** Model id of the agent's calls. */
  model: string;
  /** With `isolation: "worktree"`: the agent's worktree and branch. */
  worktree?: { path: string; branch: string };
  /**
   * What its type (or the call) restricts, kept so that a run resumed by `SendMessage` has the
   * same tools, turn limit, permission mode, effort and system prompt as its first run (absent on
   * records from before this field: such a run is resumed with the parent's options).
   */
  profile?: AgentProfile;
}

/** The restrictions of an agent's runs (from its `AgentPlan`); tool names only, the prompt by key. */
export interface AgentProfile {
  /** The tools it is offered, in order. */
  tools: string[];
  /** {@link tools} is the type's own list (`TurnOptions.ownToolList`). */
  ownToolList?: true;
  /** Its type's `maxTurns` (already no wider than the session's). */
  maxTurns?: number;
  permissionMode?: PermissionMode;
  effort?: EffortLevel;
  /** Content key of its system prompt (absent for a fork: the parent's). */
  systemPromptKey?: string;
  /** A fork (the parent's system prompt and context). */
  fork?: true;
}

/** One task of the session. */
export interface TaskRecord {
  kind: TaskKind;
  /** The id the model uses (`a` + 16 hex for agents, as Claude Code's). */
  taskId: string;
  /** Id of the current run (a resumed agent runs again under the same task id). */
  runId: string;
  /** Number of the current run, from 1. */
  run: number;
  status: TaskStatus;
  owner: TaskOwner;
  /** The `description` input, cut to {@link TASK_DESCRIPTION_CHARS}. */
  description: string;
  /** The tool call that started the current run (an `Agent`, or a `SendMessage` that resumed it). */
  toolUseId: string;
  /**
   * The `Agent` call that created the task, once a `SendMessage` resumed it (its runs' messages
   * stay marked with it, as Claude Code's `parent_tool_use_id`); absent: {@link toolUseId}.
   */
  agentToolUseId?: string;
  /** Workflow id of the turn whose tool call started the run. */
  startedBy: string;
  /** Workflow time of the run's start and end, ms since the epoch. */
  startedAtMs: number;
  endedAtMs?: number;
  /** Workflow id of the run (an agent's child turn). */
  workflowId: string;
  /** The run's figures, once it ended. */
  usage?: TaskUsage;
  /** Where its output is: the leaf of its sidechain, its final assistant line, the output file. */
  refs: { leafUuid?: string; resultUuid?: string; outputFile?: string };
  /** Set when killed. */
  killedBy?: TaskKiller;
  agent?: AgentTaskInfo;
  /** A background command's command and time limit. */
  shell?: ShellTaskInfo;
  /** A wake-up's due time and prompt (`ScheduleWakeup`). */
  wakeup?: WakeupTaskInfo;
  /** A cron job's schedule, prompt and next fire (`CronCreate`). */
  cron?: CronTaskInfo;
}

/** How an agent's start was asked for (`subagent_stats.requested`): the `run_in_background` value. */
export type AgentRequest = 'background' | 'foreground' | 'unset';

/** Session-wide counters of subagents, Claude Code's `subagent_stats` (repeated on every result line). */
export interface SubagentStats {
  spawned: number;
  requested: Record<AgentRequest, number>;
  started_in_background: number;
  max_depth: number;
  spawned_by_subagents: number;
  completed: number;
  failed: number;
  killed: Record<TaskKiller, number>;
  refused: { depth_limit: number; concurrency_limit: number; budget: number };
  by_type: Record<string, number>;
}

/** The session's task table, as carried. */
export interface TaskTable {
  v: number;
  /** Running tasks, and the most recent finished ones ({@link MAX_FINISHED_TASKS}). */
  entries: TaskRecord[];
  stats: SubagentStats;
}

/** Finished tasks the table keeps (for `SendMessage` to a finished agent, `ListAgents`, `status`); older ones are pruned. */
export const MAX_FINISHED_TASKS = 50;
/** Characters of a task description kept in the table. */
export const TASK_DESCRIPTION_CHARS = 200;

/** Counters of a session that has started nothing. */
export function emptySubagentStats(): SubagentStats {
  return {
    spawned: 0,
    requested: { background: 0, foreground: 0, unset: 0 },
    started_in_background: 0,
    max_depth: 0,
    spawned_by_subagents: 0,
    completed: 0,
    failed: 0,
    killed: { parent: 0, user: 0, system: 0 },
    refused: { depth_limit: 0, concurrency_limit: 0, budget: 0 },
    by_type: {},
  };
}

/** A table with nothing in it. */
export function emptyTaskTable(): TaskTable {
  return { v: TASK_TABLE_VERSION, entries: [], stats: emptySubagentStats() };
}

/** Signal `taskStarted` (a turn to its session): a run began. */
export interface TaskStartedMessage {
  record: TaskRecord;
  /** How the start was asked for (counted in the stats; absent for a resumed run). */
  requested?: AgentRequest;
}

/** Signal `taskFinished` (a run's turn, or the turn that held it, to the session). */
export interface TaskFinishedMessage {
  taskId: string;
  runId: string;
  status: Exclude<TaskStatus, 'running'>;
  endedAtMs: number;
  usage: TaskUsage;
  /** Spend of the run by model (its children included): the session counts it in its totals. */
  modelUsage: Record<string, ModelUsage>;
  refs: TaskRecord['refs'];
  killedBy?: TaskKiller;
  /** Distinct tools the run used successfully, sorted (the notification's reminder). */
  toolsUsed?: string[];
  /** A background command: how it ended (its notification says so). */
  shellEnd?: ShellEnd;
  /** A monitor: its event count and output (its end's texts depend on them). */
  monitor?: MonitorEnd;
}

/** What a turn asks its session about the task table (signal `taskCommand`); answered by `taskReply`. */
export type TaskCommand =
  | { kind: 'list' }
  | { kind: 'stop'; taskId: string; killedBy: TaskKiller }
  /**
   * SendMessage: to a running agent the message is queued (signal `agentMessage`); a finished one
   * is resumed from its leaf with the message as its prompt (`resume`, built by the asking turn).
   */
  | { kind: 'send'; to: string; messageRef: ContentRef; toolUseId: string };

/** Signal `taskCommand`: `command`, from the turn `replyTo`, answered with the same `requestId`. */
export interface TaskCommandMessage {
  requestId: string;
  replyTo: string;
  command: TaskCommand;
}

/** A row of `ListAgents` (small: the text is built by an activity). */
export interface TaskListRow {
  taskId: string;
  agentType: string;
  status: TaskStatus;
  startedAtMs: number;
}

/** Signal `taskReply` (the session to the asking turn). */
export type TaskReply = { requestId: string } & (
  | { kind: 'list'; rows: TaskListRow[]; nowMs: number }
  /** `description`: an agent's description, a command's start (TaskStop's `command`). */
  | { kind: 'stopped'; taskId: string; description: string; taskType: 'local_agent' | 'local_bash' }
  | { kind: 'queued'; taskId: string }
  /** The agent is finished: the asking turn resumes it (a new run) with this record's refs. */
  | { kind: 'resume'; record: TaskRecord }
  | { kind: 'unknown'; error: 'no-task' | 'no-agent' }
);

/** Signal `taskNotification` (the session to its running turn): a finished task's notification, stored as content. */
export interface TaskNotificationMessage {
  taskId: string;
  runId: string;
  /** The notification text (Claude Code's `<task-notification>…`), stored by the session. */
  ref: ContentRef;
}

/** A turn started by a notification (result `origin`, as Claude Code's). */
export interface TurnOrigin {
  kind: 'task-notification';
  producer: 'session-task';
  /** The run whose end started the turn. */
  runId?: string;
}
