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
  /** Microcompact: old tool results sent as a placeholder (`src/engine/microcompact.ts`). */
  microcompact?: MicrocompactOptions;
  /** Tool-result budget: a bound on the tool results of one message (`src/engine/tool-result-budget.ts`). */
  toolResultBudget?: ToolResultBudgetOptions;
  /** Snip: stale rounds removed from the view (`src/engine/snip.ts`). */
  snip?: SnipOptions;
  /** Context collapse: runs of old rounds whose results were cleared, folded into one digest (`src/engine/collapse.ts`). */
  collapse?: CollapseOptions;
}

/** Settings of context collapse (`CompactionOptions.collapse`). */
export interface CollapseOptions {
  /** False turns the stage off (nothing new is collapsed; what was recorded stays collapsed). @default true */
  enabled?: boolean;
  /** Most recent rounds never collapsed. @default 5 */
  keepRecent?: number;
}

/** Settings of snip (`CompactionOptions.snip`). */
export interface SnipOptions {
  /** False turns the stage off (nothing new is removed; what was recorded stays removed). @default true */
  enabled?: boolean;
  /** Most recent rounds never removed. @default 5 */
  keepRecent?: number;
  /** Least tokens removals must free when no other stage rewrites the prefix in that call. @default 60000 */
  minFreedTokens?: number;
}

/** Settings of the tool-result budget (`CompactionOptions.toolResultBudget`). */
export interface ToolResultBudgetOptions {
  /** False turns the stage off (nothing new is replaced; what was recorded stays replaced). @default true */
  enabled?: boolean;
  /** Characters of tool results one message may carry. @default 200000 (Claude Code's) */
  perMessageChars?: number;
  /** More tools whose results are neither replaced nor counted (besides Read and WebFetch). */
  exemptTools?: string[];
}

/** Settings of microcompact (`CompactionOptions.microcompact`). */
export interface MicrocompactOptions {
  /** False turns the stage off (nothing new is cleared; what was recorded stays cleared). @default true */
  enabled?: boolean;
  /** Most recent compactable results never cleared as stale. @default 5 */
  keepRecent?: number;
  /** Least tokens of one result for it to be cleared as stale. @default 1000 */
  minResultTokens?: number;
  /** Least tokens a new batch of clearings must free (else none is made). @default 60000 (Claude Code's: 20000) */
  minFreedTokens?: number;
  /**
   * A new batch (these clearings and the snips that go with them) is made only once the last
   * call's context has reached this share of the auto-compaction threshold; below it the cached
   * view is sent unchanged. 0 makes batches at any size; with auto-compaction off there is no
   * threshold and batches are made at any size. @default 0.95 (`bench pipeline`: 0 is cheapest, 0.95 keeps the cache-read share)
   */
  triggerFill?: number;
}
