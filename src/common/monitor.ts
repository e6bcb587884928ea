/**
 * Monitor (Claude Code 2.1.328's tool that streams a command's stdout lines as events), the pure
 * decisions: its time limit, the short durations its texts show, and the wire type of an event.
 * A monitor is a background command (task kind `shell`, `shell.monitor` set, 2.1.328's
 * `local_bash`) whose activity tells the session of each batch of lines while the command runs
 * (signal `taskEvent`); see docs/background-work.md "Monitor".
 */
import type { ContentRef } from './content-ref';

/** The tool's name. */
export const MONITOR_TOOL = 'Monitor';
/** `timeout_ms` when the input gives none (2.1.328's schema default: 5 min), ms. */
export const MONITOR_DEFAULT_TIMEOUT_MS = 300_000;
/** Bounds of `timeout_ms` (2.1.328's schema), ms. */
export const MONITOR_MIN_TIMEOUT_MS = 1_000;
export const MONITOR_MAX_TIMEOUT_MS = 3_600_000;
/** Stdout lines within this window are one event (2.1.328's description), ms. */
export const MONITOR_BATCH_MS = 200;

/**
 * How long a monitor runs before it expires: `timeout_ms`, or the default for a missing or
 * non-finite value, clamped to [{@link MONITOR_MIN_TIMEOUT_MS}, {@link MONITOR_MAX_TIMEOUT_MS}].
 */
export function monitorTimeoutMs(timeoutMs: number | undefined): number {
  if (timeoutMs === undefined || !Number.isFinite(timeoutMs)) return MONITOR_DEFAULT_TIMEOUT_MS;
  return Math.min(MONITOR_MAX_TIMEOUT_MS, Math.max(MONITOR_MIN_TIMEOUT_MS, Math.floor(timeoutMs)));
}

/**
 * A duration as 2.1.328's monitor texts show it (trailing zero units hidden): `2s`, `30s`, `1m`,
 * `1m 30s`, `1h`, `1h 5m`. Rounded down to the second.
 */
export function shortDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const parts = [...(h > 0 ? [`${h}h`] : []), ...(m > 0 ? [`${m}m`] : []), ...(s > 0 ? [`${s}s`] : [])];
  return parts.length > 0 ? parts.join(' ') : '0s';
}

/** Name of the signal a monitor's activity sends its session (`taskEventSignal`). */
export const TASK_EVENT_SIGNAL = 'taskEvent';

/**
 * Signal `taskEvent` (a monitor's activity to its session): a batch of stdout lines, as the
 * notification the model reads, stored as content (`ref`). `seq` counts the run's events from 1.
 */
export interface TaskEventMessage {
  taskId: string;
  runId: string;
  seq: number;
  ref: ContentRef;
}

/** How a monitor's command went, reported with its end (small: counts only). */
export interface MonitorEnd {
  /** Events delivered to the session. */
  events: number;
  /** True when the command wrote to stderr (not events; the expiry text points at the file). */
  wroteStderr: boolean;
  /** True when the command printed anything on stdout. */
  hadOutput: boolean;
}
