import { CancellationScope, getExternalWorkflowHandle, isCancellation, setHandler, sleep } from '@temporalio/workflow';
import type { TaskFinishedMessage, TaskRecord } from '../common/tasks';
import type { WakeupCommand, WakeupReply } from '../common/wakeup';
import { WAKEUP_TASK_ID } from '../common/wakeup';
import { firstLine } from '../common/summary';
import type { SessionInbox } from './session-inbox';
import type { SessionLedger } from './session-state';
import { wakeupCommandSignal, wakeupReplySignal } from './wakeup-messages';

/**
 * The session's wake-up (`ScheduleWakeup`): a durable timer of the session workflow (no worker
 * holds it while it waits; it survives restarts of workers, the server and clients), kept in the
 * task table as the task `wakeup` (kind `wakeup`, so the session neither times out nor ends while
 * it is pending, and continue-as-new carries it). When it fires, its prompt is queued as a plain
 * prompt (2.1.328: a user message, not a notification) and starts a turn. A second call
 * replaces it; `stop` cancels it.
 *
 * Reached only through the `wakeupCommand` signal, which no recorded history has: no patch.
 */
export class SessionWakeups {
  private timer: CancellationScope | null = null;

  constructor(
    private readonly ledger: SessionLedger,
    private readonly inbox: SessionInbox,
  ) {}

  setHandlers(): void {
    setHandler(wakeupCommandSignal, (c) => this.command(c));
  }

  /** Re-arms a wake-up the table carried (a new run after continue-as-new). */
  resume(): void {
    const t = this.pending();
    if (t?.wakeup) this.arm(t);
  }

  /** Cancels the pending wake-up, if any (an interrupt of the session). */
  stop(): void {
    this.cancel('killed');
  }

  private pending(): TaskRecord | undefined {
    return this.ledger.tasks.running().find((e) => e.kind === 'wakeup');
  }

  private async command(c: WakeupCommand): Promise<void> {
    const cancelled = this.cancel('killed');
    if (c.kind === 'schedule') {
      const record: TaskRecord = {
        kind: 'wakeup',
        taskId: WAKEUP_TASK_ID,
        runId: c.requestId,
        run: 1,
        status: 'running',
        owner: 'session',
        description: firstLine(c.reason || 'wake-up').slice(0, 200),
        toolUseId: c.toolUseId,
        startedBy: c.replyTo,
        startedAtMs: Date.now(),
        workflowId: '',
        refs: {},
        wakeup: { dueAtMs: c.dueAtMs, promptRef: c.promptRef },
      };
      this.ledger.taskStarted({ record });
      this.arm(record);
    }
    const reply: WakeupReply = { requestId: c.requestId, cancelled };
    await CancellationScope.nonCancellable(() =>
      getExternalWorkflowHandle(c.replyTo)
        .signal(wakeupReplySignal, reply)
        .catch(() => undefined),
    );
  }

  /** Ends the pending wake-up, if any (`killed`: replaced or stopped; `completed`: fired); 1 if there was one. */
  private cancel(status: 'killed' | 'completed'): number {
    const t = this.pending();
    if (this.timer) {
      this.timer.cancel();
      this.timer = null;
    }
    if (!t) return 0;
    this.ledger.taskFinished(finishedOf(t, status));
    return 1;
  }

  private arm(t: TaskRecord): void {
    const info = t.wakeup;
    if (!info) return;
    const scope = new CancellationScope();
    this.timer = scope;
    scope
      .run(() => sleep(Math.max(0, info.dueAtMs - Date.now())))
      .then(
        () => {
          if (this.timer !== scope) return;
          this.timer = null;
          this.cancel('completed');
          this.inbox.prompt({ prompt: info.promptRef, promptLine: firstLine(`wake-up: ${t.description}`) });
        },
        (err: unknown) => {
          if (!isCancellation(err)) throw err;
        },
      );
  }
}

function finishedOf(t: TaskRecord, status: 'killed' | 'completed'): TaskFinishedMessage {
  return {
    taskId: t.taskId,
    runId: t.runId,
    status,
    endedAtMs: Date.now(),
    usage: { totalTokens: 0, toolUses: 0, durationMs: Date.now() - t.startedAtMs, costUsd: 0 },
    modelUsage: {},
    refs: {},
  };
}
