/**
 * `ScheduleWakeup`, as Claude Code 2.1.328 decides it (docs/reference/claude-code-async-tools.md
 * "ScheduleWakeup"; the clamp and the rounding read from its bundled code and confirmed by the
 * recordings): the delay is clamped to [60, 3600] s, and the wake-up fires at the next whole
 * minute at or after now + the clamped delay. One wake-up per session: a second call replaces the
 * pending one, `stop` cancels it. The pure decisions and the task record; the texts are in
 * `src/activities/wakeup/texts.ts`.
 */
import type { ContentRef } from './content-ref';
import type { RunToolSummary, ToolPermission } from './tools';

/** Shortest delay, s. */
export const WAKEUP_MIN_DELAY_S = 60;
/** Longest delay, s. */
export const WAKEUP_MAX_DELAY_S = 3600;
/** Fire times are rounded up to a multiple of this, ms (a whole minute). */
export const WAKEUP_ROUNDING_MS = 60_000;
/** The task id of a session's wake-up in the task table (there is at most one). */
export const WAKEUP_TASK_ID = 'wakeup';

/** A requested delay after the clamp. */
export interface ClampedDelay {
  /** Seconds, in [{@link WAKEUP_MIN_DELAY_S}, {@link WAKEUP_MAX_DELAY_S}]. */
  seconds: number;
  /** True when the request was outside the range (the tool_result says so). */
  wasClamped: boolean;
}

/**
 * Clamps a requested delay as 2.1.328 does: NaN (or a missing value) → 60, +Infinity → 3600,
 * -Infinity → 60, else the value clamped to [60, 3600] (fractions kept).
 */
export function clampWakeupDelay(requested: number | null | undefined): ClampedDelay {
  if (requested === null || requested === undefined || Number.isNaN(requested)) {
    return { seconds: WAKEUP_MIN_DELAY_S, wasClamped: true };
  }
  const seconds = Math.min(WAKEUP_MAX_DELAY_S, Math.max(WAKEUP_MIN_DELAY_S, requested));
  return { seconds, wasClamped: seconds !== requested };
}

/** When a wake-up armed at `nowMs` (epoch ms) with `delaySeconds` fires: rounded up to the minute. */
export function wakeupDueAtMs(nowMs: number, delaySeconds: number): number {
  return Math.ceil((nowMs + delaySeconds * 1000) / WAKEUP_ROUNDING_MS) * WAKEUP_ROUNDING_MS;
}

/** The wake-up part of a task record (kind `wakeup`). */
export interface WakeupTaskInfo {
  /** When it fires, epoch ms. */
  dueAtMs: number;
  /** The prompt it runs, stored as content. */
  promptRef: ContentRef;
}

/** What a turn tells its session about its wake-up (signal `wakeupCommand`). */
export type WakeupCommand =
  | {
      kind: 'schedule';
      requestId: string;
      replyTo: string;
      toolUseId: string;
      dueAtMs: number;
      promptRef: ContentRef;
      reason: string;
    }
  | { kind: 'stop'; requestId: string; replyTo: string };

/** The session's answer (signal `wakeupReply`): how many pending wake-ups the command cancelled. */
export interface WakeupReply {
  requestId: string;
  cancelled: number;
}

/** Where a ScheduleWakeup call and its result are. */
export interface WakeupCallRef {
  sessionId: string;
  assistantUuid: string;
  toolUseId: string;
  toolName: string;
  resultUuid: string;
  parentUuid: string;
  /** The call's permission as the workflow decided it (`readWakeupCall`: a denial is written instead). */
  permission?: ToolPermission;
}

/** What the call asks for (`invalid`: its error result is written). */
export type WakeupCall =
  | { kind: 'stop' }
  | { kind: 'schedule'; delaySeconds: number | null; promptRef: ContentRef; reason: string }
  | { kind: 'invalid'; result: RunToolSummary };

/** What the workflow decided, for the result. */
export type WakeupOutcome =
  | { kind: 'scheduled'; nowMs: number; dueAtMs: number; clampedDelaySeconds: number; wasClamped: boolean }
  | { kind: 'stopped'; nowMs: number; cancelled: number };
