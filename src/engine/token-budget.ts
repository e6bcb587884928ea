/**
 * Token budget (`taskBudget`) of a turn, after the seeds' `checkTokenBudget`: when the model
 * ends its turn while the turn has used under 90% of the budget, the runner nudges it to
 * continue; it stops nudging when progress stalls (three or more continuations, the last two
 * each adding under 500 tokens).
 */

/** Share of the budget above which the runner no longer nudges. */
export const COMPLETION_THRESHOLD = 0.9;
/** Fewer new tokens than this per continuation counts as no progress (tokens). */
export const DIMINISHING_THRESHOLD = 500;

/** Progress of a token budget, kept in workflow state. */
export interface TokenBudgetTracker {
  continuationCount: number;
  /** Tokens added during the last continuation. */
  lastDeltaTokens: number;
  /** Turn tokens at the last check. */
  lastTurnTokens: number;
}

export function newTokenBudgetTracker(): TokenBudgetTracker {
  return { continuationCount: 0, lastDeltaTokens: 0, lastTurnTokens: 0 };
}

export type TokenBudgetDecision =
  | { action: 'continue'; tracker: TokenBudgetTracker; nudge: string; pct: number }
  | { action: 'stop'; reason: 'no_budget' | 'completed' | 'diminishing'; pct: number };

/**
 * Decides, when the model stops with `end_turn`, whether to nudge it to go on.
 * @param budget the turn's token budget (tokens), or undefined for none
 * @param turnTokens output tokens the turn has produced so far
 */
export function checkTokenBudget(
  tracker: TokenBudgetTracker,
  budget: number | undefined,
  turnTokens: number,
): TokenBudgetDecision {
  if (budget === undefined || budget <= 0) return { action: 'stop', reason: 'no_budget', pct: 0 };
  const pct = Math.round((turnTokens / budget) * 100);
  const delta = turnTokens - tracker.lastTurnTokens;
  const diminishing =
    tracker.continuationCount >= 3 && delta < DIMINISHING_THRESHOLD && tracker.lastDeltaTokens < DIMINISHING_THRESHOLD;
  if (diminishing) return { action: 'stop', reason: 'diminishing', pct };
  if (turnTokens >= budget * COMPLETION_THRESHOLD) return { action: 'stop', reason: 'completed', pct };
  const next: TokenBudgetTracker = {
    continuationCount: tracker.continuationCount + 1,
    lastDeltaTokens: delta,
    lastTurnTokens: turnTokens,
  };
  return {
    action: 'continue',
    tracker: next,
    pct,
    nudge:
      `You have used ${pct}% of this task's token budget (${turnTokens} of ${budget} tokens). ` +
      'Keep working on the task; stop only when it is fully done.',
  };
}
