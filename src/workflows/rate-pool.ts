import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { LeaseGrant, RatePoolInput, RatePoolView } from '../common/rate-pool';
import { DEFAULT_RATE_POOL_SIGNALS_PER_RUN } from '../common/rate-pool';
import { RateLedger, newRatePoolSnapshot } from '../engine/rate-pool';
import {
  closeRatePoolUpdate,
  leaveRatePoolSignal,
  ratePoolStateQuery,
  rateLeaseSignal,
  requestLeaseSignal,
  setRateLimitsSignal,
} from './rate-pool-messages';

/** Grant signals sent per workflow task at most. */
const SEND_CHUNK = 200;

/**
 * A shared rate limit for many turns, beside budget pools and like them: requests, input tokens
 * and output tokens per minute for every turn that names the pool (`options.ratePoolId`), on any
 * host, in any batch. Before each model call a member asks for a lease (`requestLease`, carrying
 * the report of its previous call: tokens billed, the response's `anthropic-ratelimit-*` headers,
 * a 429) and waits for the grant (`rateLease`); it leaves at turn end (`leaveRatePool`). The
 * pool's books are a {@link RateLedger}: token buckets learned from headers, shrunk by 429s,
 * leases granted by priority and fairness key. A wait for capacity is a durable timer here.
 *
 * Query: `ratePoolState`. Runs until closed (`closeRatePool`) or terminated; continues as new
 * after `maxSignalsPerRun` signals or when the server suggests it, carrying the ledger.
 */
export async function ratePoolWorkflow(input: RatePoolInput): Promise<RatePoolView> {
  const ledger = new RateLedger(input.state ?? newRatePoolSnapshot(input.limits ?? {}, Date.now(), input.periodMs));
  const outbox: Array<[string, LeaseGrant]> = [...(input.pending ?? [])];
  const runs = (input.runs ?? 0) + 1;
  const maxSignals = Math.max(1, input.maxSignalsPerRun ?? DEFAULT_RATE_POOL_SIGNALS_PER_RUN);
  let signals = 0;
  let changed = true;
  let closing = false;

  const view = (): RatePoolView => ratePoolView(input.poolId, ledger, runs, Date.now());
  setHandler(requestLeaseSignal, (r) => {
    signals++;
    changed = true;
    ledger.request(r, Date.now());
  });
  setHandler(leaveRatePoolSignal, (m) => {
    signals++;
    changed = true;
    ledger.leave(m.memberWorkflowId, m.report, Date.now());
  });
  setHandler(setRateLimitsSignal, (limits) => {
    signals++;
    changed = true;
    ledger.setLimits(limits, Date.now());
  });
  setHandler(ratePoolStateQuery, view);
  setHandler(closeRatePoolUpdate, () => {
    closing = true;
    return view();
  });

  const send = async (member: string, grant: LeaseGrant): Promise<void> => {
    try {
      await getExternalWorkflowHandle(member).signal(rateLeaseSignal, grant);
    } catch {
      ledger.forget(member); // the member's turn is gone
    }
  };

  for (;;) {
    if (closing) {
      await condition(allHandlersFinished);
      return view();
    }
    if (!changed && outbox.length === 0) {
      const wait = ledger.nextGrantInMs(Date.now());
      const due = signals >= maxSignals || workflowInfo().continueAsNewSuggested;
      if (!due) {
        // A timer only while a lease waits for capacity; otherwise the next signal wakes the pool.
        if (wait === null) await condition(() => changed || closing);
        else await condition(() => changed || closing, Math.max(1, wait));
      }
    }
    changed = false;
    if (closing) continue;
    outbox.push(...ledger.grants(Date.now()));
    if (outbox.length === 0 && (signals >= maxSignals || workflowInfo().continueAsNewSuggested)) {
      ledger.compact();
      await condition(allHandlersFinished);
      await continueAsNew<typeof ratePoolWorkflow>({ ...input, state: ledger.snapshot(), pending: [], runs });
    }
    await Promise.all(outbox.splice(0, SEND_CHUNK).map(([member, grant]) => send(member, grant)));
  }
}

/** The `ratePoolState` query's answer. */
function ratePoolView(poolId: string, ledger: RateLedger, runs: number, nowMs: number): RatePoolView {
  const s = ledger.snapshot();
  return {
    poolId,
    requestsPerMinute: ledger.effectiveLimit('requests'),
    inputTokensPerMinute: ledger.effectiveLimit('inputTokens'),
    outputTokensPerMinute: ledger.effectiveLimit('outputTokens'),
    factor: s.factor,
    waiting: ledger.waiting,
    outstanding: ledger.outstanding,
    granted: s.granted,
    throttled: s.throttled,
    pausedUntil: s.pausedUntilMs > nowMs ? new Date(s.pausedUntilMs).toISOString() : null,
    runs,
  };
}
