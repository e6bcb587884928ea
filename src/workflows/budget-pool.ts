import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  setHandler,
  setWorkflowOptions,
  workflowInfo,
} from '@temporalio/workflow';
import type { BudgetPoolInput } from '../common/budget-pool';
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
import { PoolState } from './budget-pool-state';

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
  return new BudgetPool(input).run();
}
// Under Worker Versioning, a pool moves to each new build (the other workflows stay pinned): it
// lives as long as its batch or its owner keeps it open, longer than any release's drain, and
// its few commands (signals out, continue-as-new) change behind patches like any workflow's.
// Only on a versioned worker: the server refuses the task completion of an unversioned worker
// that names a behaviour ("versioning behavior cannot be specified without deployment options
// being set with versioned mode"), and the pool would never run (docs/deploy.md, "Releasing a new build").
setWorkflowOptions(
  () => (workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: 'AUTO_UPGRADE' } : {}),
  budgetPoolWorkflow,
);

/** A running pool: its state ({@link PoolState}), the handlers of its protocol, the loop that sends what members are owed. */
class BudgetPool {
  private readonly state: PoolState;

  constructor(private readonly input: BudgetPoolInput) {
    this.state = new PoolState(input);
    const state = this.state;
    setHandler(joinPoolSignal, (m) => state.join(m));
    setHandler(reportSpendSignal, (m) => state.spend(m, Date.now()));
    setHandler(leavePoolSignal, (m) => state.leave(m));
    setHandler(setPoolLimitSignal, ({ limitUsd }) => state.setLimit(limitUsd, Date.now()));
    setHandler(
      closePoolUpdate,
      (): PoolStateView => {
        state.close();
        return state.view();
      },
      { validator: ({ force }) => state.checkClose(force) },
    );
    setHandler(poolStateQuery, (): PoolStateView => state.view());
  }

  /** Sends what members are owed, until closed; continues as new when due. */
  async run(): Promise<PoolStateView> {
    const suggested = (): boolean => workflowInfo().continueAsNewSuggested;
    for (;;) {
      await condition(() => this.state.hasWork(suggested()));
      if (this.state.closed) {
        await condition(allHandlersFinished);
        return this.state.view();
      }
      if (this.state.continueAsNewDue(suggested())) {
        await continueAsNew<typeof budgetPoolWorkflow>({ ...this.input, ...this.state.carry() });
      }
      await Promise.all(this.state.takeMessages(SEND_CHUNK).map(([id, status]) => this.send(id, status)));
    }
  }

  private async send(id: string, status: PoolStatus): Promise<void> {
    try {
      await getExternalWorkflowHandle(id).signal(poolStatusSignal, status);
    } catch {
      // The member's turn is gone (ended without leaving, or terminated): forget it.
      this.state.forget(id);
    }
  }
}
