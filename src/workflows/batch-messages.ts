import { defineSignal } from '@temporalio/workflow';
import type { BatchRequestOutcome, BatchRequestRef } from '../common/batch';

/** A turn's model call for the collector to put in a batch (sent by signal-with-start). */
export const batchRequestSignal = defineSignal<[BatchRequestRef]>('batchRequest');
/** The collector's answer to a turn: its request's result (the response is in the store). */
export const batchResultSignal = defineSignal<[BatchRequestOutcome]>('batchResult');
