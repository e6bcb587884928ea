import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { WorkspaceRef } from '../common/workspace';
import type { SessionState, SubmitRequest, SubmitResponse } from '../common/session';
import type { TurnProgress, TurnSpend } from '../common/turn';
import type { TurnLimits } from '../common/limits';
import type { PoolStatus } from '../engine/budget-pool';
import type { ContentRef } from '../common/content-ref';
import type { TaskEventMessage } from '../common/monitor';
import { TASK_EVENT_SIGNAL } from '../common/monitor';
import type {
  TaskCommandMessage,
  TaskFinishedMessage,
  TaskNotificationMessage,
  TaskRecord,
  SubagentStats,
  TaskReply,
  TaskStartedMessage,
} from '../common/tasks';

/** A `setLimits` patch: a number sets a limit, `null` removes it, absent keeps it. */
export type LimitPatch = { [K in keyof TurnLimits]?: number | null };

/** Update on a session: start one turn (`submitMessage`); answers once the turn has started. */
export const submitMessageUpdate = defineUpdate<SubmitResponse, [SubmitRequest]>('submitMessage');
/** Query on a session: its state. */
export const sessionStateQuery = defineQuery<SessionState & { busy: boolean; currentTurnWorkflowId: string | null }>(
  'sessionState',
);
/** Signal to a session: finish once idle (resume rebuilds it from the store). */
export const endSessionSignal = defineSignal('endSession');

/** Query on a turn: progress for streaming clients and `agent-runner status`. */
export const turnProgressQuery = defineQuery<TurnProgress>('progress');
/** Query on a turn (running, finished or failed): what it has spent so far (tokens, USD, calls, denials). */
export const turnSpendQuery = defineQuery<TurnSpend>('spend');
/** Signal to a turn (or a session, which forwards it): change limits. */
export const setLimitsSignal = defineSignal<[LimitPatch]>('setLimits');
/** Signal to a turn (or a session, which forwards it): stop cleanly. */
export const interruptSignal = defineSignal<[string?]>('interrupt');
/**
 * Signal to a session: a client's run reached its limit (`-p`'s --max-turns / --max-budget-usd
 * over the run): as {@link interruptSignal}, and the notifications and monitor events already
 * queued start no turn either. A signal no earlier code sent (no recorded history has it): no patch.
 */
export const stopRunSignal = defineSignal<[string]>('stopRun');
/**
 * Signal from a budget pool to a member turn: the pool is exhausted (or refilled), or the answer
 * (`ack`) to the member's `joinPool` / `reportSpend`. USD amounts.
 */
export const poolStatusSignal = defineSignal<[PoolStatusMessage]>('poolStatus');

/** Argument of `poolStatus` (see {@link PoolStatus}; older pools send only the first two fields). */
export type PoolStatusMessage = Pick<PoolStatus, 'exhausted' | 'limitUsd'> &
  Partial<Omit<PoolStatus, 'exhausted' | 'limitUsd'>>;

/**
 * A member's message to its pool. `seq` numbers the member's messages (0 for `joinPool`, then 1, 2…
 * for each report); when present the pool answers with a `poolStatus` whose `ack` is the highest
 * `seq` it has counted, which the member waits for before its next model call.
 */
export interface PoolMemberMessage {
  /** Workflow id of the member turn (where the pool sends `poolStatus`). */
  memberWorkflowId: string;
  seq?: number;
}

/** Signal from a member turn to its budget pool: spend of one model call (USD). */
export const reportSpendSignal = defineSignal<[PoolMemberMessage & { usd: number }]>('reportSpend');
/** Signal from a member turn to its budget pool at turn start: count me in, tell me if you are exhausted. */
export const joinPoolSignal = defineSignal<[PoolMemberMessage]>('joinPool');
/** Signal from a member turn to its budget pool at turn end: stop sending me status. */
export const leavePoolSignal = defineSignal<[PoolMemberMessage]>('leavePool');
/** Signal to a budget pool: set its limit (USD); raising it above the spend refills the pool. */
export const setPoolLimitSignal = defineSignal<[{ limitUsd: number }]>('setPoolLimit');

/** Answer of the pool's `poolState` query. */
export interface PoolStateView {
  /** Pool id (the workflow id without its `agent-budget-pool-` prefix). */
  poolId: string;
  /** USD. */
  limitUsd: number;
  /** USD spent by all members so far, including members that left. */
  spentUsd: number;
  /** Turns currently in the pool. */
  members: number;
  exhausted: boolean;
  /** When the pool last became exhausted (ISO time), or null. */
  exhaustedAt: string | null;
  /** Spend reports counted, over all runs. */
  reports: number;
  /** Runs of the pool workflow so far (continue-as-new count + 1). */
  runs: number;
  /** Signals handled by the current run. */
  signalsThisRun: number;
}
/** Query on a budget pool: its state. */
export const poolStateQuery = defineQuery<PoolStateView>('poolState');
/**
 * Update on a budget pool: close it; the pool workflow completes with its final state (also the
 * update's answer). Refused while turns are in the pool unless `force` (they then go on without
 * the pool's limit).
 */
export const closePoolUpdate = defineUpdate<PoolStateView, [{ force?: boolean }]>('closePool');

/** Answer of the session's `status` query: what `agent-runner status` shows when no turn runs. */
export interface SessionStatusView {
  sessionId: string;
  busy: boolean;
  currentTurnWorkflowId: string | null;
  lastTurnWorkflowId: string | null;
  turnCount: number;
  usage: SessionState['usage'];
  /** USD over all turns (known part). */
  totalCostUsd: number;
  costKnown: boolean;
  /** Limits the next turn starts with (changed by `setLimits`). */
  limits: TurnLimits;
  /** Budget pool workflow id of the session's turns, if any. */
  budgetPoolId: string | null;
  /** Submits waiting for the running turn to end. */
  queued: number;
  /** Where the workspace was after the last turn (absent: not followed). */
  workspace?: WorkspaceRef | null;
  /** The session's tasks (running ones, and the most recent finished ones), oldest first. */
  tasks?: TaskRecord[];
  /** Notifications waiting for a turn (a turn runs, or one is about to start for them). */
  notificationsQueued?: number;
  /** The session's subagent counters (Claude Code's `subagent_stats`), once it has a task table. */
  subagentStats?: SubagentStats;
}
/** Query on a session: status for `agent-runner status` (the running turn's `progress` has the live details). */
export const sessionStatusQuery = defineQuery<SessionStatusView>('status');

/** Signal from a turn to its session: a task run began (it joins the session's task table). */
export const taskStartedSignal = defineSignal<[TaskStartedMessage]>('taskStarted');
/** Signal to a session: a task run ended (from the run's own turn, or from the turn that held it). */
export const taskFinishedSignal = defineSignal<[TaskFinishedMessage]>('taskFinished');
/** Signal to a session from a monitor's activity: a batch of its command's stdout lines, stored as the notification the model reads. */
export const taskEventSignal = defineSignal<[TaskEventMessage]>(TASK_EVENT_SIGNAL);
/** Signal from a turn to its session: a question about the task table (`ListAgents`, `TaskStop`, `SendMessage`). */
export const taskCommandSignal = defineSignal<[TaskCommandMessage]>('taskCommand');
/** Signal from a session to the turn that asked: the answer to its `taskCommand`. */
export const taskReplySignal = defineSignal<[TaskReply]>('taskReply');
/** Signal from a session to its running turn: a finished task's notification, for its next model call. */
export const taskNotificationSignal = defineSignal<[TaskNotificationMessage]>('taskNotification');
/** Signal to a running subagent's turn: a `SendMessage`, delivered after its next tool round (the text by ref). */
export const agentMessageSignal = defineSignal<[{ ref: ContentRef }]>('agentMessage');
