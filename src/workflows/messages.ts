import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { SessionState, SubmitRequest, SubmitResponse } from '../common/session';
import type { TurnProgress } from '../common/turn';
import type { TurnLimits } from '../engine/limits';

/** A `setLimits` patch: a number sets a limit, `null` removes it, absent keeps it. */
export type LimitPatch = { [K in keyof TurnLimits]?: number | null };

/** Update on a session: start one turn (`submitMessage`); answers once the turn has started. */
export const submitMessageUpdate = defineUpdate<SubmitResponse, [SubmitRequest]>('submitMessage');
/** Query on a session: its state. */
export const sessionStateQuery = defineQuery<SessionState & { busy: boolean; currentTurnWorkflowId: string | null }>(
  'sessionState',
);
/** Signal to a session: finish once idle (resume rebuilds it from the store). */
export const endSessionSignal = defineSignal('endSession');

/** Query on a turn: progress for streaming clients and `agent-runner status`. */
export const turnProgressQuery = defineQuery<TurnProgress>('progress');
/** Signal to a turn (or a session, which forwards it): change limits. */
export const setLimitsSignal = defineSignal<[LimitPatch]>('setLimits');
/** Signal to a turn (or a session, which forwards it): stop cleanly. */
export const interruptSignal = defineSignal<[string?]>('interrupt');
/** Signal from a budget pool to a member turn: the pool is exhausted (or refilled). */
export const poolStatusSignal = defineSignal<[{ exhausted: boolean; limitUsd: number }]>('poolStatus');

/** Signal from a member turn to its budget pool: spend of one model call (USD). */
export const reportSpendSignal = defineSignal<[{ memberWorkflowId: string; usd: number }]>('reportSpend');
