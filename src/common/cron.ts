/**
 * The Cron tools (`CronCreate`, `CronList`, `CronDelete`) as tasks of the session: each job is a
 * task of kind `cron` whose next fire is a durable timer of `sessionWorkflow`
 * (src/workflows/session-crons.ts). The records and messages here are small and JSON-safe: the
 * prompt is content, named by ref. The schedule arithmetic and 2.1.328's texts are in
 * `src/activities/cron/schedule.ts`.
 */
import type { ContentRef } from './content-ref';
import type { RunToolSummary } from './tools';
import type { WakeupCallRef } from './wakeup';

/** The cron part of a task record (kind `cron`; the task id is the job id, 8 hex digits as 2.1.328's). */
export interface CronTaskInfo {
  /** The 5-field expression, as given (trimmed). */
  cron: string;
  /** 2.1.328's human-readable schedule (`Every 5 minutes`). */
  humanSchedule: string;
  /** False: a one-shot, deleted after its fire. */
  recurring: boolean;
  /** The `durable` input (shown in texts; every job is kept by the session either way). */
  durable: boolean;
  /** The prompt each fire enqueues, stored as content. */
  promptRef: ContentRef;
  /** When the job was created, epoch ms (a recurring job expires 7 days after). */
  createdAtMs: number;
  /** When it fires next, epoch ms (its per-job offset included). */
  nextFireAtMs: number;
  /** Fires so far. */
  fires: number;
}

/** One job as CronList shows it. */
export interface CronJobRow {
  id: string;
  cron: string;
  humanSchedule: string;
  recurring: boolean;
  durable: boolean;
  nextFireAtMs: number;
  promptRef: ContentRef;
}

/** What a turn tells its session about its crons (signal `cronCommand`, answered by `cronReply`). */
export type CronCommand = { requestId: string; replyTo: string } & (
  | { kind: 'create'; toolUseId: string; id: string; job: CronTaskInfo }
  | { kind: 'list' }
  | { kind: 'delete'; id: string }
);

/** The session's answer: the jobs (list), or whether the job existed (delete). */
export interface CronReply {
  requestId: string;
  jobs?: CronJobRow[];
  deleted?: boolean;
  /** The deleted job was `durable` (its entry leaves `.claude/scheduled_tasks.json`). */
  durable?: boolean;
}

/** Where a cron tool call and its result are (a ScheduleWakeup call's fields, and the turn's directory: the project of a durable job). */
export type CronCallRef = WakeupCallRef & { cwd?: string };

/** What a cron call asks for, once read and checked (`invalid`: its error result is written). */
export type CronCall =
  | { kind: 'create'; job: CronTaskInfo }
  | { kind: 'list' }
  | { kind: 'delete'; id: string }
  | { kind: 'invalid'; result: RunToolSummary };

/** What the workflow decided, for the result. */
export type CronOutcome =
  | { kind: 'created'; id: string; job: CronTaskInfo }
  | { kind: 'listed'; jobs: CronJobRow[] }
  | { kind: 'deleted'; id: string; deleted: boolean; durable?: boolean };
