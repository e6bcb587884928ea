/**
 * Billing of model calls: every attempt the API billed is counted exactly once.
 *
 * An attempt records its usage in the store when its response begins (`start`: the input
 * tokens) and when it is complete (`end`: what the final usage adds). The line a call writes
 * lists, in `billing`, the records it reports: those of every attempt of the call seen when the
 * line was written, plus records of the last few calls before it that no line reported yet (an
 * attempt that outlived the attempt whose line won). Lines are first-writer-wins, so every
 * attempt of a call returns the same billing, and a record is listed by one line only.
 */
import { BATCH_PRICE_FACTOR } from '../../common/batch';
import type { Billing, TranscriptEntry } from '../../common/transcript';
import type { Usage } from '../../common/usage';
import { addUsage, emptyUsage } from '../../common/usage';
import type { ModelPrice } from '../../common/usage';
import { costOfUsage } from '../../engine/cost';
import { attemptUsageKey } from '../../store/transcript-store';
import type { ModelAttemptUsage, TranscriptStore } from '../../store/transcript-store';

/** How many calls before a call, on its chain, it checks for usage no line has reported. */
export const BILLING_LOOKBACK_CALLS = 4;

/** What a billing adds up to. */
export interface BilledTotals {
  /** Every token billed (tokens). */
  usage: Usage;
  /** USD, or null when a model of the billing has no price. */
  costUsd: number | null;
  /** API responses billed (attempts that got at least `message_start`). */
  attempts: number;
}

/** Groups usage records into a {@link Billing}. */
export function toBilling(records: readonly ModelAttemptUsage[]): Billing {
  const byModel: Record<string, Usage> = {};
  const units: string[] = [];
  for (const r of records) {
    const key = attemptUsageKey(r);
    if (units.includes(key)) continue;
    units.push(key);
    byModel[r.model] = addUsage(byModel[r.model] ?? emptyUsage(), r.usage);
  }
  return { units, byModel };
}

/** Sums a billing; `priceFor` gives USD per million tokens of a model, or null. */
export function billedTotals(billing: Billing, priceFor: (model: string) => ModelPrice | null): BilledTotals {
  let usage = emptyUsage();
  let costUsd: number | null = 0;
  for (const [model, u] of Object.entries(billing.byModel)) {
    usage = addUsage(usage, u);
    const c = costOfUsage(u, priceFor(model));
    costUsd = costUsd === null || c === null ? null : costUsd + c;
  }
  const attempts = new Set(billing.units.map((k) => k.slice(0, k.lastIndexOf('/')))).size;
  return { usage, costUsd, attempts };
}

/** True for a line written by a model call (it may carry a billing). */
function isCallLine(e: TranscriptEntry): boolean {
  return e.type === 'assistant' || e.billing !== undefined;
}

/**
 * The usage records a call's line may list: every record of the call (`callUuid`) in the store,
 * plus records of the last {@link BILLING_LOOKBACK_CALLS} calls on `chain` (the context the call
 * was made with, oldest first) that no line on the chain lists. A record written after this was
 * collected is not lost: a later call's line lists it.
 */
export async function billableRecords(
  store: TranscriptStore,
  sessionId: string,
  callUuid: string,
  chain: readonly TranscriptEntry[],
): Promise<ModelAttemptUsage[]> {
  const records = await store.modelAttemptUsage(sessionId, callUuid);
  const callIdx: number[] = [];
  chain.forEach((e, i) => {
    if (isCallLine(e) && e.uuid !== callUuid) callIdx.push(i);
  });
  const recent = callIdx.slice(-BILLING_LOOKBACK_CALLS);
  const first = recent[0];
  if (first !== undefined) {
    // A record of an earlier call X can only have been listed by X's line or a later one.
    const listed = new Set(chain.slice(first).flatMap((e) => e.billing?.units ?? []));
    for (const i of recent) {
      const call = chain[i];
      if (!call) continue;
      const late = (await store.modelAttemptUsage(sessionId, call.uuid)).filter((r) => !listed.has(attemptUsageKey(r)));
      records.push(...late);
    }
  }
  return records;
}

/**
 * The billing a call's line reports: {@link billableRecords} plus `unstored`, records of the
 * calling attempt not written to the store (the line that lists them is their durable record;
 * the attempt stores them itself only if its line loses).
 */
export async function settleBilling(
  store: TranscriptStore,
  sessionId: string,
  callUuid: string,
  chain: readonly TranscriptEntry[],
  unstored: readonly ModelAttemptUsage[] = [],
): Promise<Billing> {
  return toBilling([...(await billableRecords(store, sessionId, callUuid, chain)), ...unstored]);
}

/**
 * Totals a line reports: its billing, or (lines written before billing existed) the usage of
 * its own message.
 */
export function lineTotals(entry: TranscriptEntry, priceFor: (model: string) => ModelPrice | null): BilledTotals {
  // A batch's response is billed at batch rates.
  if (entry.messageBatch) {
    const standard: TranscriptEntry = { ...entry };
    delete standard.messageBatch;
    return atBatchRates(lineTotals(standard, priceFor));
  }
  if (entry.billing) return billedTotals(entry.billing, priceFor);
  const u = entry.message?.usage;
  const usage: Usage = {
    input_tokens: u?.input_tokens ?? 0,
    output_tokens: u?.output_tokens ?? 0,
    cache_creation_input_tokens: u?.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: u?.cache_read_input_tokens ?? 0,
  };
  const model = entry.message?.model ?? '';
  return { usage, costUsd: costOfUsage(usage, priceFor(model)), attempts: u ? 1 : 0 };
}

/** Totals priced at the Message Batches API's rates ({@link BATCH_PRICE_FACTOR} of the standard). */
function atBatchRates(t: BilledTotals): BilledTotals {
  return { ...t, costUsd: t.costUsd === null ? null : t.costUsd * BATCH_PRICE_FACTOR };
}
