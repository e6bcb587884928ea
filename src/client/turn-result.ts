/**
 * A turn's `result` message, built one way for every caller that follows a turn (`QueryEngine`
 * for `-p`, `attach` and the Agent SDK; `batch` for each task): the turn workflow's outcome, or,
 * for a turn workflow that failed (a non-retryable activity failure, a termination, a timeout),
 * an `error_during_execution` outcome with what the turn had spent, from its `spend` query. The
 * final text and structured output are read from the store.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { SDKResultMessage } from '../common/sdk-messages';
import type { TranscriptEntry } from '../common/transcript';
import type { TurnOutcome, TurnSpend } from '../common/turn';
import { emptyUsage } from '../common/usage';
import { retryUntilDefined } from '../connection/retry';
import type { TranscriptStore } from '../store/transcript-store';
import { turnSpendQuery } from '../workflows/messages';
import { resultMessage, resultTextOf } from './sdk-message';
import { resultOfFailure } from '../common/agent-result';

/** How long the client waits for a failed turn's `spend` (a worker replays the turn to answer), ms. */
export const SPEND_QUERY_TIMEOUT_MS = 10_000;

/**
 * A line of the session, read with a few short retries: a line is durable before the workflow
 * records its uuid, so the first read normally finds it; the retries cover an eventually
 * consistent store (20 reads, 50 ms apart). Undefined when it is still missing.
 */
export function readTurnLine(
  store: TranscriptStore,
  sessionId: string,
  uuid: string,
): Promise<TranscriptEntry | undefined> {
  return retryUntilDefined(() => store.get(sessionId, uuid), { attempts: 20, delayMs: 50, factor: 1 });
}

/**
 * What a turn recorded before it ended (query `spend`), or undefined when no worker answers
 * within `timeoutMs` (the query of a closed workflow is answered by replaying it on a worker), or
 * the query fails (a turn of a version without it).
 */
export async function turnSpend(
  handle: WorkflowHandle,
  timeoutMs = SPEND_QUERY_TIMEOUT_MS,
): Promise<TurnSpend | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  try {
    return await Promise.race([handle.query(turnSpendQuery).catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The outcome reported for a turn workflow that failed instead of returning one: an
 * `error_during_execution` whose error names the cause (e.g. `Transcript store error:
 * ENOSPC: no space left on device, write (TranscriptError.Storage)`). Usage, cost, model calls
 * and permission denials are what the turn recorded before it failed (`spend`); without it they
 * are zero and the cost is unknown (`costKnown: false`). The session re-reads its leaf and
 * totals from the store.
 */
export function failedTurnOutcome(err: WorkflowFailedError, durationMs: number, spend?: TurnSpend): TurnOutcome {
  // The first ApplicationFailure on the cause chain is what an activity (or the workflow) threw.
  let cause: unknown = err;
  while (!(cause instanceof ApplicationFailure) && cause instanceof Error && cause.cause instanceof Error) {
    cause = cause.cause;
  }
  const type = cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
  const message = cause instanceof Error ? cause.message : String(cause);
  const text = type?.startsWith('TranscriptError')
    ? `Transcript store error: ${message} (${type})`
    : `The turn failed: ${message}${type ? ` (${type})` : ''}`;
  return {
    subtype: 'error_during_execution',
    isError: true,
    terminalReason: 'model_error',
    numTurns: spend?.numTurns ?? 0,
    durationMs,
    durationApiMs: spend?.durationApiMs ?? 0,
    usage: spend?.usage ?? emptyUsage(),
    modelUsage: spend?.modelUsage ?? {},
    costUsd: spend?.costUsd ?? 0,
    costKnown: spend?.costKnown ?? false,
    stopReason: null,
    lastAssistantUuid: null,
    errors: [text],
    permissionDenials: spend?.permissionDenials ?? [],
    leafUuid: '',
    events: [],
    readFileState: {},
    apiErrorStatus: null,
  };
}

/**
 * The outcome of a turn that ended with `err` from its `result()`: the outcome an error result
 * carries in its failure (an error result fails the turn workflow so that the Web UI lists it as
 * failed, `resultOfFailure`), else a failed turn workflow's (see {@link failedTurnOutcome}, with
 * its spend).
 * @param startedAt when the caller began following the turn (epoch ms): a failed turn's duration
 * @throws `err` itself when it is not a failed workflow (a connection error, a cancelled call)
 */
export async function outcomeOfFailure(handle: WorkflowHandle, err: unknown, startedAt: number): Promise<TurnOutcome> {
  const carried = resultOfFailure<TurnOutcome>(err);
  if (carried) return carried;
  if (!(err instanceof WorkflowFailedError)) throw err;
  return failedTurnOutcome(err, Date.now() - startedAt, await turnSpend(handle));
}

/**
 * Waits for a turn workflow to end (following continue-as-new) and returns its outcome; a turn
 * workflow that failed gives {@link outcomeOfFailure}'s.
 * @throws what `result()` throws when it is not a failed workflow (a connection error)
 */
export async function awaitTurnOutcome(
  handle: WorkflowHandle<() => Promise<TurnOutcome>>,
  startedAt = Date.now(),
): Promise<TurnOutcome> {
  try {
    return await handle.result();
  } catch (err) {
    return outcomeOfFailure(handle, err, startedAt);
  }
}

/**
 * The SDK `result` message of a turn's outcome: its final text (the last assistant line, or the
 * notice the outcome names as its result) and
 * structured output (the line the outcome names) read from the store.
 * @param uuid the message's uuid (random for a live stream, name-based for a batch task)
 */
export async function turnResultMessage(
  store: TranscriptStore,
  sessionId: string,
  outcome: TurnOutcome,
  uuid: string,
): Promise<SDKResultMessage> {
  const finalText = await resultTextOf(outcome, (line) => readTurnLine(store, sessionId, line));
  const structured = outcome.structuredOutputUuid
    ? await readTurnLine(store, sessionId, outcome.structuredOutputUuid)
    : undefined;
  return resultMessage(outcome, {
    sessionId,
    uuid,
    finalText,
    ...(structured?.['structuredOutput'] !== undefined ? { structuredOutput: structured['structuredOutput'] } : {}),
  });
}
