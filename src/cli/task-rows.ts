import type { TaskRecord } from '../common/tasks';

/** Seconds, as status shows them: `42s`, `3m 5s`, `1h 2m`. */
function span(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

/**
 * The rows `agent-runner status` shows for a session's running tasks: a pending wake-up with
 * its due time (ISO, and how far off), cron jobs with their next fire, background commands and monitors with their age and time limit, and
 * running agents. Finished tasks are not shown.
 * @param now epoch ms
 */
export function taskRows(tasks: readonly TaskRecord[], now: number): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  for (const t of tasks) {
    if (t.status !== 'running') continue;
    if (t.kind === 'wakeup' && t.wakeup) {
      const due = t.wakeup.dueAtMs;
      rows.push(['wake-up', `due ${new Date(due).toISOString()} (in ${span(due - now)}): ${t.description}`]);
    } else if (t.kind === 'cron' && t.cron) {
      const due = t.cron.nextFireAtMs;
      const kind = t.cron.recurring ? 'recurring' : 'one-shot';
      rows.push([
        'cron',
        `${t.taskId} ${t.cron.cron} (${t.cron.humanSchedule}, ${kind}) next ${new Date(due).toISOString()} (in ${span(due - now)})`,
      ]);
    } else if (t.kind === 'shell') {
      const limit = t.shell ? `, limit ${span(t.shell.timeoutMs)}` : '';
      rows.push([
        t.shell?.monitor ? 'monitor' : 'background command',
        `${t.taskId} "${t.description}" running ${span(now - t.startedAtMs)}${limit}`,
      ]);
    } else if (t.kind === 'agent') {
      rows.push([
        'agent',
        `${t.taskId} (${t.agent?.agentType ?? 'agent'}) "${t.description}" running ${span(now - t.startedAtMs)}`,
      ]);
    }
  }
  return rows;
}
