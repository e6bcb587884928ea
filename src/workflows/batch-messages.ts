import { defineSignal } from '@temporalio/workflow';
import type { BatchRequestOutcome, BatchRequestRef, BatchSpend } from '../common/batch';
import { BATCH_SPEND_SIGNAL } from '../common/batch';

/** A turn's model call for the collector to put in a batch (sent by signal-with-start). */
export const batchRequestSignal = defineSignal<[BatchRequestRef]>('batchRequest');
/** The collector's answer to a turn: its request's result (the response is in the store). */
export const batchResultSignal = defineSignal<[BatchRequestOutcome]>('batchResult');
/**
 * To a session, from `storeMessageBatchResults`: a batch's response no turn counts (its turn had
 * ended, or another writer answered the call first). The session adds it to its totals once per
 * `customId` and reports it to its budget pool.
 */
export const batchSpendSignal = defineSignal<[BatchSpend]>(BATCH_SPEND_SIGNAL);
