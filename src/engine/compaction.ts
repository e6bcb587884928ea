/**
 * Compaction policy (the seeds' auto-compact): when to compact, how large the context is, and
 * how a compaction counts against a token budget (the slash commands that compact or clear on
 * request: src/common/prompt-command.ts). Pure: evaluated in the workflow.
 */
import type { CompactionOptions } from '../common/compaction';
import type { Usage } from '../common/usage';

/** Share of the context window at which a turn compacts before its next call. */
export const DEFAULT_AUTO_COMPACT_RATIO = 0.8;

/** Tokens the model saw and wrote in one call: its whole context after the call. */
export function contextTokensOf(usage: Usage): number {
  return usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens + usage.output_tokens;
}

/**
 * True when the context of the last call has reached the threshold of the window, so the turn
 * compacts before its next call.
 * @param lastContextTokens {@link contextTokensOf} the last call (0 when there was none)
 * @param modelWindow the model's context window (tokens)
 */
export function shouldAutoCompact(
  lastContextTokens: number,
  modelWindow: number,
  options: CompactionOptions | undefined,
): boolean {
  const ratio = options?.autoCompactRatio ?? DEFAULT_AUTO_COMPACT_RATIO;
  if (ratio <= 0 || lastContextTokens <= 0) return false;
  const window = options?.contextWindowTokens ?? modelWindow;
  return lastContextTokens >= ratio * window;
}

/**
 * The auto-compaction threshold in tokens (a turn whose last call's context reached it compacts
 * before its next call), or undefined when auto-compaction is off. The cheaper stages (snip,
 * microcompact) make a new batch only close to it.
 * @param modelWindow the model's context window (tokens)
 */
export function autoCompactThreshold(modelWindow: number, options: CompactionOptions | undefined): number | undefined {
  const ratio = options?.autoCompactRatio ?? DEFAULT_AUTO_COMPACT_RATIO;
  if (ratio <= 0) return undefined;
  return ratio * (options?.contextWindowTokens ?? modelWindow);
}

/**
 * Tokens a `taskBudget` has used: the output so far plus the context of every compaction (after
 * a compaction the model no longer sees that context, so it is taken from what remains, as the
 * seeds do with `taskBudgetRemaining`).
 */
export function taskBudgetTokens(outputTokens: number, compactedContextTokens: number): number {
  return outputTokens + compactedContextTokens;
}
