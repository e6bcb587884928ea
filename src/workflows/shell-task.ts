import {
  ActivityCancellationType,
  ActivityFailure,
  CancellationScope,
  TimeoutFailure,
  getExternalWorkflowHandle,
  isCancellation,
  proxyActivities,
} from '@temporalio/workflow';
import type { Activities } from '../activities/types';
import type { BackgroundLaunch, RunShellResult, ShellEnd } from '../common/shell-tasks';
import { shellStatus } from '../common/shell-tasks';
import type { TaskFinishedMessage } from '../common/tasks';
import type { MonitorEnd } from '../common/monitor';
import { taskFinishedSignal } from './messages';

/** Heartbeat timeout of a background command's activity, ms: how soon a lost worker is noticed. */
export const SHELL_HEARTBEAT_TIMEOUT_MS = 20_000;
/** How long a background command may wait for its host to take it, ms (then its host is lost). */
export const SHELL_HOST_TIMEOUT_MS = 60_000;
/** Slack beyond the command's own `timeout` before the activity's start-to-close timeout, ms. */
const SHELL_CLOSE_SLACK_MS = 60_000;

/** Input of {@link shellTaskWorkflow}. */
export interface ShellTaskInput {
  sessionId: string;
  /** The session to tell of the end (absent: a turn that runs alone; nobody is told). */
  sessionWorkflowId?: string;
  launch: BackgroundLaunch;
  /** The task run (the task table's `runId`). */
  runId: string;
  /** Where the Bash call is stored (the activity reads the command from it). */
  assistantUuid: string;
  toolUseId: string;
  /** The workspace host's task queue (absent: the shared queue). */
  hostQueue?: string;
  /** Overrides {@link SHELL_HEARTBEAT_TIMEOUT_MS} (tests). */
  heartbeatTimeoutMs?: number;
}

/**
 * A background command (Bash with `run_in_background`, or a `Monitor`, whose activity also
 * signals each batch of stdout lines to the session while it runs) as a task of its session: a workflow
 * started by the turn that launched it (parent close policy ABANDON, so it outlives the turn),
 * that runs `runBackgroundShell` once on the workspace's host and tells the session how it ended
 * (signal `taskFinished`), which queues its notification.
 *
 * - **Never re-run**: the activity has one attempt. A worker killed while it runs takes the
 *   command with it (the parent-death signal), the heartbeats stop, and the end is `lost` with the
 *   reason; a host that never takes the activity is `lost` too. The task fails, never succeeds.
 * - **Stopped** (`TaskStop`, an interrupt): the session cancels this workflow; the cancellation
 *   reaches the activity, which kills the process group; the end is `stopped`.
 *
 * @returns how the command ended
 */
export async function shellTaskWorkflow(input: ShellTaskInput): Promise<ShellEnd> {
  const { launch } = input;
  const { runBackgroundShell } = proxyActivities<Activities>({
    ...(input.hostQueue ? { taskQueue: input.hostQueue } : {}),
    scheduleToStartTimeout: SHELL_HOST_TIMEOUT_MS,
    startToCloseTimeout: launch.timeoutMs + SHELL_CLOSE_SLACK_MS,
    heartbeatTimeout: input.heartbeatTimeoutMs ?? SHELL_HEARTBEAT_TIMEOUT_MS,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { maximumAttempts: 1 },
  });
  const startedAt = Date.now();
  let end: ShellEnd;
  let monitor: MonitorEnd | undefined;
  try {
    const r: RunShellResult = await runBackgroundShell({
      sessionId: input.sessionId,
      taskId: launch.taskId,
      assistantUuid: input.assistantUuid,
      toolUseId: input.toolUseId,
      cwd: launch.cwd,
      outputFile: launch.outputFile,
      timeoutMs: launch.timeoutMs,
      ...(launch.monitor
        ? {
            monitor: {
              ...(input.sessionWorkflowId ? { sessionWorkflowId: input.sessionWorkflowId } : {}),
              runId: input.runId,
              description: launch.description,
            },
          }
        : {}),
    });
    end = r.end;
    monitor = r.monitor;
  } catch (err) {
    end = isCancellation(err) ? { kind: 'stopped' } : { kind: 'lost', reason: lossReason(err) };
  }
  await CancellationScope.nonCancellable(() => tellSession(input, end, startedAt, monitor));
  return end;
}

/** Why a run is lost, in a sentence of the notification. */
function lossReason(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  if (cause instanceof TimeoutFailure) {
    if (cause.timeoutType === 'HEARTBEAT') {
      return 'the worker running it stopped (killed, or its host lost) while it ran, and the command died with it';
    }
    if (cause.timeoutType === 'SCHEDULE_TO_START') return 'its workspace host was lost before the command started';
    return 'it outlived its time limit without being stopped';
  }
  const message = (cause ?? err) instanceof Error ? ((cause ?? err) as Error).message : String(err);
  return `running it failed (${message.slice(0, 200)})`;
}

async function tellSession(
  input: ShellTaskInput,
  end: ShellEnd,
  startedAt: number,
  monitor: MonitorEnd | undefined,
): Promise<void> {
  if (!input.sessionWorkflowId) return;
  const now = Date.now();
  const msg: TaskFinishedMessage = {
    taskId: input.launch.taskId,
    runId: input.runId,
    status: shellStatus(end),
    endedAtMs: now,
    usage: { totalTokens: 0, toolUses: 0, durationMs: now - startedAt, costUsd: 0 },
    modelUsage: {},
    refs: { outputFile: input.launch.outputFile },
    ...(end.kind === 'timeout' ? { killedBy: 'system' as const } : {}),
    shellEnd: end,
    ...(monitor ? { monitor } : {}),
  };
  await getExternalWorkflowHandle(input.sessionWorkflowId)
    .signal(taskFinishedSignal, msg)
    .catch(() => undefined);
}
