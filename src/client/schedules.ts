/**
 * Scheduled batches on Temporal Schedules: a schedule whose action starts
 * `scheduledBatchWorkflow`, one batch per fire with the batch id `<schedule id>-<scheduled time>`
 * (src/common/schedule.ts). The CLI front door is `agent-runner schedule` (docs/schedules.md).
 */
import type { Client, ScheduleDescription, ScheduleHandle, ScheduleSummary } from '@temporalio/client';
import { ScheduleAlreadyRunning, ScheduleNotFoundError } from '@temporalio/client';
import type { ScheduledBatchInput } from '../common/schedule';
import { SCHEDULED_BATCH_WORKFLOW, SCHEDULE_ID_RE, scheduledWorkflowIdPrefix } from '../common/schedule';

/** Thrown when no schedule with that id exists (or it is not one of the runner's). */
export class UnknownScheduleError extends Error {
  override readonly name = 'UnknownScheduleError';
  constructor(readonly scheduleId: string) {
    super(`no schedule "${scheduleId}" on this Temporal server (agent-runner schedule list shows them)`);
  }
}

/** Thrown by {@link createBatchSchedule} when a schedule with that id already exists. */
export class ScheduleExistsError extends Error {
  override readonly name = 'ScheduleExistsError';
  constructor(readonly scheduleId: string) {
    super(
      `a schedule "${scheduleId}" already exists (agent-runner schedule describe ${scheduleId}); ` +
        `delete it first (agent-runner schedule delete ${scheduleId}) or choose another id`,
    );
  }
}

/** What the memo of a runner schedule says (shown by `list` and `describe`). */
export interface BatchScheduleMemo {
  /** `batch`: a task file; `prompt`: one `-p` prompt (stored as a one-task file). */
  kind: 'batch' | 'prompt';
  taskFile: string;
  cwd: string;
}

/** Options of {@link createBatchSchedule}. */
export interface CreateBatchScheduleOptions {
  scheduleId: string;
  taskQueue: string;
  input: ScheduledBatchInput;
  kind: BatchScheduleMemo['kind'];
  spec: { intervals?: Array<{ every: number; offset?: number }>; cronExpressions?: string[]; timezone?: string };
  overlap: 'SKIP' | 'BUFFER_ONE' | 'BUFFER_ALL' | 'CANCEL_OTHER' | 'TERMINATE_OTHER' | 'ALLOW_ALL';
  /** ms */
  catchupWindowMs: number;
  /** Pause the schedule when a fire's workflow fails (a refused batch). @default false */
  pauseOnFailure?: boolean;
  /** Create it paused. @default false */
  paused?: boolean;
  note?: string;
}

/**
 * Creates a schedule that runs a batch at each fire.
 * @throws RangeError for a bad schedule id; ScheduleExistsError when the id is taken
 */
export async function createBatchSchedule(client: Client, o: CreateBatchScheduleOptions): Promise<ScheduleHandle> {
  if (!SCHEDULE_ID_RE.test(o.scheduleId)) {
    throw new RangeError(
      `schedule id must be 1-100 characters of letters, digits, _ . : - (starting with a letter or digit), got "${o.scheduleId}"`,
    );
  }
  const memo: BatchScheduleMemo = { kind: o.kind, taskFile: o.input.taskFile, cwd: o.input.cwd };
  try {
    return await client.schedule.create({
      scheduleId: o.scheduleId,
      spec: o.spec,
      action: {
        type: 'startWorkflow',
        workflowType: SCHEDULED_BATCH_WORKFLOW,
        workflowId: scheduledWorkflowIdPrefix(o.scheduleId),
        taskQueue: o.taskQueue,
        args: [o.input],
        staticSummary: `scheduled batch ${o.scheduleId} (${o.kind})`,
      },
      policies: {
        overlap: o.overlap,
        catchupWindow: o.catchupWindowMs,
        pauseOnFailure: o.pauseOnFailure ?? false,
      },
      memo: { ...memo },
      state: { paused: o.paused ?? false, ...(o.note !== undefined ? { note: o.note } : {}) },
    });
  } catch (e) {
    if (e instanceof ScheduleAlreadyRunning) throw new ScheduleExistsError(o.scheduleId);
    throw e;
  }
}

/** Whether a schedule (summary or description) is one of the runner's. */
function isBatchSchedule(s: Pick<ScheduleSummary, 'action'>): boolean {
  return s.action?.workflowType === SCHEDULED_BATCH_WORKFLOW;
}

/** The runner's schedules (those whose action starts `scheduledBatchWorkflow`), by id. */
export async function listBatchSchedules(client: Client): Promise<ScheduleSummary[]> {
  const out: ScheduleSummary[] = [];
  for await (const s of client.schedule.list()) if (isBatchSchedule(s)) out.push(s);
  return out.sort((a, b) => a.scheduleId.localeCompare(b.scheduleId));
}

/**
 * Describes a runner schedule.
 * @throws UnknownScheduleError when it does not exist or is not a runner schedule
 */
export async function describeBatchSchedule(client: Client, scheduleId: string): Promise<ScheduleDescription> {
  try {
    const d = await client.schedule.getHandle(scheduleId).describe();
    if (!isBatchSchedule(d)) throw new UnknownScheduleError(scheduleId);
    return d;
  } catch (e) {
    if (e instanceof ScheduleNotFoundError) throw new UnknownScheduleError(scheduleId);
    throw e;
  }
}

/** What can be done to a schedule by id. */
export type ScheduleOperation = 'pause' | 'unpause' | 'trigger' | 'delete';

/**
 * Pauses, unpauses, triggers (one fire now, as scheduled for the current time; the overlap
 * policy applies) or deletes a runner schedule. Deleting leaves its running fire running.
 * @throws UnknownScheduleError when it does not exist or is not a runner schedule
 */
export async function operateBatchSchedule(
  client: Client,
  scheduleId: string,
  op: ScheduleOperation,
  note?: string,
): Promise<void> {
  await describeBatchSchedule(client, scheduleId);
  const h = client.schedule.getHandle(scheduleId);
  try {
    if (op === 'pause') await h.pause(note);
    else if (op === 'unpause') await h.unpause(note);
    else if (op === 'trigger') await h.trigger();
    else await h.delete();
  } catch (e) {
    if (e instanceof ScheduleNotFoundError) throw new UnknownScheduleError(scheduleId);
    throw e;
  }
}
