/**
 * Structured output in the loop: counting attempts per turn and deciding when the turn has its
 * answer, must nudge the model, or gives up. Pure: evaluated in the workflow.
 *
 * Attempts count per turn, not per session (claude-agent-sdk-typescript#77 reports a counter
 * that was never reset). A failed StructuredOutput call and a text answer without the tool each
 * count as one attempt.
 */
import type { StructuredOutputProgress } from '../common/structured-output';
import { DEFAULT_MAX_STRUCTURED_OUTPUT_RETRIES, structuredOutputRetriesError } from '../common/structured-output';

export function newStructuredOutputProgress(): StructuredOutputProgress {
  return { attempts: 0, lastError: null, resultUuid: null };
}

/** One StructuredOutput call's result, as the turn sees it. */
export interface StructuredOutputResult {
  resultUuid: string;
  valid: boolean;
  /** Violations of an invalid call. */
  error?: string;
}

/** Progress after the StructuredOutput calls of one response (the first valid one wins). */
export function recordStructuredOutputCalls(
  p: StructuredOutputProgress,
  results: readonly StructuredOutputResult[],
): StructuredOutputProgress {
  let next = p;
  for (const r of results) {
    if (next.resultUuid !== null) break;
    next = r.valid
      ? { ...next, resultUuid: r.resultUuid }
      : { ...next, attempts: next.attempts + 1, lastError: r.error ?? next.lastError };
  }
  return next;
}

/** What the last validation error says when the model answered with text instead. */
export const TEXT_INSTEAD_OF_TOOL = 'the model answered with text instead of calling StructuredOutput';

/** What the turn does when the model stops without a valid StructuredOutput call. */
export type StructuredOutputEnd =
  { action: 'nudge'; progress: StructuredOutputProgress } | { action: 'exhausted'; error: string };

/** The model ended its answer with text only: nudge it to call the tool, or give up after the limit. */
export function afterTextAnswer(p: StructuredOutputProgress, maxRetries?: number): StructuredOutputEnd {
  const next = { ...p, attempts: p.attempts + 1, lastError: TEXT_INSTEAD_OF_TOOL };
  return exhausted(next, maxRetries)
    ? { action: 'exhausted', error: retriesError(next) }
    : { action: 'nudge', progress: next };
}

/** True once the attempts reach the limit without a valid call. */
export function exhausted(p: StructuredOutputProgress, maxRetries = DEFAULT_MAX_STRUCTURED_OUTPUT_RETRIES): boolean {
  return p.resultUuid === null && p.attempts >= maxRetries;
}

/** The `errors` entry when the attempts ran out. */
export function retriesError(p: StructuredOutputProgress): string {
  return structuredOutputRetriesError(p.attempts, p.lastError);
}
