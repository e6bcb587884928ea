import {
  CancellationScope,
  getExternalWorkflowHandle,
  isCancellation,
  proxyActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import type { Activities } from '../activities/types';
import type { CronCommand, CronJobRow, CronReply } from '../common/cron';
import { MAX_FAILED_CRON_FIRES } from '../common/cron';
import type { TaskRecord } from '../common/tasks';
import { firstLine } from '../common/summary';
import { cronCommandSignal, cronReplySignal } from './cron-messages';
import type { SessionInbox } from './session-inbox';
import type { SessionLedger } from './session-state';

const { nextCronFire } = proxyActivities<Pick<Activities, 'nextCronFire'>>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10 },
});

/** The inbox `source` of a job's fires: `cron:<job id>`. */
export const CRON_SOURCE = 'cron:';

/** A recurring job's age limit, ms (2.1.328's `recurringMaxAgeMs`: 7 days; it fires a last time, then is deleted). */
export const CRON_MAX_AGE_MS = 604_800_000;

/**
 * The session's cron jobs (`CronCreate`): each is a task of kind `cron` in the table (carried by
 * continue-as-new; the session does not end while one is pending) and a durable timer of the
 * session workflow to its next fire (no worker holds it; it survives restarts of workers, the
 * server and clients). A fire queues the job's prompt as a plain prompt, which starts a turn once
 * the session is idle (2.1.328: jobs fire only while idle; fires while one waits are one); a recurring job then re-arms for its
 * next fire (an activity computes it: cron-parser, local time, its per-job offset), a one-shot
 * ends. A recurring job that has reached 7 days fires a last time and ends. `CronDelete` ends a
 * job; an interrupt does not (as 2.1.328's Esc).
 *
 * Reached only through the `cronCommand` signal, which no recorded history has: no patch.
 */
export class SessionCrons {
  private readonly timers = new Map<string, CancellationScope>();

  constructor(
    private readonly ledger: SessionLedger,
    private readonly inbox: SessionInbox,
  ) {}

  setHandlers(): void {
    setHandler(cronCommandSignal, (c) => this.command(c));
  }

  /** Re-arms the jobs the table carried (a new run after continue-as-new). */
  resume(): void {
    for (const t of this.jobs()) this.arm(t);
  }

  private jobs(): TaskRecord[] {
    return this.ledger.tasks.running().filter((e) => e.kind === 'cron');
  }

  private async command(c: CronCommand): Promise<void> {
    const reply: CronReply = { requestId: c.requestId };
    if (c.kind === 'create') {
      const record: TaskRecord = {
        kind: 'cron',
        taskId: c.id,
        runId: c.requestId,
        run: 1,
        status: 'running',
        owner: 'session',
        description: firstLine(`${c.job.humanSchedule}`).slice(0, 200),
        toolUseId: c.toolUseId,
        startedBy: c.replyTo,
        startedAtMs: Date.now(),
        workflowId: '',
        refs: {},
        cron: c.job,
      };
      this.ledger.taskStarted({ record });
      this.arm(record);
    } else if (c.kind === 'list') {
      reply.jobs = this.jobs().flatMap((t): CronJobRow[] =>
        t.cron
          ? [
              {
                id: t.taskId,
                cron: t.cron.cron,
                humanSchedule: t.cron.humanSchedule,
                recurring: t.cron.recurring,
                durable: t.cron.durable,
                nextFireAtMs: t.cron.nextFireAtMs,
                promptRef: t.cron.promptRef,
              },
            ]
          : [],
      );
    } else if (c.kind === 'end-session-only') {
      // A kind no earlier code sent (no recorded history has it): no patch.
      for (const t of this.jobs()) if (!t.cron?.durable) this.end(t, 'killed');
      return;
    } else {
      const t = this.jobs().find((e) => e.taskId === c.id);
      reply.deleted = t !== undefined;
      if (t?.cron?.durable) reply.durable = true;
      if (t) this.end(t, 'killed');
    }
    await CancellationScope.nonCancellable(() =>
      getExternalWorkflowHandle(c.replyTo)
        .signal(cronReplySignal, reply)
        .catch(() => undefined),
    );
  }

  /**
   * The turn of a fire of job `taskId` ended: a failed one counts, a good one resets the count. A
   * recurring job whose last {@link MAX_FAILED_CRON_FIRES} fires all failed ends `failed` (its
   * description says why): a prompt that cannot run must not fire for 7 days. Only jobs created
   * with a count (`failedFires`; jobs of older versions have none) are counted, so the histories
   * of older sessions replay unchanged.
   */
  fireEnded(taskId: string, failed: boolean): void {
    const t = this.jobs().find((e) => e.taskId === taskId);
    const job = t?.cron;
    if (!t || job?.failedFires === undefined) return;
    const failedFires = failed ? job.failedFires + 1 : 0;
    const record: TaskRecord = { ...t, cron: { ...job, failedFires } };
    if (failedFires < MAX_FAILED_CRON_FIRES) {
      if (failedFires !== job.failedFires) this.ledger.taskStarted({ record });
      return;
    }
    this.ledger.taskStarted({
      record: {
        ...record,
        description: `${t.description} (ended: its last ${failedFires} fires failed)`.slice(0, 200),
      },
    });
    this.end(record, 'failed');
  }

  /** Ends a job: its timer is cancelled and its task finished (`killed`: deleted; `completed`: its last fire; `failed`: its fires fail). */
  private end(t: TaskRecord, status: 'killed' | 'completed' | 'failed'): void {
    this.timers.get(t.taskId)?.cancel();
    this.timers.delete(t.taskId);
    this.ledger.taskFinished({
      taskId: t.taskId,
      runId: t.runId,
      status,
      endedAtMs: Date.now(),
      usage: { totalTokens: 0, toolUses: 0, durationMs: Date.now() - t.startedAtMs, costUsd: 0 },
      modelUsage: {},
      refs: {},
    });
  }

  private arm(t: TaskRecord): void {
    const job = t.cron;
    if (!job) return;
    this.timers.get(t.taskId)?.cancel();
    const scope = new CancellationScope();
    this.timers.set(t.taskId, scope);
    scope
      .run(() => sleep(Math.max(0, job.nextFireAtMs - Date.now())))
      .then(
        () => (this.timers.get(t.taskId) === scope ? this.fire(t) : undefined),
        (err: unknown) => {
          if (!isCancellation(err)) throw err;
        },
      );
  }

  /** A fire: the prompt is queued; a recurring job re-arms for its next fire, else it ends. */
  private async fire(t: TaskRecord): Promise<void> {
    const job = t.cron;
    if (!job) return;
    this.timers.delete(t.taskId);
    const firedAt = Date.now();
    // Fires while the session is busy wait for it, once (2.1.328: jobs fire only while idle).
    // A subagent's job runs with the subagent's tools and permission mode, not the session's.
    const by = job.scheduledBy;
    this.inbox.prompt(
      {
        prompt: job.promptRef,
        promptLine: firstLine(`cron ${t.taskId}: ${job.humanSchedule}`),
        ...(by ? { options: { tools: by.tools, permissionMode: by.permissionMode } } : {}),
      },
      `${CRON_SOURCE}${t.taskId}`,
    );
    const next =
      job.recurring && firedAt - job.createdAtMs < CRON_MAX_AGE_MS
        ? await nextCronFire({ cron: job.cron, id: t.taskId, fromMs: firedAt })
        : null;
    // Deleted while the next fire time was being computed.
    const current = this.jobs().find((e) => e.taskId === t.taskId && e.runId === t.runId);
    if (!current) return;
    if (next === null) {
      this.end(current, 'completed');
      return;
    }
    // `current`'s job: a fire's turn that ended meanwhile has counted in it (`fireEnded`).
    const now = current.cron ?? job;
    const record: TaskRecord = { ...current, cron: { ...now, nextFireAtMs: next, fires: now.fires + 1 } };
    this.ledger.taskStarted({ record });
    this.arm(record);
  }
}
