import type { Config } from '../../config';
import type { BudgetPoolRow } from '../../client/budget-pool';
import {
  BudgetPoolBusyError,
  BudgetPoolNotFoundError,
  budgetPoolState,
  closeBudgetPool,
  ensureBudgetPool,
  listBudgetPools,
} from '../../client/budget-pool';
import type { PoolStateView } from '../../workflows/messages';
import { retry } from '../../connection/retry';
import { budgetPoolWorkflowId } from '../../common/ids';
import type { ControlIo } from '../control';
import { int, kvTable, limitValue, openControlRuntime, usd } from '../control';
import { UsageError } from '../turn-options';
import { withControlErrors } from './control-errors';
import type { ServerModeFlags } from '../server-mode';
import { serverModeOptions } from '../server-mode';

/** Flags of `agent-runner pool create`. */
export interface PoolCreateFlags extends ServerModeFlags {
  maxBudgetUsd?: string;
  json?: boolean;
}

/** JSON form of a pool's state (`pool show --json`, `limits <pool> --json`). */
export function poolJson(s: PoolStateView): Record<string, unknown> {
  return {
    pool_id: s.poolId,
    workflow_id: budgetPoolWorkflowId(s.poolId),
    limit_usd: s.limitUsd,
    spent_usd: s.spentUsd,
    remaining_usd: Math.max(0, s.limitUsd - s.spentUsd),
    members: s.members,
    exhausted: s.exhausted,
    exhausted_at: s.exhaustedAt,
    reports: s.reports,
    runs: s.runs,
  };
}

/** The human-readable `agent-runner pool show` table. */
export function formatPool(s: PoolStateView): string {
  const pct = s.limitUsd > 0 ? ` (${Math.round((s.spentUsd / s.limitUsd) * 100)}%)` : '';
  return kvTable([
    ['pool', `${s.poolId} (workflow ${budgetPoolWorkflowId(s.poolId)})`],
    ['limit', usd(s.limitUsd)],
    ['spent', `${usd(s.spentUsd)}${pct}`],
    ['remaining', usd(Math.max(0, s.limitUsd - s.spentUsd))],
    ['status', s.exhausted ? `EXHAUSTED since ${s.exhaustedAt ?? '?'}` : 'open'],
    ['members', `${int(s.members)} running turn(s)`],
    ['reports', `${int(s.reports)} model calls counted (workflow run ${s.runs})`],
  ]);
}

/** A query right after `pool create` may find no worker ready yet: retry briefly (about 9 s). */
export function poolStateWithRetry(
  rtClient: Parameters<typeof budgetPoolState>[0],
  poolId: string,
): Promise<PoolStateView> {
  return retry(() => budgetPoolState(rtClient, poolId), {
    attempts: 9,
    delayMs: 100,
    maxDelayMs: 2000,
    retryIf: (e) => !(e instanceof BudgetPoolNotFoundError),
  });
}

/**
 * `agent-runner pool create <id> --max-budget-usd X`: starts a shared budget pool (no-op when it
 * is already running: its limit is then left as is; change it with `agent-runner limits`). With no
 * server running it starts the background server (as a run does), unless `--no-daemon`.
 */
export async function runPoolCreate(
  config: Config,
  poolId: string,
  flags: PoolCreateFlags,
  io: ControlIo,
): Promise<number> {
  const limit = limitValue('--max-budget-usd', flags.maxBudgetUsd, false);
  if (limit === undefined || limit === null) throw new UsageError('pool create needs --max-budget-usd <usd>');
  return withControlErrors(io, async () => {
    const mode = serverModeOptions(flags);
    const rt = mode.daemon
      ? await (
          await import('../../host/runtime')
        ).openRuntime({
          config,
          ...mode,
          worker: false,
          callsModel: false,
          quiet: true,
        })
      : await openControlRuntime(config, 'pool create');
    try {
      let pool;
      try {
        pool = await ensureBudgetPool(rt.client, { taskQueue: rt.taskQueue, poolId, limitUsd: limit });
      } catch (e) {
        if (e instanceof RangeError) throw new UsageError(e.message);
        throw e;
      }
      const state = await poolStateWithRetry(rt.client, pool.poolId);
      if (flags.json) {
        io.stdout(JSON.stringify({ created: pool.created, ...poolJson(state) }));
      } else if (pool.created) {
        io.stdout(`budget pool "${pool.poolId}" created: limit ${usd(state.limitUsd)} (workflow ${pool.workflowId})`);
        io.stdout(`run turns in it with: agent-runner -p --budget-pool ${pool.poolId} "…"`);
      } else {
        io.stdout(
          `budget pool "${pool.poolId}" already exists: limit ${usd(state.limitUsd)}, spent ${usd(state.spentUsd)} (unchanged; ` +
            `change the limit with: agent-runner limits ${pool.poolId} --pool --max-budget-usd <usd>)`,
        );
      }
      return 0;
    } finally {
      await rt.close();
    }
  });
}

/** `agent-runner pool show <id>`: limit, spend, members and status of a pool. */
export async function runPoolShow(
  config: Config,
  poolId: string,
  flags: { json?: boolean },
  io: ControlIo,
): Promise<number> {
  return withControlErrors(io, async () => {
    const rt = await openControlRuntime(config, 'pool show');
    try {
      const state = await budgetPoolState(rt.client, poolId);
      io.stdout(flags.json ? JSON.stringify(poolJson(state)) : formatPool(state));
      return 0;
    } finally {
      await rt.close();
    }
  });
}

/** `agent-runner pool list`: every budget pool, its status, limit, spend and members. */
export async function runPoolList(config: Config, flags: { json?: boolean }, io: ControlIo): Promise<number> {
  return withControlErrors(io, async () => {
    const rt = await openControlRuntime(config, 'pool list');
    try {
      const rows = await listBudgetPools(rt.client);
      if (flags.json) {
        for (const r of rows) {
          io.stdout(
            JSON.stringify({
              pool_id: r.poolId,
              status: r.status,
              limit_usd: r.limitUsd,
              spent_usd: r.spentUsd,
              members: r.members,
              start_time: r.startTime.toISOString(),
              close_time: r.closeTime ? r.closeTime.toISOString() : null,
            }),
          );
        }
      } else {
        io.stdout(formatPoolList(rows));
      }
      return 0;
    } finally {
      await rt.close();
    }
  });
}

/** The `agent-runner pool list` table. */
export function formatPoolList(rows: BudgetPoolRow[]): string {
  if (rows.length === 0)
    return 'no budget pools (create one with: agent-runner pool create <id> --max-budget-usd <usd>)';
  const header = ['POOL', 'STATUS', 'LIMIT', 'SPENT', 'MEMBERS', 'STARTED'];
  const body = rows.map((r) => [
    r.poolId,
    r.status,
    usd(r.limitUsd),
    usd(r.spentUsd),
    r.members === null ? '-' : String(r.members),
    r.startTime.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  ]);
  const all = [header, ...body];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  return all
    .map((row) =>
      row
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/**
 * `agent-runner pool close <id>`: closes a pool (its workflow completes with its final spend).
 * Refused (exit 1) while turns are in it, unless `--force`.
 */
export async function runPoolClose(
  config: Config,
  poolId: string,
  flags: { force?: boolean; json?: boolean },
  io: ControlIo,
): Promise<number> {
  return withControlErrors(io, async () => {
    const rt = await openControlRuntime(config, 'pool close');
    try {
      let state: PoolStateView;
      try {
        state = await closeBudgetPool(rt.client, poolId, { force: flags.force === true });
      } catch (e) {
        if (e instanceof BudgetPoolBusyError) {
          io.stderr(`agent-runner: ${e.message}`);
          return 1;
        }
        throw e;
      }
      io.stdout(
        flags.json
          ? JSON.stringify({ closed: true, ...poolJson(state) })
          : `budget pool "${state.poolId}" closed: spent ${usd(state.spentUsd)} of ${usd(state.limitUsd)}` +
              (state.members > 0 ? ` (${state.members} running turn(s) go on without it)` : ''),
      );
      return 0;
    } finally {
      await rt.close();
    }
  });
}
