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
