import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { BatchRequestOutcome, BatchRequestRef, BatchResultType, BatchSpend } from '../../common/batch';
import { BATCH_CALL_PREFIX, BATCH_PRICE_FACTOR, BATCH_SPEND_SIGNAL, batchCollectorId } from '../../common/batch';
import { sessionWorkflowId } from '../../common/ids';
import { contextWindowOf } from '../../common/model-limits';
import type { Usage } from '../../common/usage';
import { addModelUsage, costOfUsage } from '../../engine/cost';
import type { CallModelInput } from '../../common/model';
import type { TranscriptEntry } from '../../common/transcript';
import { TRANSCRIPT_SCHEMA_VERSION } from '../../common/transcript';
import { billableRecords, toBilling } from './billing';
import type { ModelDeps } from './call-model';
import { buildModelRequest, requestBetas } from './call-model';
import { classifyModelError } from './errors';
import { usageCounts } from './stream';

/**
 * Activities of model calls sent through the Message Batches API (docs/batch.md). Each is short:
 * no activity waits for a batch; the collector workflow waits on durable timers between them.
 */

/** A prepared batch request, stored under its `requestKey` (content: never in history). */
interface StoredBatchRequest {
  params: Anthropic.MessageCreateParamsNonStreaming;
  betas: string[];
  assistantUuid: string;
  /** Parent of the assistant line (after the reminder and microcompact lines the build wrote). */
  parentUuid: string | null;
  turnId: string;
  display?: string;
}

/** Input of `enqueueBatchRequest`. */
export interface EnqueueBatchRequestInput {
  call: CallModelInput;
  customId: string;
  /** Task queue whose collector groups the request. */
  taskQueue: string;
  windowMs: number;
}

/** Where a batch stands (`retrieveMessageBatch`). */
export interface BatchStatus {
  processingStatus: 'in_progress' | 'canceling' | 'ended';
}

function requestKey(customId: string): string {
  return `batch-request/${customId}`;
}

function submissionKey(submission: string): string {
  return `batch-submission/${submission}`;
}

/** Store key of a collector's submissions (the collector's session-less scope). */
const COLLECTOR_SCOPE = 'batch-collector';

/** The batch activities, by name (each described where it is built). */
export interface BatchActivities {
  enqueueBatchRequest(input: EnqueueBatchRequestInput): Promise<{ requestKey: string }>;
  createMessageBatch(input: { submission: string; requests: BatchRequestRef[] }): Promise<{ batchId: string }>;
  retrieveMessageBatch(input: { batchId: string }): Promise<BatchStatus>;
  storeMessageBatchResults(input: { batchId: string; requests: BatchRequestRef[] }): Promise<BatchRequestOutcome[]>;
  failBatchRequest(input: { error: NonNullable<BatchRequestOutcome['error']> }): Promise<never>;
}

/** Creates the batch activities. */
export function createBatchActivities(deps: ModelDeps): BatchActivities {
  const client = (model?: string): Anthropic => deps.anthropic(model) as Anthropic;
  return {
    /**
     * Builds the call's request exactly as `callModel` would (the reminder and microcompact lines
     * it writes included), stores it, and hands its reference to the task queue's collector
     * (signal-with-start). Idempotent: a retry stores the same request under the same key.
     */
    async enqueueBatchRequest(input: EnqueueBatchRequestInput): Promise<{ requestKey: string }> {
      const ctx = Context.current();
      const turnId = ctx.info.workflowExecution?.workflowId ?? '';
      const built = await buildModelRequest(deps, input.call, turnId);
      const params: Anthropic.MessageCreateParamsNonStreaming = { ...built.params, stream: false };
      const stored: StoredBatchRequest = {
        params,
        betas: requestBetas(built),
        assistantUuid: input.call.assistantUuid,
        parentUuid: built.context.parentUuid,
        turnId,
        ...(built.display !== undefined ? { display: built.display } : {}),
      };
      const key = requestKey(input.customId);
      await deps.store.putContent(input.call.sessionId, key, JSON.stringify(stored));
      const ref: BatchRequestRef = {
        customId: input.customId,
        turnId,
        sessionId: input.call.sessionId,
        requestKey: key,
      };
      await ctx.client.workflow.signalWithStart('batchCollectorWorkflow', {
        workflowId: batchCollectorId(input.taskQueue),
        taskQueue: input.taskQueue,
        args: [{ taskQueue: input.taskQueue, windowMs: input.windowMs }],
        signal: 'batchRequest',
        signalArgs: [ref],
      });
      return { requestKey: key };
    },

    /**
     * Creates one Message Batch of the requests (read from the store by key). The batch id is
     * also stored under the submission id (a uuid of the collector), so that a retry after the
     * API accepted the batch returns it instead of submitting the requests again.
     */
    async createMessageBatch(input: { submission: string; requests: BatchRequestRef[] }): Promise<{ batchId: string }> {
      const done = await deps.store.getContent(COLLECTOR_SCOPE, submissionKey(input.submission));
      if (done !== undefined) return { batchId: done.toString('utf8') };
      const requests: Anthropic.Messages.BatchCreateParams.Request[] = [];
      const betas = new Set<string>();
      let model: string | undefined;
      for (const r of input.requests) {
        const body = await deps.store.getContent(r.sessionId, r.requestKey);
        if (body === undefined) continue; // answered by its fallback and cleaned up: nothing to send
        const stored = JSON.parse(body.toString('utf8')) as StoredBatchRequest;
        for (const b of stored.betas) betas.add(b);
        model ??= stored.params.model;
        requests.push({ custom_id: r.customId, params: stored.params });
      }
      if (requests.length === 0) return { batchId: '' };
      try {
        const batch = await client(model).messages.batches.create(
          { requests },
          betas.size > 0 ? { headers: { 'anthropic-beta': [...betas].join(',') } } : {},
        );
        await deps.store.putContent(COLLECTOR_SCOPE, submissionKey(input.submission), batch.id);
        return { batchId: batch.id };
      } catch (err) {
        throw classifyModelError(err);
      }
    },

    /** Where a batch stands (one `GET`; the collector polls with durable timers between calls). */
    async retrieveMessageBatch(input: { batchId: string }): Promise<BatchStatus> {
      try {
        const b = await client().messages.batches.retrieve(input.batchId);
        return { processingStatus: b.processing_status };
      } catch (err) {
        throw classifyModelError(err);
      }
    },

    /**
     * Reads an ended batch's results once and writes each succeeded response as the assistant
     * line the synchronous call would have written (first writer wins: a line its fallback wrote
     * stays). Returns one small outcome per request.
     */
    async storeMessageBatchResults(input: {
      batchId: string;
      requests: BatchRequestRef[];
    }): Promise<BatchRequestOutcome[]> {
      const byId = new Map(input.requests.map((r) => [r.customId, r]));
      const outcomes: BatchRequestOutcome[] = [];
      let results: AsyncIterable<Anthropic.Messages.MessageBatchIndividualResponse>;
      try {
        results = await client().messages.batches.results(input.batchId);
      } catch (err) {
        throw classifyModelError(err);
      }
      const answered: Array<{ ref: BatchRequestRef; msg: Anthropic.Message; stored: StoreResult }> = [];
      for await (const line of results) {
        const ref = byId.get(line.custom_id);
        if (!ref) continue;
        const r = line.result;
        if (r.type === 'succeeded') {
          answered.push({ ref, msg: r.message, stored: await storeResponse(ref, input.batchId, r.message) });
          outcomes.push({ customId: ref.customId, batchId: input.batchId, result: 'succeeded' });
        } else if (r.type === 'errored') {
          const e = r.error.error;
          outcomes.push({
            customId: ref.customId,
            batchId: input.batchId,
            result: 'errored',
            error: { type: e.type, message: e.message, status: statusOfErrorType(e.type) },
          });
        } else outcomes.push({ customId: ref.customId, batchId: input.batchId, result: r.type });
      }
      // A request the results file does not list did not get processed.
      for (const ref of input.requests) {
        if (!outcomes.some((o) => o.customId === ref.customId)) {
          outcomes.push({ customId: ref.customId, batchId: input.batchId, result: 'expired' as BatchResultType });
        }
      }
      await settleUncounted(input.batchId, answered);
      return outcomes;
    },

    /**
     * Fails as the synchronous call would have failed on the same API error: the errored batch
     * result's error classified by `classifyModelError` (so the turn retries, compacts or stops
     * as it does for a synchronous call).
     * @throws ApplicationFailure `ModelError.*`, always
     */
    async failBatchRequest(input: { error: NonNullable<BatchRequestOutcome['error']> }): Promise<never> {
      const { type, message, status } = input.error;
      const body = { type: 'error', error: { type, message } };
      throw classifyModelError(Anthropic.APIError.generate(status, body, message, new Headers()));
    },
  };

  /**
   * Responses no turn will count go to their session's totals (signal `batchSpend`): those of a
   * call another writer answered first (their billing is also recorded in the store, so that a
   * resumed session counts them), and those whose turn is no longer running (interrupted while it
   * waited). A turn that still waits counts its own. The signal may come again on a retry: the
   * session counts each `custom_id` once. A session that has ended is not signalled: its store
   * has the billing, and a resume counts it.
   */
  async function settleUncounted(
    batchId: string,
    answered: Array<{ ref: BatchRequestRef; msg: Anthropic.Message; stored: StoreResult }>,
  ): Promise<void> {
    const client = Context.current().client;
    const running = new Map<string, boolean>();
    const isRunning = async (turnId: string): Promise<boolean> => {
      let r = running.get(turnId);
      if (r === undefined) {
        r = await client.workflow
          .getHandle(turnId)
          .describe()
          .then((d) => d.status.name === 'RUNNING')
          .catch(() => false);
        running.set(turnId, r);
      }
      return r;
    };
    for (const { ref, msg, stored } of answered) {
      if (stored.kind === 'line' && (await isRunning(ref.turnId))) continue;
      const usage = usageOf(msg);
      if (stored.kind === 'answeredElsewhere') {
        await deps.store.putModelAttemptUsage(ref.sessionId, {
          callUuid: `${BATCH_CALL_PREFIX}${ref.customId}`,
          attempt: 1,
          phase: 'end',
          requestId: null,
          messageId: msg.id,
          model: msg.model,
          usage,
          messageBatchId: batchId,
        });
      }
      const standard = costOfUsage(usage, deps.priceFor(msg.model));
      const spend: BatchSpend = {
        customId: ref.customId,
        turnId: ref.turnId,
        usage,
        modelUsage: addModelUsage({}, msg.model, usage, standard === null ? null : standard * BATCH_PRICE_FACTOR, {
          contextWindow: (deps.contextWindowFor ?? contextWindowOf)(msg.model),
          maxOutputTokens: stored.maxTokens,
        }),
      };
      await client.workflow
        .getHandle(sessionWorkflowId(ref.sessionId))
        .signal(BATCH_SPEND_SIGNAL, spend)
        .catch(() => undefined); // the session has ended: a resume counts the stored billing
    }
  }

  async function storeResponse(ref: BatchRequestRef, batchId: string, msg: Anthropic.Message): Promise<StoreResult> {
    const body = await deps.store.getContent(ref.sessionId, ref.requestKey);
    if (body === undefined) {
      throw ApplicationFailure.create({
        type: 'TranscriptError',
        message: `session ${ref.sessionId}: the prepared batch request ${ref.requestKey} is not in the store`,
        nonRetryable: true,
      });
    }
    const stored = JSON.parse(body.toString('utf8')) as StoredBatchRequest;
    const maxTokens = stored.params.max_tokens;
    const existing = await deps.store.get(ref.sessionId, stored.assistantUuid);
    if (existing) {
      // Our own line (this activity's earlier attempt wrote it), or another writer's answer.
      const ours = existing.messageBatch?.customId === ref.customId;
      return { kind: ours ? 'line' : 'answeredElsewhere', maxTokens };
    }
    const usage = usageOf(msg);
    const records = await billableRecords(deps.store, ref.sessionId, stored.assistantUuid, []).catch(() => []);
    const end = {
      callUuid: stored.assistantUuid,
      attempt: 1,
      phase: 'end' as const,
      requestId: null,
      messageId: msg.id,
      model: msg.model,
      usage,
    };
    const content = msg.content as unknown as Array<Record<string, unknown>>;
    const entry: TranscriptEntry = {
      v: TRANSCRIPT_SCHEMA_VERSION,
      type: 'assistant',
      uuid: stored.assistantUuid,
      parentUuid: stored.parentUuid,
      sessionId: ref.sessionId,
      timestamp: new Date().toISOString(),
      message: {
        id: msg.id,
        type: 'message',
        role: 'assistant',
        model: msg.model,
        content,
        stop_reason: msg.stop_reason ?? null,
        stop_sequence: msg.stop_sequence ?? null,
        usage: { ...usage, ...usageCounts(msg.usage) },
      } as unknown as TranscriptEntry['message'],
      maxTokens: stored.params.max_tokens,
      ...(stored.display !== undefined && content.some((b) => b['type'] === 'thinking')
        ? { thinkingDisplay: stored.display }
        : {}),
      turnId: stored.turnId,
      billing: toBilling([...records, end]),
      messageBatch: { id: batchId, customId: ref.customId },
    };
    await deps.store.append(entry);
    return { kind: 'line', maxTokens };
  }
}

/**
 * What became of a succeeded response: written as the call's line (`line`, also when an earlier
 * attempt of the activity wrote it), or not written because another writer had answered the
 * call (`answeredElsewhere`: the synchronous fallback).
 */
interface StoreResult {
  kind: 'line' | 'answeredElsewhere';
  /** The request's `max_tokens` (reported in `modelUsage`). */
  maxTokens: number;
}

/** The four token counts of a response. */
function usageOf(msg: Anthropic.Message): Usage {
  return {
    input_tokens: msg.usage.input_tokens ?? 0,
    output_tokens: msg.usage.output_tokens ?? 0,
    cache_creation_input_tokens: msg.usage.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: msg.usage.cache_read_input_tokens ?? 0,
  };
}

/** The HTTP status the API answers with an error type (for a batch's errored result). */
function statusOfErrorType(type: string): number {
  const table: Record<string, number> = {
    invalid_request_error: 400,
    authentication_error: 401,
    billing_error: 402,
    permission_error: 403,
    not_found_error: 404,
    request_too_large: 413,
    rate_limit_error: 429,
    api_error: 500,
    timeout_error: 504,
    overloaded_error: 529,
  };
  return table[type] ?? 500;
}
