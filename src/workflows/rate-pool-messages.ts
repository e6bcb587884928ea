import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { LeaseGrant, LeaseRequest, LeaveRatePool, RateLimits, RatePoolView } from '../common/rate-pool';

/** Member → rate pool: capacity for one model call (with the report of the member's previous call). */
export const requestLeaseSignal = defineSignal<[LeaseRequest]>('requestLease');
/** Member → rate pool: the turn ended (with its last report). */
export const leaveRatePoolSignal = defineSignal<[LeaveRatePool]>('leaveRatePool');
/** Rate pool → member: lease `seq` is granted; the member makes its call. */
export const rateLeaseSignal = defineSignal<[LeaseGrant]>('rateLease');
/** Operator → rate pool: new configured limits (absent ones are learned again from headers). */
export const setRateLimitsSignal = defineSignal<[RateLimits]>('setRateLimits');
/** The pool's limits, queue and counters. */
export const ratePoolStateQuery = defineQuery<RatePoolView>('ratePoolState');
/** Completes the pool (answered with its final state); waiting members go on without it. */
export const closeRatePoolUpdate = defineUpdate<RatePoolView, []>('closeRatePool');
