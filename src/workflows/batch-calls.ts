import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/types';
import type { BatchApiOptions, BatchApiReport, BatchRequestOutcome } from '../common/batch';
import { BATCH_PRICE_FACTOR, batchCustomId } from '../common/batch';
import type { CallModelInput } from '../common/model';
import { batchResultSignal } from './batch-messages';

/** Enqueueing builds the request and signals the collector: short, retried like setup steps. */
const enqueue = proxyActivities<Pick<Activities, 'enqueueBatchRequest'>>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 5 },
});
/** Classifying an errored result always fails, once: the turn decides what follows. */
const classify = proxyActivities<Pick<Activities, 'failBatchRequest'>>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

/** How a batched call ended for the turn. */
export type BatchCallResult =
  /** The response is the call's line in the store: `callModel` returns its summary. */
  | { kind: 'stored'; batchId: string; tries: number }
  /** No usable batch answer: the call goes to the synchronous API. */
  | { kind: 'fallback'; reason: string; tries: number };

/**
 * A turn's model calls through the Message Batches API (docs/batch.md): each call is enqueued
 * with the task queue's collector and the turn waits for its result on a durable condition (no
 * activity runs while it waits). Canceled and expired requests and retryable errors are sent
 * again (up to `maxTries`); a non-retryable error fails the call as the synchronous call would;
 * past `maxWaitMs` the call falls back to the synchronous API.
 */
export class BatchCalls {
  private readonly results = new Map<string, BatchRequestOutcome>();
  /** What the calls came to, for the outcome. */
  readonly report: BatchApiReport = { batchedCalls: 0, fallbacks: 0, fallbackReasons: [], savedUsd: 0 };

  constructor(
    private readonly opts: BatchApiOptions,
    private readonly maxTries: number,
  ) {
    setHandler(batchResultSignal, (o) => {
      this.results.set(o.customId, o);
    });
  }

  /**
   * Sends the call through a batch and waits for it.
   * @throws ActivityFailure of `failBatchRequest` (a `ModelError.*`) when the API refused the
   *   request with a non-retryable error
   */
  async call(input: CallModelInput): Promise<BatchCallResult> {
    const deadline = Date.now() + this.opts.maxWaitMs;
    let last = 'no result';
    for (let n = 1; n <= this.maxTries; n++) {
      const customId = batchCustomId(input.assistantUuid, n);
      await enqueue.enqueueBatchRequest({
        call: input,
        customId,
        taskQueue: workflowInfo().taskQueue,
        windowMs: this.opts.windowMs,
      });
      const left = deadline - Date.now();
      const answered = left > 0 && (await condition(() => this.results.has(customId), left));
      if (!answered) return this.fellBack(`no batch result within maxWaitMs (${this.opts.maxWaitMs} ms)`, n);
      const o = this.results.get(customId) as BatchRequestOutcome;
      this.results.delete(customId);
      if (o.result === 'succeeded') {
        this.report.batchedCalls += 1;
        return { kind: 'stored', batchId: o.batchId, tries: n };
      }
      last = `batch ${o.batchId}: request ${o.result}`;
      if (o.result === 'errored' && o.error) {
        try {
          await classify.failBatchRequest({ error: o.error });
        } catch (err) {
          const cause = err instanceof ActivityFailure ? err.cause : err;
          if (cause instanceof ApplicationFailure && cause.nonRetryable) throw err;
          last = `batch ${o.batchId}: ${o.error.type}: ${o.error.message}`;
        }
      }
    }
    return this.fellBack(`${last} after ${this.maxTries} tries`, this.maxTries);
  }

  /** Counts what a batched call cost (at batch rates): as much again was saved. */
  saved(costUsd: number | null): void {
    if (costUsd !== null) this.report.savedUsd += costUsd / BATCH_PRICE_FACTOR - costUsd;
  }

  private fellBack(reason: string, tries: number): BatchCallResult {
    this.report.fallbacks += 1;
    this.report.fallbackReasons = [...this.report.fallbackReasons, reason].slice(-10);
    return { kind: 'fallback', reason, tries };
  }
}
