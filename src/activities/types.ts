import type { WakeupCall, WakeupCallRef, WakeupOutcome } from './wakeup/wakeup-call';
import type { CronCall, CronCallRef, CronOutcome, ReadCronCallInput } from './cron/cron-call';
import type { RunShellInput, RunShellResult } from './background/run-shell';
import type { TranscriptEntry } from '../common/transcript';
import type { CallModelInput, CallModelSummary, CompactInput, CompactSummary } from '../common/model';
import type { RunToolInput, RunToolSummary } from '../common/tools';
import type { StoredSessionSummary } from '../common/session';
import type { RecordPromptInput } from '../common/turn';
import type { ConnectMcpInput, ConnectMcpSummary } from '../common/mcp';
import type { HookOutcome, RunHooksInput } from '../common/hooks';
import type { WorkspaceRef } from '../common/workspace';
import type { LoadContextInput, LoadContextSummary } from '../common/context';
import type { PrepareCommandInput, PrepareCommandSummary } from '../common/commands';
import type { AgentPlan, AgentRefusal, PlanAgentInput, RecordAgentResultInput } from '../common/agent-run';
import type { ContentRef } from '../common/content-ref';
import type { StoreNotificationInput, RecordNotificationInput } from './agents/notifications';
import type { ReadTaskCallInput, TaskCall } from './agents/read-task-call';
import type { AgentWorktreeInput, AgentWorktreeResult } from './agents/worktree';
import type { BatchActivities } from './model/batch';
import type { RunScheduledBatchInput, ScheduledBatchResult } from '../common/schedule';

/**
 * The activities workflows call (through `proxyActivities`, imported as a type only).
 * Every one is idempotent by the uuids the workflow passes in: a retry never duplicates a line
 * or repeats a completed model call.
 */
export interface Activities extends BatchActivities {
  /** Streams one Messages API call; writes the assistant line; returns a summary. */
  callModel(input: CallModelInput): Promise<CallModelSummary>;
  /** Runs one tool call (or records why it did not run); writes its tool_result line. */
  runTool(input: RunToolInput): Promise<RunToolSummary>;
  /** Writes lines to the transcript (nudges); upsert by uuid. Returns lines written. */
  recordTranscript(entries: TranscriptEntry[]): Promise<number>;
  /** Writes a turn's prompt line from the prompt stored by reference; returns the line's uuid. */
  recordPrompt(input: RecordPromptInput): Promise<{ uuid: string; written: boolean }>;
  /** Summarizes a session's stored transcript (for a new or resumed session workflow). */
  loadSession(sessionId: string): Promise<StoredSessionSummary>;
  /** Reads a new session's memory files, git status and environment on the worker; writes them as one line. */
  loadContext(input: LoadContextInput): Promise<LoadContextSummary>;
  /** Summarizes the context into a compact boundary plus a summary line. */
  compactContext(input: CompactInput): Promise<CompactSummary>;
  /** Starts the turn's MCP servers on this worker, lists their tools and stores the list. */
  connectMcpServers(input: ConnectMcpInput): Promise<ConnectMcpSummary>;
  /**
   * Expands a typed custom command or skill on the workspace's host (arguments, `!` shell lines
   * under the permission rules, `@` files) and writes what the model gets; or the note for an
   * unknown `/name`; or the answer of a command that cannot run.
   */
  prepareCommand(input: PrepareCommandInput): Promise<PrepareCommandSummary>;
  /** Runs the hooks of one event (once per event key) and records the outcome. */
  runHooks(input: RunHooksInput): Promise<HookOutcome>;
  /** Checks an `Agent` call and prepares its run (or writes its error result). */
  planAgent(input: PlanAgentInput): Promise<AgentPlan | AgentRefusal>;
  /**
   * Makes (`create`) or ends (`finish`: removed when unchanged) the git worktree of an agent with
   * `isolation: "worktree"`, on the workspace's host; idempotent.
   */
  agentWorktree(input: AgentWorktreeInput): Promise<AgentWorktreeResult>;
  /** Reads a SendMessage, TaskStop or ListAgents call's input (or writes its error result). */
  readTaskCall(input: ReadTaskCallInput): Promise<TaskCall>;
  /** Writes the tool_result of a task-tool call (hand-back, launch, SendMessage, TaskStop, ListAgents). */
  recordAgentResult(input: RecordAgentResultInput): Promise<RunToolSummary>;
  /** Builds and stores a finished task's notification (for the session). */
  storeTaskNotification(input: StoreNotificationInput): Promise<ContentRef>;
  /**
   * Runs a background command (Bash with `run_in_background`) to its end on the workspace's host,
   * heartbeating; its output goes to its output file. Never retried.
   */
  runBackgroundShell(input: RunShellInput): Promise<RunShellResult>;
  /** Reads a ScheduleWakeup call (storing its prompt), or writes its error result. */
  readWakeupCall(input: WakeupCallRef): Promise<WakeupCall>;
  /** Writes a ScheduleWakeup call's result. */
  recordWakeupResult(input: WakeupCallRef & { outcome: WakeupOutcome }): Promise<RunToolSummary>;
  /** Reads and checks a CronCreate/CronList/CronDelete call (storing a job's prompt), or writes its error result. */
  readCronCall(input: ReadCronCallInput): Promise<CronCall>;
  /** A recurring job's next fire after `fromMs` (epoch ms), its per-job offset included; null when none. */
  nextCronFire(input: { cron: string; id: string; fromMs: number }): Promise<number | null>;
  /**
   * Runs one fire of a schedule: `agent-runner batch` with the fire's batch id, to its end,
   * heartbeating (docs/schedules.md). Retried: the batch resumes by its id.
   */
  runScheduledBatch(input: RunScheduledBatchInput): Promise<ScheduledBatchResult>;
  /** Writes a Cron tool call's result. */
  recordCronResult(input: CronCallRef & { outcome: CronOutcome }): Promise<RunToolSummary>;
  /** Writes a stored notification as a user line of a turn. */
  recordNotification(input: RecordNotificationInput): Promise<{ uuid: string; written: boolean }>;
  /**
   * Finds or makes a session's working tree on the worker that runs it (shared task queue: any
   * live worker); null when the working directory is not followed (not a git work tree).
   */
  prepareWorkspace(input: {
    sessionId: string;
    cwd: string;
    current: WorkspaceRef | null;
  }): Promise<WorkspaceRef | null>;
}
