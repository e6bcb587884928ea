import {
  CancellationScope,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  getExternalWorkflowHandle,
  startChild,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { BackgroundLaunch } from '../common/shell-tasks';
import type { TaskRecord } from '../common/tasks';
import type { RunToolInput } from '../common/tools';
import type { TurnInput } from '../common/turn';
import { LABEL_CHARS } from '../common/summary';
import { taskRunIdFromUuid } from '../common/ids';
import { taskStartedSignal } from './messages';
import type { ShellTaskInput, shellTaskWorkflow } from './shell-task';

/** Workflow id of background command `taskId` of a session's workflow `sessionWorkflowId` (or turn). */
export function shellTaskWorkflowId(owner: string, taskId: string): string {
  return `${owner}-shell-${taskId}`;
}

/**
 * Starts a background command the Bash tool launched (its launch text is written already): a
 * `shellTaskWorkflow` that outlives the turn (ABANDON), entered in the session's task table
 * (signal `taskStarted`) before it starts, so its end always finds its row.
 *
 * Reached only by a Bash call whose result carries a launch (`run_in_background: true`), which
 * the Bash schema refused before background commands existed: no recorded history reaches it,
 * so it needs no patch.
 */
export async function launchShellTask(
  turn: TurnInput,
  call: RunToolInput,
  launch: BackgroundLaunch,
  hostQueue: string | undefined,
): Promise<void> {
  const owner = turn.sessionWorkflowId ?? workflowInfo().workflowId;
  const workflowId = shellTaskWorkflowId(owner, launch.taskId);
  // Claude Code's run id form (`origin.runId` of the notification turn), as an agent's.
  const runId = taskRunIdFromUuid(uuid4());
  const record: TaskRecord = {
    kind: 'shell',
    taskId: launch.taskId,
    runId,
    run: 1,
    status: 'running',
    owner: 'session',
    description: launch.description,
    toolUseId: call.toolUseId,
    startedBy: workflowInfo().workflowId,
    startedAtMs: Date.now(),
    workflowId,
    refs: { outputFile: launch.outputFile },
    shell: {
      command: launch.command,
      timeoutMs: launch.timeoutMs,
      ...(launch.monitor ? { monitor: true as const } : {}),
    },
  };
  const input: ShellTaskInput = {
    sessionId: turn.sessionId,
    ...(turn.sessionWorkflowId ? { sessionWorkflowId: turn.sessionWorkflowId } : {}),
    launch,
    runId,
    assistantUuid: call.assistantUuid,
    toolUseId: call.toolUseId,
    ...(hostQueue ? { hostQueue } : {}),
    // Twice the tool heartbeat timeout: a command's activity beats every second.
    ...(turn.options.timeouts?.toolHeartbeatMs !== undefined
      ? { heartbeatTimeoutMs: 2 * turn.options.timeouts.toolHeartbeatMs }
      : {}),
  };
  await CancellationScope.nonCancellable(async () => {
    if (turn.sessionWorkflowId) {
      await getExternalWorkflowHandle(turn.sessionWorkflowId)
        .signal(taskStartedSignal, { record })
        .catch(() => undefined);
    }
    await startChild<typeof shellTaskWorkflow>('shellTaskWorkflow', {
      workflowId,
      args: [input],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      cancellationType: ChildWorkflowCancellationType.ABANDON,
      staticSummary:
        `${launch.monitor ? 'monitor' : 'background command'} ${launch.taskId}: ${launch.description}`.slice(
          0,
          4 * LABEL_CHARS,
        ),
      staticDetails: `**session** \`${turn.sessionId}\`  \n**timeout** ${launch.timeoutMs} ms`,
    });
  });
}
