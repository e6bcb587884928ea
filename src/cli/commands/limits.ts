import type { Config } from '../../config';
import { budgetPoolExists, budgetPoolState, setBudgetPoolLimit } from '../../client/budget-pool';
import { SessionNotFoundError, sessionStatus, setSessionLimits } from '../../client/session-control';
import type { ClientRuntime as Runtime } from '../../connection/connect';
import type { LimitPatch } from '../../workflows/messages';
import { budgetPoolWorkflowId, sessionWorkflowId } from '../../common/ids';
import { WorkflowNotFoundError } from '@temporalio/client';
import { EXIT } from '../output';
import type { ControlIo } from '../control';
import { limitValue, openControlRuntime } from '../control';
import { UsageError } from '../turn-options';
import { withControlErrors } from './control-errors';
import { formatPool, poolJson } from './pool';
import { formatLimits } from './status';

/** Flags of `agent-runner limits`. */
export interface LimitsFlags {
  maxBudgetUsd?: string;
  maxTurns?: string;
  taskBudget?: string;
  /** The target is a budget pool. */
  pool?: boolean;
  /** The target is a session. */
  session?: boolean;
  json?: boolean;
}

/** Workflow status of the session `id`, or null when there is no such session workflow. */
async function sessionWorkflowStatus(rt: Runtime, id: string): Promise<string | null> {
  try {
    return (await rt.client.workflow.getHandle(sessionWorkflowId(id)).describe()).status.name;
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return null;
    throw e;
  }
}

/**
 * `agent-runner limits <session|pool> [--max-budget-usd X] [--max-turns N] [--task-budget N]`:
 * shows or changes limits. For a session the change applies to its running turn (checked before
 * its next model call: lowered below the spend, the turn stops with `error_max_budget_usd`) and to
 * its later turns; `none` removes a limit. For a pool only `--max-budget-usd` applies: raising it
 * above the spend lets new work start again. The target is found as a running session first, then
 * as a pool; `--pool` / `--session` say which.
 */
export async function runLimits(config: Config, target: string, flags: LimitsFlags, io: ControlIo): Promise<number> {
  if (flags.pool && flags.session) throw new UsageError('limits: give at most one of --pool and --session');
  const patch: LimitPatch = {};
  const b = limitValue('--max-budget-usd', flags.maxBudgetUsd, false);
  const t = limitValue('--max-turns', flags.maxTurns, true);
  const k = limitValue('--task-budget', flags.taskBudget, true);
  if (b !== undefined) patch.maxBudgetUsd = b;
  if (t !== undefined) patch.maxTurns = t;
  if (k !== undefined) patch.taskBudget = k;
  return withControlErrors(io, async () => {
    const rt = await openControlRuntime(config, 'limits');
    try {
      let kind: 'session' | 'pool';
      if (flags.pool) kind = 'pool';
      else if (flags.session) kind = 'session';
      else {
        const status = await sessionWorkflowStatus(rt, target);
        if (status === 'RUNNING') kind = 'session';
        else if (await budgetPoolExists(rt.client, target)) kind = 'pool';
        else if (status !== null) throw new SessionNotFoundError(target, 'not_running');
        else {
          io.stderr(
            `agent-runner: no running session or budget pool "${target}" ` +
              `(looked for workflows ${sessionWorkflowId(target)} and ${budgetPoolWorkflowId(target)})`,
          );
          return EXIT.error;
        }
      }

      if (kind === 'pool') {
        if (patch.maxTurns !== undefined || patch.taskBudget !== undefined) {
          throw new UsageError('limits: a budget pool has only --max-budget-usd');
        }
        if (patch.maxBudgetUsd === null)
          throw new UsageError('limits: a budget pool needs a limit ("none" is not allowed)');
        if (patch.maxBudgetUsd !== undefined) await setBudgetPoolLimit(rt.client, target, patch.maxBudgetUsd);
        const state = await budgetPoolState(rt.client, target);
        io.stdout(flags.json ? JSON.stringify(poolJson(state)) : formatPool(state));
        return 0;
      }

      if (Object.keys(patch).length > 0) await setSessionLimits(rt.client, target, patch);
      const report = await sessionStatus(rt.client, target);
      if (flags.json) {
        io.stdout(
          JSON.stringify({
            session_id: target,
            limits: report.session.limits,
            turn: report.turn ? { turn_workflow_id: report.turn.turnWorkflowId, limits: report.turn.limits } : null,
          }),
        );
      } else {
        io.stdout(`session ${target}: ${formatLimits(report.session.limits)}`);
        if (report.turn) {
          io.stdout(
            `running turn ${report.turn.turnWorkflowId}: ${formatLimits(report.turn.limits)} ` +
              '(checked before its next model call)',
          );
        }
      }
      return 0;
    } finally {
      await rt.close();
    }
  });
}
