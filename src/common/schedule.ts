/**
 * Wire types and ids of scheduled batches (`agent-runner schedule`, docs/schedules.md): a Temporal
 * Schedule whose action starts `scheduledBatchWorkflow`, which runs `agent-runner batch` with a
 * batch id taken from the fire's scheduled time. Deterministic: the workflow derives the id.
 */

/** Schema version of {@link ScheduledBatchInput} (a schedule's stored action arguments). */
export const SCHEDULED_BATCH_INPUT_VERSION = 1;

/** Workflow type a schedule's action starts. */
export const SCHEDULED_BATCH_WORKFLOW = 'scheduledBatchWorkflow';

/** Search attribute Temporal sets on every workflow a schedule starts: the fire's nominal time. */
export const SCHEDULED_START_TIME_ATTRIBUTE = 'TemporalScheduledStartTime';

/**
 * Input of `scheduledBatchWorkflow` (the schedule's action arguments, so every fire's history
 * holds it): references only. The task file is read at each fire, where the worker runs; a `-p`
 * schedule's prompt is a one-task file written when the schedule was created.
 */
export interface ScheduledBatchInput {
  /** Schema version of this input. */
  v: typeof SCHEDULED_BATCH_INPUT_VERSION;
  /** The schedule's id (the prefix of every fire's batch id). */
  scheduleId: string;
  /** Absolute path of the task file (JSONL), read by `agent-runner batch` at each fire. */
  taskFile: string;
  /**
   * The `batch` flags after the file (no `--batch-id`: the fire's own is added). `{batch_id}` in
   * an argument is replaced by the fire's batch id (e.g. `--out results-{batch_id}.jsonl`).
   */
  args: string[];
  /** Directory the batch runs in (relative paths of `args` resolve against it). */
  cwd: string;
}

/** Input of the `runScheduledBatch` activity: the workflow's input plus the fire's batch id. */
export interface RunScheduledBatchInput extends ScheduledBatchInput {
  batchId: string;
}

/** What a fire returns (its workflow's result): the batch's exit code and its summary line. */
export interface ScheduledBatchResult {
  batchId: string;
  /** `agent-runner batch`'s exit code: 0 every task succeeded, 1 a task failed or a line was skipped. */
  exitCode: number;
  /** The last line of the batch's summary (`3 tasks: 3 succeeded, 0 failed · $0.0123 · …`), or ''. */
  summary: string;
}

/** Longest schedule id: the fire's batch id (id + `-` + 16 characters of time) stays within 128. */
export const MAX_SCHEDULE_ID_LENGTH = 100;

/** A schedule id: letters, digits, `_ . : -`, starting with a letter or digit, up to 100. */
export const SCHEDULE_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;

/** Workflow id prefix of a schedule's fires (Temporal appends `-<scheduled time>` to it). */
export function scheduledWorkflowIdPrefix(scheduleId: string): string {
  return `agent-schedule-${scheduleId}`;
}

/**
 * Batch id of one fire of a schedule: `<schedule id>-<scheduled time, UTC, to the second>`, e.g.
 * `nightly-20261203T030000Z`. The scheduled (nominal) time, not the time the fire actually
 * started: a late or caught-up fire of 03:00 is still the 03:00 batch, and a second start of it
 * finds its finished tasks and runs none of them again.
 * @throws RangeError for an invalid date
 */
export function scheduledBatchId(scheduleId: string, scheduledTime: Date): string {
  const t = scheduledTime.getTime();
  if (!Number.isFinite(t)) throw new RangeError('scheduledBatchId: invalid scheduled time');
  const iso = new Date(Math.floor(t / 1000) * 1000).toISOString(); // 2026-12-03T03:00:00.000Z
  return `${scheduleId}-${iso.slice(0, 19).replace(/[-:]/g, '')}Z`;
}

/**
 * The scheduled time of a fire from its workflow id, which Temporal forms as
 * `<action workflow id>-<scheduled time, RFC 3339>` (the fallback when the search attribute is
 * not there), or null when the id does not end with one.
 */
export function scheduledTimeFromWorkflowId(workflowId: string): Date | null {
  const m = /-(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))$/.exec(workflowId);
  if (!m) return null;
  const d = new Date(m[1]!);
  return Number.isFinite(d.getTime()) ? d : null;
}
