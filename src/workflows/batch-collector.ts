import {
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  sleep,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/types';
import type { BatchRequestOutcome, BatchRequestRef } from '../common/batch';
import { BATCH_API_DEFAULTS } from '../common/batch';
import { batchRequestSignal, batchResultSignal } from './batch-messages';

/** Input of {@link batchCollectorWorkflow}, also what continue-as-new carries. */
export interface BatchCollectorInput {
  taskQueue: string;
  /** Grouping window, ms. @default BATCH_API_DEFAULTS.windowMs */
  windowMs?: number;
  /** First poll interval, ms; ×1.5 per poll up to `maxPollIntervalMs`. */
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  /** Requests received and not yet submitted (continue-as-new). */
  queued?: BatchRequestRef[];
  /** Batches submitted and not yet read (continue-as-new). */
  active?: ActiveBatch[];
  /** How long an idle collector waits for a request before it ends, ms. @default 60_000 */
  idleMs?: number;
}

/** A submitted batch: its id and its requests' refs (small: ids and keys). */
export interface ActiveBatch {
  batchId: string;
  requests: BatchRequestRef[];
}

/**
 * Each batch activity is one short API call, with a short start-to-close: one in flight on a
 * worker that died is retried soon on another.
 */
const retry = { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '60s' } as const;
const poller = proxyActivities<Pick<Activities, 'retrieveMessageBatch'>>({ startToCloseTimeout: '20 seconds', retry });
const submitter = proxyActivities<Pick<Activities, 'createMessageBatch' | 'storeMessageBatchResults'>>({
  startToCloseTimeout: '30 seconds',
  retry,
});
// (Activity proxies are Proxies: they cannot be spread into one object.)
const acts = {
  retrieveMessageBatch: poller.retrieveMessageBatch,
  createMessageBatch: submitter.createMessageBatch,
  storeMessageBatchResults: submitter.storeMessageBatchResults,
};

/** Largest batch the collector sends (the API allows 100,000 requests or 256 MB). */
const MAX_BATCH_REQUESTS = 1000;

/**
 * The batch collector of a task queue (workflow id `batch-collector/<taskQueue>`): a long-lived
 * workflow that receives turns' model calls (`batchRequest`, by signal-with-start), groups the ones
 * that arrive within the window into one Message Batch, polls each batch on durable timers with
 * backoff (no worker slot is held while it waits), reads the results once the batch has ended and
 * signals each turn (`batchResult`). Batch ids and request refs are in its history: after a
 * worker or server restart it resumes polling and never submits an accepted request again. It
 * ends after `idleMs` without work, and continues as new when its history grows.
 */
export async function batchCollectorWorkflow(input: BatchCollectorInput): Promise<void> {
  const windowMs = input.windowMs ?? BATCH_API_DEFAULTS.windowMs;
  const pollMs = input.pollIntervalMs ?? BATCH_API_DEFAULTS.pollIntervalMs;
  const maxPollMs = input.maxPollIntervalMs ?? BATCH_API_DEFAULTS.maxPollIntervalMs;
  const idleMs = input.idleMs ?? 60_000;
  const queued: BatchRequestRef[] = [...(input.queued ?? [])];
  const active = new Map<string, ActiveBatch>();
  const seen = new Set<string>();
  for (const r of queued) seen.add(r.customId);
  for (const b of input.active ?? []) {
    active.set(b.batchId, b);
    for (const r of b.requests) seen.add(r.customId);
  }
  setHandler(batchRequestSignal, (ref) => {
    // A turn's retried enqueue activity signals again: the request is sent once.
    if (seen.has(ref.customId)) return;
    seen.add(ref.customId);
    queued.push(ref);
  });

  const polls: Promise<void>[] = [];
  const poll = async (batch: ActiveBatch): Promise<void> => {
    let delay = pollMs;
    for (;;) {
      await sleep(delay);
      const status = await acts.retrieveMessageBatch({ batchId: batch.batchId });
      if (status.processingStatus === 'ended') break;
      delay = Math.min(maxPollMs, Math.ceil(delay * 1.5));
    }
    const outcomes = await acts.storeMessageBatchResults({ batchId: batch.batchId, requests: batch.requests });
    await Promise.all(outcomes.map((o) => tell(batch, o)));
    active.delete(batch.batchId);
  };
  const tell = async (batch: ActiveBatch, o: BatchRequestOutcome): Promise<void> => {
    const ref = batch.requests.find((r) => r.customId === o.customId);
    if (!ref) return;
    try {
      await getExternalWorkflowHandle(ref.turnId).signal(batchResultSignal, o);
    } catch {
      // The turn has ended (it fell back, or was cancelled): nobody waits for this result.
    }
  };
  for (const b of active.values()) polls.push(poll(b));

  for (;;) {
    if (queued.length === 0) {
      const more = await condition(() => queued.length > 0, active.size > 0 ? '1 hour' : idleMs);
      if (!more && active.size === 0) break;
      if (workflowInfo().continueAsNewSuggested && queued.length === 0) {
        // Handlers are drained before continuing: what was queued travels in the input.
        return continueAsNew<typeof batchCollectorWorkflow>({ ...input, queued, active: [...active.values()] });
      }
      if (!more) continue;
    }
    // The grouping window: requests of other turns due at about the same time join this batch.
    await sleep(windowMs);
    const requests = queued.splice(0, MAX_BATCH_REQUESTS);
    const { batchId } = await acts.createMessageBatch({ submission: uuid4(), requests });
    if (batchId === '') continue;
    const batch: ActiveBatch = { batchId, requests };
    active.set(batchId, batch);
    polls.push(poll(batch));
  }
  await Promise.all(polls);
}
