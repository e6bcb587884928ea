import { CancellationScope, condition, getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import type { Priority } from '@temporalio/common';
import type { CallModelSummary } from '../common/model';
import type { LeaseGrant, LeaseReport, RateHeaders } from '../common/rate-pool';
import type { RateSync, TurnOptions } from '../common/turn';
import { MAX_RATE_THROTTLES } from '../common/turn';
import { leaveRatePoolSignal, requestLeaseSignal } from './rate-pool-messages';

/** Longest wait for a grant before the turn goes on without its pool (ms): a pool that stopped answering. */
export const RATE_LEASE_TIMEOUT_MS = 15 * 60_000;
/** Output tokens a first lease expects (later ones expect what the last call produced). */
const FIRST_OUTPUT_ESTIMATE = 1024;
/** Input tokens a first lease expects (later ones expect the last call's prompt). */
const FIRST_INPUT_ESTIMATE = 2000;

/**
 * A turn's membership in a rate pool (`options.ratePoolId`). Before each model call it asks the
 * pool for a lease and waits for the grant, a workflow step, not an activity: the wait holds no
 * worker slot, burns no retry and survives any worker's death. The request carries the report of
 * the previous call (tokens billed, the response's rate headers, a 429). The turn leaves at its
 * end. A pool that cannot be signalled is left behind: the turn goes on without it. Without a
 * pool id every method is a no-op.
 *
 * History per call: one signal sent, one received (a few hundred bytes).
 */
export class RateMember {
  readonly sync: RateSync;
  private lastInput = FIRST_INPUT_ESTIMATE;
  private lastOutput = FIRST_OUTPUT_ESTIMATE;

  constructor(
    private readonly options: Pick<TurnOptions, 'ratePoolId' | 'ratePriority' | 'rateFairnessKey' | 'maxTokens'>,
    carried?: RateSync,
  ) {
    this.sync = { seq: -1, granted: -1, reachable: true, throttles: 0, ...(carried ?? {}) };
    if (carried?.report) {
      this.lastInput = carried.report.inputTokens || FIRST_INPUT_ESTIMATE;
      this.lastOutput = carried.report.outputTokens || FIRST_OUTPUT_ESTIMATE;
    }
  }

  /** True when the turn leases its model calls. */
  get active(): boolean {
    return this.options.ratePoolId !== undefined && this.sync.reachable;
  }

  /** Handler of the `rateLease` signal. */
  onGrant(grant: LeaseGrant): void {
    this.sync.granted = Math.max(this.sync.granted, grant.seq);
  }

  /**
   * Asks for a lease and waits for it. `run` wraps the wait (the turn's interruptible scope:
   * undefined = interrupted, and the turn stops).
   */
  async lease(run: (wait: () => Promise<boolean>) => Promise<boolean | undefined>): Promise<void> {
    const poolId = this.options.ratePoolId;
    if (!poolId || !this.sync.reachable) return;
    const seq = this.sync.seq + 1;
    const maxOut = this.options.maxTokens ?? Infinity;
    const report = this.sync.report;
    try {
      await CancellationScope.nonCancellable(() =>
        getExternalWorkflowHandle(poolId).signal(requestLeaseSignal, {
          memberWorkflowId: workflowInfo().workflowId,
          seq,
          ...(this.options.ratePriority !== undefined ? { priority: this.options.ratePriority } : {}),
          ...(this.options.rateFairnessKey !== undefined ? { fairnessKey: this.options.rateFairnessKey } : {}),
          inputTokens: this.lastInput,
          outputTokens: Math.min(maxOut, this.lastOutput),
          ...(report ? { report } : {}),
        }),
      );
    } catch {
      this.sync.reachable = false;
      return;
    }
    this.sync.seq = seq;
    delete this.sync.report;
    const granted = await run(() => condition(() => this.sync.granted >= seq, RATE_LEASE_TIMEOUT_MS));
    if (granted === false) this.sync.reachable = false; // the pool stopped answering: go on without it
  }

  /** Notes a completed call: its report goes with the next request. */
  called(call: Pick<CallModelSummary, 'usage' | 'rate' | 'replayed'>): void {
    if (!this.active || this.sync.seq < 0) return;
    const u = call.usage;
    const input = u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
    if (input > 0) this.lastInput = input;
    if (u.output_tokens > 0) this.lastOutput = u.output_tokens;
    this.sync.throttles = 0;
    this.sync.report = {
      seq: this.sync.seq,
      inputTokens: call.replayed ? 0 : input,
      outputTokens: call.replayed ? 0 : u.output_tokens,
      ...(call.rate ? { rate: call.rate } : {}),
    };
  }

  /**
   * Notes a 429 of a leased call. True when the turn should lease again and retry (the pool
   * pauses for the `retry-after` and shrinks); false after {@link MAX_RATE_THROTTLES} in a row.
   */
  throttled(rate: RateHeaders | undefined): boolean {
    if (!this.active || this.sync.seq < 0) return false;
    this.sync.throttles++;
    const report: LeaseReport = { seq: this.sync.seq, inputTokens: 0, outputTokens: 0, throttled: true };
    this.sync.report = rate ? { ...report, rate } : report;
    return this.sync.throttles <= MAX_RATE_THROTTLES;
  }

  /** Leaves the pool at the end of the turn (not on continue-as-new), with the last report. */
  async leave(): Promise<void> {
    const poolId = this.options.ratePoolId;
    if (!poolId || !this.sync.reachable || this.sync.seq < 0) return;
    const report = this.sync.report;
    await CancellationScope.nonCancellable(() =>
      getExternalWorkflowHandle(poolId)
        .signal(leaveRatePoolSignal, { memberWorkflowId: workflowInfo().workflowId, ...(report ? { report } : {}) })
        .catch(() => undefined),
    );
  }
}

/**
 * The Temporal task priority of a rate pool member's model calls: its `ratePriority` as the
 * priority key, its `rateFairnessKey` as the fairness key; undefined without a pool or either.
 */
export function ratePriorityOf(
  options: Pick<TurnOptions, 'ratePoolId' | 'ratePriority' | 'rateFairnessKey'>,
): Priority | undefined {
  if (options.ratePoolId === undefined) return undefined;
  if (options.ratePriority === undefined && options.rateFairnessKey === undefined) return undefined;
  return {
    ...(options.ratePriority !== undefined ? { priorityKey: options.ratePriority } : {}),
    ...(options.rateFairnessKey !== undefined ? { fairnessKey: options.rateFairnessKey } : {}),
  };
}
