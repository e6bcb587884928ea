import { taskRows } from '../task-rows';
import type { Config } from '../../config';
import { sessionStatus } from '../../client/session-control';
import type { SessionStatusReport } from '../../client/session-control';
import type { TurnLimits } from '../../common/limits';
import type { Usage } from '../../common/usage';
import type { ControlIo } from '../control';
import { int, kvTable, openControlRuntime, usd } from '../control';
import { withControlErrors } from './control-errors';
import type { Client } from '@temporalio/client';
import { NoWorkerAnsweredError } from '../../client/query-deadline';
import { sessionWorkflowId } from '../../common/ids';
import type { ClientRuntime } from '../../connection/connect';
import { pendingWork, stallReasons } from '../../client/pending-work';
import { describeRunner, runnerDiffers } from '../../host/runner-build';
import { readServerState } from '../../host/server-state';

/** The server a control command reached, for people (its agent-runner version when it records one). */
export function describeServer(config: Config, rt: Pick<ClientRuntime, 'mode' | 'address'>): string {
  if (rt.mode !== 'shared') return `Temporal at ${rt.address} (temporal.address; its workers' version is not recorded)`;
  const state = readServerState(config.dataDir);
  const runner = state?.runner;
  return (
    `${describeRunner(runner)} at ${rt.address} (${state?.mode ?? 'foreground'}, pid ${state?.ownerPid ?? state?.pid ?? '?'})` +
    (runnerDiffers(runner) ? " — not this client's version" : '')
  );
}

/** Flags of `agent-runner status`. */
export interface StatusFlags {
  json?: boolean;
}

/** `limits` of a turn or session for humans: `max budget $1.0000 · max turns 20 · task budget -`. */
export function formatLimits(l: TurnLimits): string {
  return [
    `max budget ${l.maxBudgetUsd !== undefined ? usd(l.maxBudgetUsd) : '-'}`,
    `max turns ${l.maxTurns !== undefined ? String(l.maxTurns) : '-'}`,
    `task budget ${l.taskBudget !== undefined ? `${int(l.taskBudget)} tokens` : '-'}`,
  ].join(' · ');
}

function formatUsage(u: Usage): string {
  return `in ${int(u.input_tokens)} · out ${int(u.output_tokens)} · cache write ${int(u.cache_creation_input_tokens)} · cache read ${int(u.cache_read_input_tokens)}`;
}

/** What a running turn does, for people: `Bash: npm test (12 s)`, or the bare activity name of older turns. */
export function describeActivity(
  t: { activity: string; activityLabel?: string; activitySince?: string },
  now: number = Date.now(),
): string {
  const what = t.activityLabel ?? t.activity;
  if (t.activitySince === undefined || t.activity === 'done') return what;
  const s = Math.max(0, Math.round((now - Date.parse(t.activitySince)) / 1000));
  return `${what} (${s < 120 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`})`;
}

/** What `status` adds to the session's report: the server and what the running turn waits for. */
export interface StatusExtras {
  /** The server this command reached: `agent-runner 0.1.0 (build …) at 127.0.0.1:7233 (background, pid 12)`. */
  server?: string;
  /** What the running turn waits for, as the Temporal server sees it (see `stallReasons`). */
  waiting?: string[];
}

/** The human-readable `agent-runner status` table. */
export function formatSessionStatus(
  r: SessionStatusReport,
  now: number = Date.now(),
  extras: StatusExtras = {},
): string {
  const s = r.session;
  const rows: Array<[string, string]> = [
    ['session', s.sessionId],
    [
      'workflow',
      `${r.workflowStatus}${s.busy ? ', running a turn' : ', idle'}${s.queued ? `, ${s.queued} queued` : ''}`,
    ],
    ['turns', `${r.turns}${s.busy ? ' (1 running)' : ''}`],
    ['cost', `${usd(s.totalCostUsd)}${s.costKnown ? '' : ' (some cost unknown)'} in finished turns`],
    ['usage', formatUsage(s.usage)],
    ['limits', `${formatLimits(s.limits)} (for new turns)`],
  ];
  if (s.budgetPoolId) rows.push(['budget pool', s.budgetPoolId]);
  if (r.turn) {
    const t = r.turn;
    rows.push(
      ['current turn', t.turnWorkflowId],
      ['  activity', describeActivity(t, now)],
      ...(extras.waiting ?? []).map((w): [string, string] => ['  waiting', w]),
      ['  model calls', String(t.numTurns)],
      ['  cost', usd(t.costUsd)],
      ['  usage', formatUsage(t.usage)],
      ['  limits', formatLimits(t.limits)],
    );
    if (t.pool) {
      rows.push([
        '  pool',
        `${t.pool.exhausted ? 'EXHAUSTED' : 'ok'} · limit ${usd(t.pool.limitUsd)}${t.pool.spentUsd !== undefined ? ` · spent ${usd(t.pool.spentUsd)}` : ''}`,
      ]);
    }
  } else if (s.lastTurnWorkflowId) {
    rows.push(['last turn', s.lastTurnWorkflowId]);
  }
  if (extras.server) rows.unshift(['server', extras.server]);
  const ws = r.turn?.workspace ?? s.workspace;
  if (ws) {
    rows.push(
      ['workspace', `${ws.host}:${ws.path}${ws.moves ? ` (moved ${ws.moves}x)` : ''}`],
      [
        '  last snapshot',
        ws.lastSnapshot
          ? `${ws.lastSnapshot.commit.slice(0, 12)} after ${ws.lastSnapshot.toolUseId} (${ws.lastSnapshot.bytes} bytes)`
          : `none (base ${ws.baseCommit.slice(0, 12)})`,
      ],
    );
  }
  rows.push(...taskRows(s.tasks ?? [], now));
  return kvTable(rows);
}

/**
 * `agent-runner status <session>`: the session's turn count, usage, cost and limits, and the
 * running turn's activity, model calls, cost and limits (`--json`: the raw report).
 */
export async function runStatus(config: Config, sessionId: string, flags: StatusFlags, io: ControlIo): Promise<number> {
  return withControlErrors(io, async () => {
    const rt = await openControlRuntime(config, 'status');
    try {
      let report: SessionStatusReport;
      try {
        report = await sessionStatus(rt.client, sessionId);
      } catch (err) {
        if (!(err instanceof NoWorkerAnsweredError)) throw err;
        // No worker answers the session's queries (its worker is gone): what the server knows.
        const view = await serverSideStatus(rt.client, sessionId, err);
        const extras: StatusExtras = { server: describeServer(config, rt), ...view.extras };
        io.stdout(
          flags.json ? JSON.stringify({ ...view.json, ...extras }) : kvTable([...view.rows, ...extrasRows(extras)]),
        );
        return 0;
      }
      const extras: StatusExtras = { server: describeServer(config, rt) };
      if (report.turn) {
        // The turn's own label says what it last started; the server says whether that still moves.
        const work = await pendingWork(rt.client, report.turn.turnWorkflowId).catch(() => null);
        if (work) extras.waiting = stallReasons(work, Date.now(), report.turn.activityLabel ?? report.turn.activity);
      }
      io.stdout(
        flags.json ? JSON.stringify({ ...report, ...extras }) : formatSessionStatus(report, Date.now(), extras),
      );
      return 0;
    } finally {
      await rt.close();
    }
  });
}

function extrasRows(extras: StatusExtras): Array<[string, string]> {
  return [
    ...(extras.server ? [['server', extras.server] as [string, string]] : []),
    ...(extras.waiting ?? []).map((w): [string, string] => ['  waiting', w]),
  ];
}

/**
 * The status of a session whose worker does not answer queries, from the server alone: the
 * session workflow's state, its running turn (a pending child), and what that turn waits for.
 */
async function serverSideStatus(
  client: Client,
  sessionId: string,
  err: NoWorkerAnsweredError,
): Promise<{ rows: Array<[string, string]>; json: Record<string, unknown>; extras: StatusExtras }> {
  const d = await client.workflow.getHandle(sessionWorkflowId(sessionId)).describe();
  const turnId = d.raw.pendingChildren?.[0]?.workflowId ?? null;
  const waiting = turnId
    ? stallReasons((await pendingWork(client, turnId).catch(() => null)) ?? { activities: [] })
    : [];
  const note = `no worker answered its queries within ${err.waitedMs / 1000} s (its worker is gone or busy)`;
  return {
    rows: [
      ['session', sessionId],
      ['workflow', `${d.status.name}: ${note}`],
      ...(turnId ? [['current turn', turnId] as [string, string]] : []),
    ],
    json: {
      sessionId,
      workflowStatus: d.status.name,
      noWorkerAnswered: true,
      turn: turnId ? { turnWorkflowId: turnId } : null,
    },
    extras: { waiting },
  };
}
