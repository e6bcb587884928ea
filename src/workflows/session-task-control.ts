import { CancellationScope, getExternalWorkflowHandle, setHandler } from '@temporalio/workflow';
import type { TaskCommandMessage, TaskFinishedMessage, TaskKiller, TaskReply } from '../common/tasks';
import type { LimitPatch } from './messages';
import type { TaskEventMessage } from '../common/monitor';
import {
  agentMessageSignal,
  setLimitsSignal,
  taskCommandSignal,
  taskEventSignal,
  taskFinishedSignal,
  taskReplySignal,
  taskStartedSignal,
} from './messages';
import type { SessionInbox } from './session-inbox';
import type { SessionLedger } from './session-state';

/**
 * The session's side of its tasks: the signals that keep the table (`taskStarted`,
 * `taskFinished`), the questions turns ask about it (`taskCommand`: ListAgents, TaskStop,
 * SendMessage, answered with `taskReply`), and what the session does to every running task (stop
 * them on an interrupt, pass on `setLimits`). A background run's end queues its notification in
 * the inbox, where it waits for a turn.
 */
export class SessionTaskControl {
  /** Who stopped a task whose end has not been reported yet (TaskStop, an interrupt). */
  private readonly stopping = new Map<string, TaskKiller>();

  constructor(
    private readonly ledger: SessionLedger,
    private readonly inbox: SessionInbox,
  ) {}

  setHandlers(): void {
    setHandler(taskStartedSignal, (m) => this.ledger.taskStarted(m));
    setHandler(taskFinishedSignal, (m) => this.finished(m));
    setHandler(taskEventSignal, (m) => this.event(m));
    setHandler(taskCommandSignal, (m) => this.command(m));
  }

  /** A run ended: the table records it; a background run's notification waits for a turn (a user's stop notifies no one). */
  private finished(m: TaskFinishedMessage): void {
    const killedBy = this.stopping.get(m.taskId);
    const msg = m.status === 'killed' && killedBy !== undefined ? { ...m, killedBy } : m;
    this.stopping.delete(m.taskId);
    const record = this.ledger.taskFinished(msg);
    // A stopped command notifies no one (2.1.328: no notification turn after TaskStop).
    if (record && record.killedBy !== 'user' && msg.shellEnd?.kind !== 'stopped') {
      this.inbox.notify({ record, finished: msg });
    }
  }

  /**
   * A monitor's event: it waits for a turn, unless its run is not the task's current one, has
   * ended, or is being stopped (a stopped monitor tells the model nothing more).
   */
  private event(m: TaskEventMessage): void {
    const t = this.ledger.tasks.find(m.taskId);
    if (!t || t.runId !== m.runId || t.status !== 'running' || this.stopping.has(m.taskId)) return;
    this.inbox.event({ record: t, ref: m.ref });
  }

  /** Answers a turn's question about the table. */
  private async command(m: TaskCommandMessage): Promise<void> {
    const reply = await this.answer(m);
    await CancellationScope.nonCancellable(() =>
      getExternalWorkflowHandle(m.replyTo)
        .signal(taskReplySignal, reply)
        .catch(() => undefined),
    );
  }

  private async answer({ requestId, command }: TaskCommandMessage): Promise<TaskReply> {
    const tasks = this.ledger.tasks;
    switch (command.kind) {
      case 'list':
        return { requestId, kind: 'list', rows: tasks.rows(), nowMs: Date.now() };
      case 'stop': {
        const t = tasks.find(command.taskId);
        // A cron job or wake-up is not a task TaskStop knows in 2.1.328 ("No task found with ID",
        // CronDelete and `stop: true` end them); nor is one that has ended. No command is sent
        // either way (a timer has no workflow to cancel), so old histories replay the same.
        if (!t || t.status !== 'running' || t.kind === 'cron' || t.kind === 'wakeup') {
          return { requestId, kind: 'unknown', error: 'no-task' };
        }
        await this.stop(t.taskId, t.workflowId, command.killedBy);
        return t.kind === 'shell'
          ? {
              requestId,
              kind: 'stopped',
              taskId: t.taskId,
              description: t.shell?.command ?? t.description,
              taskType: 'local_bash',
            }
          : { requestId, kind: 'stopped', taskId: t.taskId, description: t.description, taskType: 'local_agent' };
      }
      case 'send': {
        const t = tasks.find(command.to);
        if (!t || t.kind !== 'agent') return { requestId, kind: 'unknown', error: 'no-agent' };
        if (t.status !== 'running') return { requestId, kind: 'resume', record: t };
        const delivered = await getExternalWorkflowHandle(t.workflowId)
          .signal(agentMessageSignal, { ref: command.messageRef })
          .then(
            () => true,
            () => false,
          );
        return delivered ? { requestId, kind: 'queued', taskId: t.taskId } : { requestId, kind: 'resume', record: t };
      }
    }
  }

  /** Cancels a run's workflow (its running tools are killed); its end is reported as killed. */
  private async stop(taskId: string, workflowId: string, by: TaskKiller): Promise<void> {
    // A task without a workflow (a wake-up: the session's own timer) is stopped by its owner.
    if (!workflowId) return;
    this.stopping.set(taskId, by);
    await getExternalWorkflowHandle(workflowId)
      .cancel()
      .catch(() => undefined);
  }

  /** Stops every running task (an interrupt of the session). */
  async stopAll(by: TaskKiller): Promise<void> {
    for (const t of this.ledger.tasks.running()) await this.stop(t.taskId, t.workflowId, by);
  }

  /** Passes a `setLimits` patch on to every running task. */
  async forwardLimits(patch: LimitPatch): Promise<void> {
    for (const t of this.ledger.tasks.running()) {
      await getExternalWorkflowHandle(t.workflowId)
        .signal(setLimitsSignal, patch)
        .catch(() => undefined);
    }
  }
}
