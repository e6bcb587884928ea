import type { BudgetPoolInput } from '../common/budget-pool';
import { DEFAULT_POOL_SIGNALS_PER_RUN } from '../common/budget-pool';
import { PoolLedger, newPoolSnapshot } from '../engine/budget-pool';
import type { PoolStatus } from '../engine/budget-pool';
import type { PoolMemberMessage, PoolStateView } from './messages';

/** What continue-as-new carries of a pool: the ledger's snapshot, the messages owed, the run count. */
export type PoolCarry = Required<Pick<BudgetPoolInput, 'state' | 'pending' | 'runs'>>;

/**
 * The state of one budget pool run, as one object: the pool's books ({@link PoolLedger}: limit,
 * spend, members), the status messages owed to members (member id → highest ack owed, null for
 * a status only), the signals handled this run, and whether the pool is closing. One method per
 * signal of the pool protocol; {@link carry} is what continue-as-new carries, whole.
 *
 * Deterministic: handlers pass workflow time (`nowMs`) in.
 */
export class PoolState {
  private readonly ledger: PoolLedger;
  private readonly outbox: Map<string, number | null>;
  private readonly maxSignals: number;
  private signals = 0;
  private closing = false;
  /** This run's number (1 for a fresh pool). */
  readonly runs: number;

  constructor(private readonly input: BudgetPoolInput) {
    this.ledger = new PoolLedger(input.state ?? newPoolSnapshot(input.limitUsd));
    this.maxSignals = Math.max(1, input.maxSignalsPerRun ?? DEFAULT_POOL_SIGNALS_PER_RUN);
    this.runs = (input.runs ?? 0) + 1;
    this.outbox = new Map(Object.entries(input.pending ?? {}));
  }

  /** `joinPool`: count the member in; it is answered (its ack, or the status of an exhausted pool). */
  join(m: PoolMemberMessage): void {
    this.signals++;
    this.ledger.join(m.memberWorkflowId);
    if (m.seq !== undefined) this.enqueue(m.memberWorkflowId, m.seq);
    else if (this.ledger.exhausted) this.enqueue(m.memberWorkflowId, null);
  }

  /** `reportSpend` (USD): counted; every member hears of an exhaustion, the reporter gets its ack. */
  spend(m: PoolMemberMessage & { usd: number }, nowMs: number): void {
    this.signals++;
    if (this.ledger.spend(m.memberWorkflowId, m.usd, nowMs) !== null) this.broadcast();
    if (m.seq !== undefined) this.enqueue(m.memberWorkflowId, m.seq);
  }

  /** `leavePool`: the member is told nothing more (its spend stays in the total). */
  leave(m: PoolMemberMessage): void {
    this.signals++;
    this.ledger.leave(m.memberWorkflowId);
    this.outbox.delete(m.memberWorkflowId);
  }

  /** `setPoolLimit` (USD; an invalid amount is ignored): every member hears of a change of state. */
  setLimit(limitUsd: number, nowMs: number): void {
    this.signals++;
    if (typeof limitUsd !== 'number' || !Number.isFinite(limitUsd) || limitUsd < 0) return;
    if (this.ledger.setLimit(limitUsd, nowMs) !== null) this.broadcast();
  }

  /**
   * The `closePool` validator.
   * @throws Error while turns are in the pool, unless `force`
   */
  checkClose(force: boolean | undefined): void {
    if (!force && this.ledger.members > 0) {
      throw new Error(
        `${this.ledger.members} running turn(s) are in the pool; close it with force to let them go on without it`,
      );
    }
  }

  /** `closePool`: the pool completes once the messages owed are sent. */
  close(): void {
    this.closing = true;
  }

  /** True when the run has something to do: messages to send, closing, or continue-as-new due. */
  hasWork(continueAsNewSuggested: boolean): boolean {
    return this.outbox.size > 0 || this.closing || this.signals >= this.maxSignals || continueAsNewSuggested;
  }

  /** True once closing with nothing left to send: the workflow completes. */
  get closed(): boolean {
    return this.closing && this.outbox.size === 0;
  }

  /** True when this run should continue as new (not while closing). */
  continueAsNewDue(continueAsNewSuggested: boolean): boolean {
    return !this.closing && (this.signals >= this.maxSignals || continueAsNewSuggested);
  }

  /** Takes up to `max` messages owed, each with the status to send now. */
  takeMessages(max: number): Array<[memberId: string, status: PoolStatus]> {
    const batch = [...this.outbox.entries()].slice(0, max);
    for (const [id] of batch) this.outbox.delete(id);
    return batch.map(([id, ack]) => [id, this.ledger.status(ack ?? undefined)]);
  }

  /** A member that cannot be told (its turn is gone: ended without leaving, or terminated): forget it. */
  forget(memberId: string): void {
    this.ledger.leave(memberId);
  }

  /** The `poolState` query's answer (also the workflow's result). */
  view(): PoolStateView {
    const s = this.ledger.snapshot();
    return {
      poolId: this.input.poolId,
      limitUsd: s.limitUsd,
      spentUsd: s.spentUsd,
      members: this.ledger.members,
      exhausted: s.exhausted,
      exhaustedAt: s.exhaustedAtMs === null ? null : new Date(s.exhaustedAtMs).toISOString(),
      reports: s.reports,
      runs: this.runs,
      signalsThisRun: this.signals,
    };
  }

  /** What the next run carries. Handlers are synchronous, so every signal received is counted. */
  carry(): PoolCarry {
    const pending: Record<string, number | null> = {};
    for (const [id, ack] of this.outbox) pending[id] = ack;
    return { state: this.ledger.snapshot(), pending, runs: this.runs };
  }

  private enqueue(id: string, ack: number | null): void {
    const prev = this.outbox.get(id);
    this.outbox.set(id, prev === undefined || prev === null ? ack : ack === null ? prev : Math.max(prev, ack));
  }

  private broadcast(): void {
    for (const id of this.ledger.memberIds()) this.enqueue(id, null);
  }
}
