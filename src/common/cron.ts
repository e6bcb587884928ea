/**
 * The Cron tools (`CronCreate`, `CronList`, `CronDelete`) as tasks of the session: each job is a
 * task of kind `cron` whose next fire is a durable timer of `sessionWorkflow`
 * (src/workflows/session-crons.ts). The records and messages here are small and JSON-safe: the
 * prompt is content, named by ref. The schedule arithmetic and 2.1.328's texts are in
 * `src/activities/cron/schedule.ts`.
 */
import type { ContentRef } from './content-ref';
import type { PermissionMode } from './permissions';
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
  /**
   * The subagent that created the job, when one did: its fires run with its tools and permission
   * mode, never the session's (work a subagent schedules has no more rights than it had).
   * Absent: created by the session's own agent (its fires run with the session's options).
   */
  scheduledBy?: CronScheduler;
  /** Fires in a row whose turn failed (a recurring job ends after {@link MAX_FAILED_CRON_FIRES}). */
  failedFires?: number;
}

/** The rights of the subagent that created a cron job, given to each of its fires. */
export interface CronScheduler {
  /** `subagent_type` of the agent. */
  agentType: string;
  /** The tools the agent was offered, by name: the only tools of a fired turn. */
  tools: string[];
  /** The agent's permission mode. */
  permissionMode: PermissionMode;
}

/** Fires in a row whose turn failed after which a recurring job ends (its prompt cannot run). */
export const MAX_FAILED_CRON_FIRES = 3;

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
  /**
   * The client is ending the session: its session-only jobs (not `durable`) end with it, as the
   * CronCreate text says ("dies when Claude exits"). No reply (`replyTo` is empty).
   */
  | { kind: 'end-session-only' }
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
