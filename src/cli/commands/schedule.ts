/**
 * `agent-runner schedule create|list|describe|pause|unpause|trigger|delete`: batches (or one
 * prompt) run by a Temporal Schedule, one batch per fire with the batch id
 * `<schedule id>-<scheduled time>` (docs/schedules.md).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ScheduleDescription, ScheduleSummary } from '@temporalio/client';
import type { Config } from '../../config';
import { parseTaskFile } from '../../client/batch-tasks';
import type { BatchScheduleMemo, ScheduleOperation } from '../../client/schedules';
import {
  createBatchSchedule,
  describeBatchSchedule,
  listBatchSchedules,
  operateBatchSchedule,
} from '../../client/schedules';
import type { ScheduledBatchInput } from '../../common/schedule';
import { SCHEDULED_BATCH_INPUT_VERSION, SCHEDULE_ID_RE, scheduledBatchId } from '../../common/schedule';
import type { ControlIo } from '../control';
import { kvTable, openControlRuntime } from '../control';
import { parseScheduleTiming } from '../schedule-spec';
import type { ScheduleTimingFlags } from '../schedule-spec';
import type { ServerModeFlags } from '../server-mode';
import { serverModeOptions } from '../server-mode';
import { UsageError } from '../usage-error';
import { withControlErrors } from './control-errors';
import { readLiveServerState } from '../../host/server-state';

/** Flags of `agent-runner schedule create`. */
export interface ScheduleCreateFlags extends ScheduleTimingFlags, ServerModeFlags {
  prompt?: string;
  pauseOnFailure?: boolean;
  paused?: boolean;
  note?: string;
  json?: boolean;
}

/**
 * Checks the `batch` arguments of a schedule against the `batch` command's own flags (the CLI's
 * definition, so a typo is refused at create time, not at 03:00).
 * @throws UsageError naming the bad argument
 */
export type BatchArgsCheck = (argv: string[]) => void;

/** `batch` flags a schedule sets itself, or that mean nothing for a fire. */
const REFUSED_BATCH_FLAGS: Record<string, string> = {
  '--batch-id': 'each fire has its own batch id, <schedule id>-<scheduled time>',
  '--retry-failed': 'each fire is a new batch, with no failed attempts to retry',
  '--worker': "a fire runs on a worker, against that worker's server",
  '--progress': 'a fire prints plain lines',
  '--progress-interval': 'a fire prints plain lines',
};

/**
 * `agent-runner schedule create <id> (--every D | --cron E) [-- TASKS.jsonl [batch flags]]` or
 * `… --prompt TEXT [-- batch flags]`: creates the schedule. The task file must exist and hold a
 * valid task now (it is read again at each fire, where the worker runs).
 * @throws UsageError for a bad id, timing flag, task file or batch flag (nothing is created)
 */
export async function runScheduleCreate(
  config: Config,
  scheduleId: string,
  positional: string[],
  flags: ScheduleCreateFlags,
  io: ControlIo,
  checkBatchArgs: BatchArgsCheck,
  cwd: string = process.cwd(),
): Promise<number> {
  if (!SCHEDULE_ID_RE.test(scheduleId)) {
    throw new UsageError(
      `schedule id must be 1-100 characters of letters, digits, _ . : - (starting with a letter or digit), got "${scheduleId}"`,
    );
  }
  const timing = parseScheduleTiming(flags);
  let kind: BatchScheduleMemo['kind'];
  let taskFile: string;
  let args: string[];
  if (flags.prompt !== undefined) {
    if (flags.prompt.trim() === '') throw new UsageError('--prompt must not be empty');
    kind = 'prompt';
    args = positional;
    if (args[0] !== undefined && !args[0].startsWith('-')) {
      throw new UsageError(`schedule create --prompt takes no task file (got "${args[0]}"); give one or the other`);
    }
    taskFile = storePromptTask(config.dataDir, scheduleId, flags.prompt);
  } else {
    const [file, ...rest] = positional;
    if (file === undefined || file.startsWith('-')) {
      throw new UsageError(
        'schedule create needs a task file or --prompt: agent-runner schedule create <id> --every 1d -- tasks.jsonl [batch flags]',
      );
    }
    kind = 'batch';
    taskFile = resolve(cwd, file);
    args = rest;
    checkTaskFile(taskFile, cwd);
  }
  for (const a of args) {
    const name = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
    const why = REFUSED_BATCH_FLAGS[name];
    if (why) throw new UsageError(`schedule create: ${name} is not for a schedule: ${why}`);
  }
  checkBatchArgs([taskFile, ...args]);
  const input: ScheduledBatchInput = { v: SCHEDULED_BATCH_INPUT_VERSION, scheduleId, taskFile, args, cwd };
  return withControlErrors(io, async () => {
    const mode = serverModeOptions(flags);
    const rt = mode.daemon
      ? await (
          await import('../../host/runtime')
        ).openRuntime({ config, ...mode, worker: false, callsModel: false, quiet: true })
      : await openControlRuntime(config, 'schedule create');
    try {
      if (rt.mode === 'embedded') {
        // A private server ends with this process: a schedule there would never fire.
        throw new UsageError(
          'schedule create needs a server that keeps running, and none is running: start `agent-runner server`, ' +
            'set temporal.address (TEMPORAL_ADDRESS) to a Temporal server with `agent-runner worker` processes, ' +
            'or set the model API key so that the background server can start (docs/schedules.md)',
        );
      }
      const handle = await createBatchSchedule(rt.client, {
        scheduleId,
        taskQueue: rt.taskQueue,
        input,
        kind,
        spec: timing.spec,
        overlap: timing.overlap,
        catchupWindowMs: timing.catchupWindowMs,
        ...(flags.pauseOnFailure ? { pauseOnFailure: true } : {}),
        ...(flags.paused ? { paused: true } : {}),
        ...(flags.note !== undefined ? { note: flags.note } : {}),
      });
      const d = await handle.describe();
      if (flags.json) {
        io.stdout(JSON.stringify(scheduleJson(d)));
      } else {
        const next = d.info.nextActionTimes[0];
        io.stdout(
          `schedule "${scheduleId}" created (${specText(d.spec)}, overlap ${String(d.policies.overlap)}, ` +
            `catch-up window ${durationText(d.policies.catchupWindow)})${d.state.paused ? ', paused' : ''}`,
        );
        if (next) io.stdout(`next fire ${next.toISOString()}: batch ${scheduledBatchId(scheduleId, next)}`);
      }
      if (rt.mode !== 'configured' && (await readLiveServerState(config.dataDir))?.mode !== 'foreground') {
        io.stderr(
          'agent-runner schedule: fires run only while a server and a worker run; the background server stays up while ' +
            'a schedule is active, but nothing restarts it after a reboot: keep `agent-runner server` running under a ' +
            'service manager, or use a deployed server and workers (docs/schedules.md)',
        );
      }
      return 0;
    } finally {
      await rt.close();
    }
  });
}

/** A task file that exists and holds at least one valid task now. */
function checkTaskFile(path: string, cwd: string): void {
  if (!existsSync(path) || !statSync(path).isFile())
    throw new UsageError(`schedule create: task file ${path} not found`);
  const parsed = parseTaskFile(readFileSync(path, 'utf8'), dirname(path), cwd);
  if (parsed.tasks.length === 0) {
    const first = parsed.errors[0];
    throw new UsageError(
      `schedule create: ${path} has no valid task${first ? ` (line ${first.line}: ${first.message})` : ''}`,
    );
  }
}

/**
 * Writes a `--prompt` schedule's prompt as a one-task file under the data directory (the
 * schedule's action holds only its path): `<dataDir>/schedules/<id>-<hash>.jsonl`.
 */
function storePromptTask(dataDir: string, scheduleId: string, prompt: string): string {
  const dir = join(dataDir, 'schedules');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const hash = createHash('sha256').update(prompt, 'utf8').digest('hex').slice(0, 12);
  const path = join(dir, `${scheduleId}-${hash}.jsonl`);
  writeFileSync(path, `${JSON.stringify({ id: 'prompt', prompt })}\n`, { mode: 0o600 });
  return path;
}

/** `agent-runner schedule list`: the runner's schedules (table, or JSON lines with `--json`). */
export async function runScheduleList(config: Config, flags: { json?: boolean }, io: ControlIo): Promise<number> {
  return withControlErrors(io, async () => {
    const rt = await openControlRuntime(config, 'schedule list');
    try {
      const rows = await listBatchSchedules(rt.client);
      if (flags.json) {
        for (const s of rows) io.stdout(JSON.stringify(summaryJson(s)));
        return 0;
      }
      if (rows.length === 0) {
        io.stdout('no schedules (create one with: agent-runner schedule create <id> --every 1d -- tasks.jsonl)');
        return 0;
      }
      const table = [
        ['SCHEDULE', 'STATE', 'WHEN', 'NEXT', 'LAST FIRE', 'KIND', 'TASKS'],
        ...rows.map((s) => {
          const memo = (s.memo ?? {}) as Partial<BatchScheduleMemo>;
          const last = s.info.recentActions.at(-1);
          return [
            s.scheduleId,
            s.state.paused ? 'paused' : 'active',
            s.spec ? specText(s.spec) : '-',
            s.state.paused ? '-' : (s.info.nextActionTimes[0]?.toISOString() ?? '-'),
            last ? last.scheduledAt.toISOString() : '-',
            memo.kind ?? '-',
            memo.taskFile ?? '-',
          ];
        }),
      ];
      const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
      for (const r of table)
        io.stdout(
          r
            .map((c, i) => c.padEnd(widths[i]!))
            .join('  ')
            .trimEnd(),
        );
      return 0;
    } finally {
      await rt.close();
    }
  });
}

/** `agent-runner schedule describe <id>`: its spec, policies, state and recent fires with their batch ids. */
export async function runScheduleDescribe(
  config: Config,
  scheduleId: string,
  flags: { json?: boolean },
  io: ControlIo,
): Promise<number> {
  return withControlErrors(io, async () => {
    const rt = await openControlRuntime(config, 'schedule describe');
    try {
      const d = await describeBatchSchedule(rt.client, scheduleId);
      if (flags.json) {
        io.stdout(JSON.stringify(scheduleJson(d)));
        return 0;
      }
      const memo = (d.memo ?? {}) as Partial<BatchScheduleMemo>;
      const input = d.action.args?.[0] as Partial<ScheduledBatchInput> | undefined;
      io.stdout(
        kvTable([
          ['schedule', scheduleId],
          ['state', d.state.paused ? `paused${d.state.note ? ` (${d.state.note})` : ''}` : 'active'],
          ['when', specText(d.spec)],
          ['overlap', String(d.policies.overlap)],
          ['catch-up window', durationText(d.policies.catchupWindow)],
          ['pause on failure', d.policies.pauseOnFailure ? 'yes' : 'no'],
          ['runs', memo.kind === 'prompt' ? `a prompt (${memo.taskFile ?? '?'})` : `batch ${memo.taskFile ?? '?'}`],
          ['batch flags', (input?.args ?? []).join(' ') || '-'],
          ['directory', memo.cwd ?? '-'],
          ['task queue', String(d.action.taskQueue)],
          [
            'fires',
            `${d.info.numActionsTaken} taken, ${d.info.numActionsSkippedOverlap} skipped (overlap), ${d.info.numActionsMissedCatchupWindow} missed (catch-up window)`,
          ],
          ['running', d.info.runningActions.map((a) => a.workflow.workflowId).join(', ') || '-'],
          [
            'next',
            d.state.paused
              ? '-'
              : d.info.nextActionTimes
                  .slice(0, 3)
                  .map((t) => t.toISOString())
                  .join(', ') || '-',
          ],
        ]),
      );
      for (const a of d.info.recentActions.slice(-10)) {
        io.stdout(
          `  fired ${a.scheduledAt.toISOString()}: batch ${scheduledBatchId(scheduleId, a.scheduledAt)} (workflow ${a.action.workflow.workflowId})`,
        );
      }
      return 0;
    } finally {
      await rt.close();
    }
  });
}

const DONE: Record<ScheduleOperation, string> = {
  pause: 'paused: no fires until unpaused',
  unpause: 'unpaused',
  trigger: 'triggered: one fire now (the overlap policy applies)',
  delete: 'deleted (a running fire keeps running)',
};

/** `agent-runner schedule pause|unpause|trigger|delete <id>`. */
export async function runScheduleOperation(
  config: Config,
  scheduleId: string,
  op: ScheduleOperation,
  flags: { note?: string },
  io: ControlIo,
): Promise<number> {
  return withControlErrors(io, async () => {
    const rt = await openControlRuntime(config, `schedule ${op}`);
    try {
      await operateBatchSchedule(rt.client, scheduleId, op, flags.note);
      io.stdout(`schedule "${scheduleId}" ${DONE[op]}`);
      return 0;
    } finally {
      await rt.close();
    }
  });
}

/** A schedule's spec for humans: `every 1d`, `cron 0 3 * * * (Europe/Paris)`. */
export function specText(spec: ScheduleSummary['spec'] & object): string {
  const parts = [
    ...(spec.intervals ?? []).map(
      (i) => `every ${durationText(Number(i.every))}${i.offset ? ` +${durationText(Number(i.offset))}` : ''}`,
    ),
    ...(spec.calendars ?? []).map((c) => `calendar ${c.comment ?? JSON.stringify(c)}`),
  ];
  const tz = spec.timezone ? ` (${spec.timezone})` : '';
  return (parts.join(', ') || 'no times') + tz;
}

/** ms as the largest exact units: `1d`, `1h30m`, `2s`, `250ms`. */
export function durationText(ms: number): string {
  if (ms === 0) return '0s';
  const units: Array<[string, number]> = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ];
  let left = ms;
  let out = '';
  for (const [u, n] of units) {
    const k = Math.floor(left / n);
    if (k > 0) out += `${k}${u}`;
    left -= k * n;
  }
  return out;
}

function summaryJson(s: ScheduleSummary): Record<string, unknown> {
  return {
    schedule_id: s.scheduleId,
    paused: s.state.paused,
    note: s.state.note ?? null,
    when: s.spec ? specText(s.spec) : null,
    next_fire: s.info.nextActionTimes[0]?.toISOString() ?? null,
    recent_fires: s.info.recentActions.map((a) => ({
      scheduled_at: a.scheduledAt.toISOString(),
      batch_id: scheduledBatchId(s.scheduleId, a.scheduledAt),
      workflow_id: a.action.workflow.workflowId,
    })),
    ...((s.memo ?? {}) as Record<string, unknown>),
  };
}

function scheduleJson(d: ScheduleDescription): Record<string, unknown> {
  const input = d.action.args?.[0] as Partial<ScheduledBatchInput> | undefined;
  return {
    ...summaryJson(d),
    overlap: d.policies.overlap,
    catchup_window_ms: d.policies.catchupWindow,
    pause_on_failure: d.policies.pauseOnFailure,
    batch_args: input?.args ?? [],
    task_queue: d.action.taskQueue,
    fires_taken: d.info.numActionsTaken,
    fires_skipped_overlap: d.info.numActionsSkippedOverlap,
    fires_missed_catchup_window: d.info.numActionsMissedCatchupWindow,
    running: d.info.runningActions.map((a) => a.workflow.workflowId),
  };
}
