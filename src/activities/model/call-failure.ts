/**
 * What a failed model call tells the workflow beyond its type: the usage its attempts were billed
 * (so that a call that never completed is still counted), and whether a "prompt is too long"
 * answer is about the new prompt itself (which compacting the conversation cannot fix).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { ModelErrorDetails } from '../../common/model';
import { ModelErrorType } from '../../common/model';
import type { TranscriptEntry } from '../../common/transcript';
import type { ModelPrice } from '../../common/usage';
import type { ModelAttemptUsage, TranscriptStore } from '../../store/transcript-store';
import { billedTotals, lineTotals, toBilling } from './billing';

const TOO_LONG = /prompt is too long:\s*(\d+)\s*tokens\s*>\s*(\d+)\s*maximum/i;

/**
 * True when the API's "prompt is too long: N tokens > M maximum" is caused by the newest prompt
 * alone: its share of the request (by characters) times N is over M.
 * @param promptChars characters of the newest prompt line; `requestChars` of the whole request.
 */
export function promptAloneOverLimit(message: string, promptChars: number, requestChars: number): boolean {
  const m = TOO_LONG.exec(message);
  if (!m || requestChars <= 0) return false;
  const tokens = Number(m[1]);
  const maximum = Number(m[2]);
  return tokens * Math.min(1, promptChars / requestChars) > maximum;
}

/** Characters of the newest prompt a person typed on the chain (0 when there is none). */
export function newestPromptChars(chain: readonly TranscriptEntry[]): number {
  for (let i = chain.length - 1; i >= 0; i--) {
    const e = chain[i];
    if (!e || e.type !== 'user' || e.isMeta || !e.message) continue;
    const c = e.message.content;
    if (typeof c === 'string') return c.length;
    if (!c.some((b) => b.type === 'tool_result')) return JSON.stringify(c).length;
  }
  return 0;
}

/**
 * The failure of a call, with `billed` (the usage every attempt of it recorded) and
 * `promptOverLimit` added to its details. `known` are records of the failing attempt that it
 * holds itself (in the store or not: a store that cannot be reached does not lose them).
 */
export async function describeCallFailure(
  failure: ApplicationFailure,
  ctx: {
    store: TranscriptStore;
    sessionId: string;
    callUuid: string;
    priceFor(model: string): ModelPrice | null;
    chain: readonly TranscriptEntry[];
    requestChars: number;
    known?: readonly ModelAttemptUsage[];
  },
): Promise<ApplicationFailure> {
  const records = await ctx.store.modelAttemptUsage(ctx.sessionId, ctx.callUuid).catch(() => []);
  const billing = toBilling([...records, ...(ctx.known ?? [])]);
  const totals = billedTotals(billing, ctx.priceFor);
  const base = (failure.details?.[0] ?? {}) as ModelErrorDetails;
  const details: ModelErrorDetails = {
    status: base.status ?? null,
    requestId: base.requestId ?? null,
    ...(base.rate ? { rate: base.rate } : {}),
    ...(totals.attempts > 0
      ? {
          billed: {
            model: Object.keys(billing.byModel)[0] ?? '',
            usage: totals.usage,
            costUsd: totals.costUsd,
            attempts: totals.attempts,
          },
        }
      : {}),
    ...(failure.type === ModelErrorType.PromptTooLong &&
    promptAloneOverLimit(failure.message, newestPromptChars(ctx.chain), ctx.requestChars)
      ? { promptOverLimit: true }
      : {}),
  };
  return withDetails(failure, details);
}

/** `failure` (type, message, retry decision, cause) with `details` as its details. */
function withDetails(failure: ApplicationFailure, details: ModelErrorDetails): ApplicationFailure {
  return ApplicationFailure.create({
    ...(failure.type ? { type: failure.type } : {}),
    message: failure.message,
    nonRetryable: failure.nonRetryable === true,
    details: [details],
    ...(failure.nextRetryDelay !== undefined && failure.nextRetryDelay !== null
      ? { nextRetryDelay: failure.nextRetryDelay }
      : {}),
    ...(failure.cause ? { cause: failure.cause } : {}),
  });
}

/**
 * The `TranscriptError.Unavailable` failure of a call whose complete response could not be
 * stored: `failure` with the usage the response's line lists as `billed`, so that the turn counts
 * what the API billed although the line is not in the store.
 */
export function unstoredResponseFailure(
  failure: ApplicationFailure,
  line: TranscriptEntry,
  priceFor: (model: string) => ModelPrice | null,
): ApplicationFailure {
  const totals = lineTotals(line, priceFor);
  const details: ModelErrorDetails = {
    status: null,
    requestId: typeof line.requestId === 'string' ? line.requestId : null,
    billed: {
      model: line.message?.model ?? '',
      usage: totals.usage,
      costUsd: totals.costUsd,
      attempts: totals.attempts,
    },
  };
  return withDetails(failure, details);
}
