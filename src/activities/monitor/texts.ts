/**
 * The model-facing texts of Monitor, byte for byte as Claude Code 2.1.328 writes them
 * (test/conformance/recordings/async/claude-2.1.328/monitor-*, and its bundle for the variants no
 * scenario reaches; docs/reference/claude-code-async-tools.md "Monitor").
 */
import { shortDuration } from '../../common/monitor';

export { monitorEndSummary } from '../../common/shell-summary';
import { framedNotification, taskNotificationText } from '../agents/texts';

/** The tool_result of a started monitor. */
export function monitorStartedText(taskId: string, timeoutMs: number): string {
  return `Monitor started (task ${taskId}, expires in ${shortDuration(timeoutMs)} unless the source ends first; you get one notice at expiry — re-arm if you still need the watch). You will be notified on each event. Keep working — do not poll or sleep. Events may arrive while you are waiting for the user — an event is not their reply.`;
}

/** The `<summary>` of an event. */
export function monitorEventSummary(description: string): string {
  return `Monitor event: "${description}"`;
}

/**
 * The one event of a monitor past its `timeout_ms`: with no events, a hint to widen the filter
 * (and, when the command wrote to stderr, where to read it); else the count.
 */
export function monitorExpiredText(timeoutMs: number, events: number, stderrFile?: string): string {
  const after = shortDuration(timeoutMs);
  if (events === 0) {
    const stderr =
      stderrFile !== undefined
        ? `Its command wrote to stderr, which isn't delivered as events and may mean it failed: see \`${stderrFile}\`. `
        : '';
    return `[Monitor expired after ${after} with no events delivered. ${stderr}Re-arm it if you still need the watch — and widen the filter if silence was unexpected.]`;
  }
  return `[Monitor expired after ${after} with ${events} ${events === 1 ? 'event' : 'events'} delivered. Re-arm it if you still need the watch.]`;
}

/** A notification without tool-use id, output file or status: an event (or the expiry notice). */
export function monitorEventNotification(taskId: string, description: string, event: string): string {
  return framedNotification(taskNotificationText({ taskId, summary: monitorEventSummary(description), event }));
}
