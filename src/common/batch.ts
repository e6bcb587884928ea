/**
 * Wire types of model calls sent through the Anthropic Message Batches API (`--batch-api`,
 * config `model.batchApi`; docs/batch.md). Workflow history carries these small records only:
 * request bodies and responses stay in the transcript store.
 */

import type { ModelUsage, Usage } from './usage';

/** Batch requests are billed at this fraction of the standard price (input and output). */
export const BATCH_PRICE_FACTOR = 0.5;

/** How a turn sends its model calls through the Message Batches API. */
export interface BatchApiOptions {
  /**
   * Longest wait for a batch's answer to one call, ms; past it the call falls back to the
   * synchronous Messages API (reported). @default 86_400_000 (the API's 24 h)
   */
  maxWaitMs: number;
  /** Requests from many turns that arrive within this window go in one batch, ms. @default 2000 */
  windowMs: number;
  /** First poll of a batch this long after its creation, ms; then backoff ×1.5. @default 1000 */
  pollIntervalMs: number;
  /** Longest time between two polls of a batch, ms. @default 60_000 */
  maxPollIntervalMs: number;
}

/** Defaults of {@link BatchApiOptions}. */
export const BATCH_API_DEFAULTS: BatchApiOptions = {
  maxWaitMs: 86_400_000,
  windowMs: 2000,
  pollIntervalMs: 1000,
  maxPollIntervalMs: 60_000,
};

/** One model call waiting for a batch: what the collector needs (ids and a store key only). */
export interface BatchRequestRef {
  /** The request's `custom_id` in the batch: `<assistant uuid without dashes>_<try>`. */
  customId: string;
  /** The turn workflow to signal with the result. */
  turnId: string;
  sessionId: string;
  /** Store content key of the prepared request (body, betas, line fields). */
  requestKey: string;
}

/** A `MessageBatchResult` type. */
export type BatchResultType = 'succeeded' | 'errored' | 'canceled' | 'expired';

/** What the collector tells a turn about its request (the response itself is in the store). */
export interface BatchRequestOutcome {
  customId: string;
  batchId: string;
  result: BatchResultType;
  /** For `errored`: the API's error, as a synchronous call would have got it. */
  error?: { type: string; message: string; status: number };
}

/**
 * A batch's response that no turn counts (signal `batchSpend`, from `storeMessageBatchResults` to
 * the session): the call's turn ended before the batch answered (an interrupt), or another writer
 * answered the call first (the synchronous fallback). The API billed it all the same, so the
 * session adds it to its totals and its budget pool. Small: ids and counts, no content.
 */
export interface BatchSpend {
  /** The request's `custom_id`: the session counts each once (the activity may signal again on a retry). */
  customId: string;
  /** The turn workflow whose call it was (the budget pool member it is charged to). */
  turnId: string;
  /** `modelUsage` of the one response (Claude Agent SDK shape; `costUSD` at batch rates, USD). */
  modelUsage: Record<string, ModelUsage>;
  /** Its tokens. */
  usage: Usage;
}

/**
 * Prefix of the `callUuid` of a usage record the store keeps for a batch response no line
 * reports (another writer had answered its call): `batch:<custom_id>`.
 */
export const BATCH_CALL_PREFIX = 'batch:';

/** Name of the session signal carrying a {@link BatchSpend} (activities signal it by name). */
export const BATCH_SPEND_SIGNAL = 'batchSpend';

/** Workflow id of the batch collector of a task queue. */
export function batchCollectorId(taskQueue: string): string {
  return `batch-collector/${taskQueue}`;
}

/** The `custom_id` of try `n` (from 1) of a call: ids match `^[a-zA-Z0-9_-]{1,64}$`. */
export function batchCustomId(assistantUuid: string, n: number): string {
  return `${assistantUuid.replace(/-/g, '')}_${n}`;
}

/** What a turn's calls through the Message Batches API came to (in its outcome and result). */
export interface BatchApiReport {
  /** Model calls answered by a batch. */
  batchedCalls: number;
  /** Model calls that went to the synchronous API instead (past `maxWaitMs`, or tries used up). */
  fallbacks: number;
  /** Why each fallback happened (at most the last 10). */
  fallbackReasons: string[];
  /** USD saved against the standard price: the batched calls' cost (they cost half). */
  savedUsd: number;
}
