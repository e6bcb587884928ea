/**
 * The `system` messages Claude Code 2.1.328 streams about a session's tasks in
 * `-p --output-format stream-json` (recorded in test/conformance/recordings/async/claude-2.1.328:
 * agent-foreground, agent-background, agent-custom-flag). Pure types.
 */

/** Figures of a task's run so far (`usage` of `task_progress` and `task_notification`). */
export interface SDKTaskUsage {
  /** The agent's context: input, cache and output tokens of its last model call. */
  total_tokens: number;
  /** Tool calls the run made. */
  tool_uses: number;
  /** Wall time since the run started, ms. */
  duration_ms: number;
}

/** `system/task_started`: a task's run began (an `Agent` call). */
export interface SDKTaskStartedMessage {
  type: 'system';
  subtype: 'task_started';
  task_id: string;
  run_id: string;
  /** The tool call that started it. */
  tool_use_id: string;
  description: string;
  subagent_type: string;
  is_backgrounded: boolean;
  /** 1 for an agent the session's own agent started. */
  spawn_depth: number;
  /** The task id of the agent that started this one (spawn depth 2 and more). */
  parent_task_id?: string;
  task_type: 'local_agent';
  /** The agent's prompt. */
  prompt: string;
  uuid: string;
  session_id: string;
}

/** `system/task_progress`: the agent is about to run a tool (sent before its assistant message). */
export interface SDKTaskProgressMessage {
  type: 'system';
  subtype: 'task_progress';
  task_id: string;
  run_id: string;
  tool_use_id: string;
  /** What it does, in Claude Code's words (`Reading a.txt`, `Running <Bash description>`). */
  description: string;
  subagent_type: string;
  usage: SDKTaskUsage;
  last_tool_name: string;
  uuid: string;
  session_id: string;
}

/** `system/task_updated`: a task's status changed (`patch.end_time`: ms since the epoch). */
export interface SDKTaskUpdatedMessage {
  type: 'system';
  subtype: 'task_updated';
  task_id: string;
  run_id: string;
  patch: { status: 'completed' | 'failed' | 'killed'; end_time: number };
  uuid: string;
  session_id: string;
}

/** `system/task_notification`: a task's run ended (its report's first part as `summary`). */
export interface SDKTaskNotificationMessage {
  type: 'system';
  subtype: 'task_notification';
  task_id: string;
  run_id: string;
  tool_use_id: string;
  /** `stopped`: a `TaskStop` (or an interrupt) ended it; `summary` is then its description and there is no `usage`. */
  status: 'completed' | 'failed' | 'stopped';
  output_file: string;
  summary: string;
  /** True when `summary` is the agent's report (a background agent's notification). */
  summary_is_report?: boolean;
  /** Absent for a stopped run. */
  usage?: SDKTaskUsage;
  uuid: string;
  session_id: string;
}

/** `system/task_started` of a command (Bash in the background, Monitor, or a foreground Bash past ~3 s). */
export interface SDKShellTaskStartedMessage {
  type: 'system';
  subtype: 'task_started';
  task_id: string;
  run_id: string;
  /** The Bash or Monitor call. */
  tool_use_id: string;
  description: string;
  is_backgrounded: boolean;
  task_type: 'local_bash';
  uuid: string;
  session_id: string;
}

/**
 * `system/task_notification` of a command's end: `stopped` for one killed (TaskStop, a time
 * limit), with its description as `summary`; else the notification's summary line. No `usage`.
 * `output_file` is empty for a foreground command.
 */
export interface SDKShellTaskNotificationMessage {
  type: 'system';
  subtype: 'task_notification';
  task_id: string;
  run_id: string;
  tool_use_id: string;
  status: 'completed' | 'failed' | 'stopped';
  output_file: string;
  summary: string;
  uuid: string;
  session_id: string;
}

/** A running background task as `background_tasks_changed` lists it (`subagent_type` for agents only). */
export interface SDKBackgroundTask {
  task_id: string;
  run_id: string;
  task_type: 'local_agent' | 'local_bash';
  subagent_type?: string;
  description: string;
}

/** `system/background_tasks_changed`: the session's running background tasks, after a change. */
export interface SDKBackgroundTasksChangedMessage {
  type: 'system';
  subtype: 'background_tasks_changed';
  tasks: SDKBackgroundTask[];
  uuid: string;
  session_id: string;
}

export type SDKTaskMessage =
  | SDKBackgroundTasksChangedMessage
  | SDKShellTaskStartedMessage
  | SDKShellTaskNotificationMessage
  | SDKTaskStartedMessage
  | SDKTaskProgressMessage
  | SDKTaskUpdatedMessage
  | SDKTaskNotificationMessage;
