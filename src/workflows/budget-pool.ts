import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { BudgetPoolInput } from '../common/budget-pool';
import { DEFAULT_POOL_SIGNALS_PER_RUN } from '../common/budget-pool';
import { PoolLedger, newPoolSnapshot } from '../engine/budget-pool';
import type { PoolStatus } from '../engine/budget-pool';
import {
  closePoolUpdate,
  joinPoolSignal,
  leavePoolSignal,
  poolStateQuery,
  poolStatusSignal,
  reportSpendSignal,
  setPoolLimitSignal,
} from './messages';
import type { PoolStateView } from './messages';

/** Status signals sent per workflow task at most (a broadcast to thousands of members is split). */
const SEND_CHUNK = 500;

/**
 * A shared USD budget for many turns (e.g. every turn of a batch). Member turns announce
 * themselves (`joinPool`), report the cost of each model call (`reportSpend`) and leave at turn
 * end (`leavePool`). When the total reaches the limit the pool tells every member (`poolStatus`
 * with `exhausted: true`) and each member stops at its next limit check with
 * `error_max_budget_usd`; `setPoolLimit` above the spend refills it (`exhausted: false`).
 *
 * Members that number their messages (`seq`) get an acknowledgement (`poolStatus.ack`) for each
 * and wait for it before their next model call, so a member starts at most one model call after
 * the pool was exhausted, whatever the signal latency.
 *
 * Query: `poolState`. Runs until closed (`closePool`, answered and returned with the final state)
 * or terminated; continues as new after `maxSignalsPerRun` signals or when the server suggests
 * it, carrying the compact member map (workflow id → USD).
 */
export async function budgetPoolWorkflow(input: BudgetPoolInput): Promise<PoolStateView> {
  const ledger = new PoolLedger(input.state ?? newPoolSnapshot(input.limitUsd));
  const maxSignals = Math.max(1, input.maxSignalsPerRun ?? DEFAULT_POOL_SIGNALS_PER_RUN);
  const runs = (input.runs ?? 0) + 1;
  let signals = 0;
  /** Status messages to send: member id → highest ack owed (null: status only). */
  const outbox = new Map<string, number | null>(Object.entries(input.pending ?? {}));

  const enqueue = (id: string, ack: number | null): void => {
    const prev = outbox.get(id);
    outbox.set(id, prev === undefined || prev === null ? ack : ack === null ? prev : Math.max(prev, ack));
  };
  const broadcast = (): void => {
    for (const id of ledger.memberIds()) enqueue(id, null);
  };

  setHandler(joinPoolSignal, (m) => {
    signals++;
    ledger.join(m.memberWorkflowId);
    if (m.seq !== undefined) enqueue(m.memberWorkflowId, m.seq);
    else if (ledger.exhausted) enqueue(m.memberWorkflowId, null);
  });
  setHandler(reportSpendSignal, (m) => {
    signals++;
    if (ledger.spend(m.memberWorkflowId, m.usd, Date.now()) !== null) broadcast();
    if (m.seq !== undefined) enqueue(m.memberWorkflowId, m.seq);
  });
  setHandler(leavePoolSignal, (m) => {
    signals++;
    ledger.leave(m.memberWorkflowId);
    outbox.delete(m.memberWorkflowId);
  });
  setHandler(setPoolLimitSignal, ({ limitUsd }) => {
    signals++;
    if (typeof limitUsd !== 'number' || !Number.isFinite(limitUsd) || limitUsd < 0) return;
    if (ledger.setLimit(limitUsd, Date.now()) !== null) broadcast();
  });
  let closing = false;
  setHandler(
    closePoolUpdate,
    (): PoolStateView => {
      closing = true;
      return view();
    },
    {
      validator: ({ force }) => {
        if (!force && ledger.members > 0) {
          throw new Error(
            `${ledger.members} running turn(s) are in the pool; close it with force to let them go on without it`,
          );
        }
      },
    },
  );
  setHandler(poolStateQuery, (): PoolStateView => view());
  function view(): PoolStateView {
    const s = ledger.snapshot();
    return {
      poolId: input.poolId,
      limitUsd: s.limitUsd,
      spentUsd: s.spentUsd,
      members: ledger.members,
      exhausted: s.exhausted,
      exhaustedAt: s.exhaustedAtMs === null ? null : new Date(s.exhaustedAtMs).toISOString(),
      reports: s.reports,
      runs,
      signalsThisRun: signals,
    };
  }

  async function send(id: string, status: PoolStatus): Promise<void> {
    try {
      await getExternalWorkflowHandle(id).signal(poolStatusSignal, status);
    } catch {
      // The member's turn is gone (ended without leaving, or terminated): forget it.
      ledger.leave(id);
    }
  }

  for (;;) {
    await condition(() => outbox.size > 0 || closing || signals >= maxSignals || workflowInfo().continueAsNewSuggested);
    if (closing && outbox.size === 0) {
      await condition(allHandlersFinished);
      return view();
    }
    if (!closing && (signals >= maxSignals || workflowInfo().continueAsNewSuggested)) {
      // Handlers are synchronous, so every received signal is already counted in the ledger.
      const pending: Record<string, number | null> = {};
      for (const [id, ack] of outbox) pending[id] = ack;
      await continueAsNew<typeof budgetPoolWorkflow>({ ...input, state: ledger.snapshot(), pending, runs });
    }
    const batch = [...outbox.entries()].slice(0, SEND_CHUNK);
    for (const [id] of batch) outbox.delete(id);
    await Promise.all(batch.map(([id, ack]) => send(id, ledger.status(ack ?? undefined))));
  }
}
