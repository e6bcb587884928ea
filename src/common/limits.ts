/**
 * Limits a running turn obeys. They are checked in the workflow after every model call and every
 * tool batch, before the next model call is scheduled, and can be changed by the `setLimits`
 * signal. A run can overshoot `maxBudgetUsd` by at most the cost of one model call: the call in
 * flight when the limit is reached completes (its tokens are already spent).
 */
export interface TurnLimits {
  /** Maximum model calls in the turn (Claude Code's `--max-turns`). */
  maxTurns?: number;
  /** Maximum spend in USD: turn cost plus what the session had spent before it, when shared. */
  maxBudgetUsd?: number;
  /** Token budget of the turn (output tokens) for continuation nudges. */
  taskBudget?: number;
}
