/**
 * Bookkeeping of a shared budget pool (`budgetPoolWorkflow`): a USD limit for many member turns.
 * Pure and deterministic; the workflow owns one {@link PoolLedger} and turns its answers into
 * signals. Member state is compact (workflow id → USD spent) so that thousands of members fit
 * in the state carried across continue-as-new.
 */
import type { PoolSnapshot } from '../common/budget-pool';
import { POOL_STATE_VERSION } from '../common/budget-pool';

/** The status a member is told (signal `poolStatus`). */
export interface PoolStatus {
  exhausted: boolean;
  /** USD. */
  limitUsd: number;
  /** USD spent by the whole pool when the status was sent. */
  spentUsd: number;
  /** Status revision: a member keeps the status with the highest `rev`. */
  rev: number;
  /** Highest report sequence number of this member the pool has counted (absent: not an ack). */
  ack?: number;
}

/** A change every member must hear about. */
export type PoolTransition = 'exhausted' | 'refilled' | null;

/** A new, empty pool snapshot. */
export function newPoolSnapshot(limitUsd: number): PoolSnapshot {
  return {
    v: POOL_STATE_VERSION,
    limitUsd,
    spentUsd: 0,
    members: {},
    exhausted: limitUsd <= 0,
    rev: 0,
    exhaustedAtMs: null,
    reports: 0,
  };
}

/**
 * The state of one pool. Methods mutate it in place (copying a map of thousands of members on
 * every signal would be quadratic) and return what members must be told.
 */
export class PoolLedger {
  private s: PoolSnapshot;
  private memberCount: number;

  constructor(snapshot: PoolSnapshot) {
    this.s = { ...snapshot, members: { ...snapshot.members } };
    this.memberCount = Object.keys(this.s.members).length;
  }

  /** A copy-free view for continue-as-new and queries (do not mutate). */
  snapshot(): PoolSnapshot {
    return this.s;
  }

  /** True while the spend is at or above the limit. */
  get exhausted(): boolean {
    return this.s.exhausted;
  }

  /** Number of current members. */
  get members(): number {
    return this.memberCount;
  }

  /** Workflow ids of the current members. */
  memberIds(): string[] {
    return Object.keys(this.s.members);
  }

  /** Whether `id` (a turn workflow id) is a current member. */
  isMember(id: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.s.members, id);
  }

  /** The status to send now (with `ack` when given). */
  status(ack?: number): PoolStatus {
    return {
      exhausted: this.s.exhausted,
      limitUsd: this.s.limitUsd,
      spentUsd: this.s.spentUsd,
      rev: this.s.rev,
      ...(ack !== undefined ? { ack } : {}),
    };
  }

  /** Adds a member (no-op when it is one already). */
  join(id: string): void {
    if (this.isMember(id)) return;
    this.s.members[id] = 0;
    this.memberCount++;
  }

  /** Removes a member; its spend stays in the pool total. */
  leave(id: string): void {
    if (!this.isMember(id)) return;
    delete this.s.members[id];
    this.memberCount--;
  }

  /**
   * Counts `usd` spent by member `id` (joining it if needed).
   * @param nowMs workflow time, recorded when this report exhausts the pool
   */
  spend(id: string, usd: number, nowMs: number): PoolTransition {
    this.join(id);
    const amount = Number.isFinite(usd) && usd > 0 ? usd : 0;
    this.s.members[id] = (this.s.members[id] ?? 0) + amount;
    this.s.spentUsd += amount;
    this.s.reports++;
    return this.recompute(nowMs);
  }

  /** Sets the limit (USD); raising it above the spend lets members start new work again. */
  setLimit(limitUsd: number, nowMs: number): PoolTransition {
    this.s.limitUsd = limitUsd;
    return this.recompute(nowMs);
  }

  private recompute(nowMs: number): PoolTransition {
    const exhausted = this.s.spentUsd >= this.s.limitUsd;
    if (exhausted === this.s.exhausted) return null;
    this.s.exhausted = exhausted;
    this.s.rev++;
    if (exhausted) {
      this.s.exhaustedAtMs = nowMs;
      return 'exhausted';
    }
    return 'refilled';
  }
}
