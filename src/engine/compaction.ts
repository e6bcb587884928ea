/**
 * Compaction policy (the seeds' auto-compact): when to compact, how large the context is, the
 * slash commands that compact or clear on request, and how a compaction counts against a token
 * budget. Pure: evaluated in the workflow.
 */
import type { Usage } from '../common/usage';

/** Share of the context window at which a turn compacts before its next call. */
export const DEFAULT_AUTO_COMPACT_RATIO = 0.8;

/** Compaction settings of a turn (`TurnOptions.compaction`). */
export interface CompactionOptions {
  /**
   * Compact before the next call once the last call's context (input, cache and output tokens)
   * reaches this share of the context window; 0 or less turns proactive compaction off.
   * @default 0.8
   */
  autoCompactRatio?: number;
  /** Context window to compare with (tokens). @default the model's (`callModel`'s `contextWindow`) */
  contextWindowTokens?: number;
  /** Tokens of the most recent messages kept verbatim after the summary. @default 20000 */
  preserveTokens?: number;
}

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

/** A prompt that is a command of the runner rather than a message to the model. */
export type SlashCommand = { name: 'compact'; instructions: string | null } | { name: 'clear' };

/**
 * `/compact [instructions]` (summarize the conversation now) and `/clear` (start a fresh
 * conversation, no model call): the seeds' `processUserInput` commands with `shouldQuery: false`.
 * Any other prompt, including other words starting with `/`, is a message to the model.
 */
export function parseSlashCommand(prompt: string): SlashCommand | null {
  const m = /^\s*\/(compact|clear)(?:\s+([\s\S]*))?$/.exec(prompt);
  if (!m) return null;
  if (m[1] === 'clear') return m[2]?.trim() ? null : { name: 'clear' };
  const instructions = m[2]?.trim() ?? '';
  return { name: 'compact', instructions: instructions === '' ? null : instructions };
}

/**
 * Tokens a `taskBudget` has used: the output so far plus the context of every compaction (after
 * a compaction the model no longer sees that context, so it is taken from what remains, as the
 * seeds do with `taskBudgetRemaining`).
 */
export function taskBudgetTokens(outputTokens: number, compactedContextTokens: number): number {
  return outputTokens + compactedContextTokens;
}
