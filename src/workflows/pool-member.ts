import { CancellationScope, condition, getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import type { TurnCarry } from '../common/turn';
import { joinPoolSignal, leavePoolSignal, reportSpendSignal } from './messages';
import type { PoolStatusMessage } from './messages';

/** How long a pool member waits for the pool to acknowledge its last report before the next model call (ms). */
export const POOL_ACK_TIMEOUT_MS = 30_000;

/** Pool protocol counters: last report number sent, highest acknowledged, newest status revision seen. */
export type PoolSync = NonNullable<TurnCarry['poolSync']>;

/**
 * A turn's membership in a budget pool (`options.budgetPoolId`): joins at start, reports the
 * cost of every model call with a sequence number, waits for the pool to acknowledge before the
 * next call (so a member starts at most one call after the pool is exhausted), and leaves at the
 * end. Messages to the pool are not cancellable: a cancelled turn still reports what it spent. A
 * pool that cannot be reached stops being told anything; the turn's own limits still apply.
 * Without a pool id every method is a no-op.
 */
export class PoolMember {
  /** Latest pool status received (null before the first). */
  status: TurnCarry['pool'];
  readonly sync: PoolSync;

  constructor(
    readonly poolId: string | undefined,
    carried?: Pick<TurnCarry, 'pool' | 'poolSync'>,
  ) {
    this.status = carried?.pool ?? null;
    this.sync = { seq: -1, ack: -1, rev: -1, reachable: true, ...(carried?.poolSync ?? {}) };
  }

  /** Handler of the `poolStatus` signal: records acknowledgements and the newest status. */
  onStatus(status: PoolStatusMessage): void {
    if (typeof status.ack === 'number') this.sync.ack = Math.max(this.sync.ack, status.ack);
    // Statuses may arrive out of order: keep the newest revision (older pools send none).
    if (status.rev === undefined || status.rev >= this.sync.rev) {
      if (status.rev !== undefined) this.sync.rev = status.rev;
      this.status = {
        exhausted: status.exhausted,
        limitUsd: status.limitUsd,
        ...(status.spentUsd !== undefined ? { spentUsd: status.spentUsd } : {}),
      };
    }
  }

  /** Announces membership; an exhausted pool answers at once, so the turn stops before spending. */
  async join(): Promise<void> {
    await this.tell((poolId, seq) =>
      getExternalWorkflowHandle(poolId).signal(joinPoolSignal, { memberWorkflowId: workflowInfo().workflowId, seq }),
    );
  }

  /** Reports the cost of one model call (USD). */
  async reportSpend(usd: number): Promise<void> {
    await this.tell((poolId, seq) =>
      getExternalWorkflowHandle(poolId).signal(reportSpendSignal, {
        memberWorkflowId: workflowInfo().workflowId,
        usd,
        seq,
      }),
    );
  }

  /** True while a report has not been acknowledged. */
  awaitingAck(): boolean {
    return this.poolId !== undefined && this.sync.reachable && this.sync.ack < this.sync.seq;
  }

  /**
   * Waits until the pool has counted everything reported, at most {@link POOL_ACK_TIMEOUT_MS}.
   * `run` wraps the wait (the turn passes its interruptible scope; undefined = interrupted).
   */
  async awaitAck(run: (wait: () => Promise<boolean>) => Promise<boolean | undefined>): Promise<void> {
    if (!this.awaitingAck()) return;
    const answered = await run(() => condition(() => this.sync.ack >= this.sync.seq, POOL_ACK_TIMEOUT_MS));
    if (answered === false) this.sync.ack = this.sync.seq; // do not wait for this report again
  }

  /** Leaves the pool at the end of the turn (not on continue-as-new: the next run is still a member). */
  async leave(): Promise<void> {
    const poolId = this.poolId;
    if (!poolId) return;
    await CancellationScope.nonCancellable(() =>
      getExternalWorkflowHandle(poolId)
        .signal(leavePoolSignal, { memberWorkflowId: workflowInfo().workflowId })
        .catch(() => undefined),
    );
  }

  private async tell(send: (poolId: string, seq: number) => Promise<void>): Promise<void> {
    const poolId = this.poolId;
    if (!poolId || !this.sync.reachable) return;
    const seq = this.sync.seq + 1;
    try {
      await CancellationScope.nonCancellable(() => send(poolId, seq));
      this.sync.seq = seq;
    } catch {
      this.sync.reachable = false;
    }
  }
}
