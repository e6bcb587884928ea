/**
 * ScheduleWakeup's tool_result texts, byte for byte as Claude Code 2.1.328 writes them
 * (test/conformance/recordings/async/claude-2.1.328/schedule-wakeup-*).
 */

/** The clock of a fire time as 2.1.328 shows it: local `HH:MM:SS`. */
export function wakeupClock(dueAtMs: number): string {
  const d = new Date(dueAtMs);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/**
 * The result of a scheduled wake-up: its clock, the seconds until it fires, and the clamped
 * delay when the request was outside [60, 3600] s.
 */
export function wakeupScheduledText(dueAtMs: number, nowMs: number, clampedTo: number | undefined): string {
  const inSeconds = Math.round((dueAtMs - nowMs) / 1000);
  const clamped = clampedTo !== undefined ? ` (clamped to ${clampedTo}s from your requested value)` : '';
  return `Next wakeup scheduled for ${wakeupClock(dueAtMs)} (in ${inSeconds}s)${clamped}. If you owe the user a status update this tick, write it now as ordinary response text; then end the turn — the harness re-invokes you when the wakeup fires or a task-notification arrives.`;
}

/** The result of `stop: true`: `cancelled` pending wake-ups were cancelled. */
export function wakeupStoppedText(cancelled: number): string {
  return cancelled > 0
    ? `Loop stopped — cancelled ${cancelled} pending wakeup(s); no further dynamic-loop wakeups scheduled. If you armed a Monitor for this loop, TaskStop it now. Then write the loop's outcome for the user as ordinary visible response text — and end the turn.`
    : "Loop stopped — any dynamic loop in this session is ended; there was no pending wakeup to cancel. If you are running a fixed-interval /loop (a recurring cron), it is NOT stopped by this call — cancel it with CronDelete. If you armed a Monitor for this loop, TaskStop it now. Then write the loop's outcome for the user as ordinary visible response text — and end the turn.";
}

/** The error of a call without `prompt` (is_error, no tool_use_error tags). */
export const WAKEUP_PROMPT_REQUIRED = '`prompt` is required when `stop` is not true.';
