import type { Config } from '../../config';
import { sessionStatus } from '../../client/session-control';
import type { SessionStatusReport } from '../../client/session-control';
import type { TurnLimits } from '../../common/limits';
import type { Usage } from '../../common/usage';
import type { ControlIo } from '../control';
import { int, kvTable, openControlRuntime, usd } from '../control';
import { withControlErrors } from './control-errors';

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

/** The human-readable `agent-runner status` table. */
export function formatSessionStatus(r: SessionStatusReport, now: number = Date.now()): string {
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
      const report = await sessionStatus(rt.client, sessionId);
      io.stdout(flags.json ? JSON.stringify(report) : formatSessionStatus(report));
      return 0;
    } finally {
      await rt.close();
    }
  });
}
