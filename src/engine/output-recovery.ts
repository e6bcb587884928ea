/**
 * Recovery from a response cut by `max_tokens` (the seeds' max-output-tokens recovery): the turn
 * asks the model to resume where it was cut, a few times in a row at most. Pure.
 *
 * A cut inside a tool call needs no message: the call's input is incomplete JSON, its
 * tool_result says so, and the model retries it.
 */

/** Consecutive cut responses the turn resumes before it gives up (Claude Code's limit). */
export const MAX_OUTPUT_TOKENS_RECOVERIES = 3;

/** The message that asks the model to resume (Claude Code's words). */
export const OUTPUT_LIMIT_NUDGE =
  'Output token limit hit. Resume directly \u2014 no apology, no recap of what you were doing. ' +
  'Pick up mid-thought if that is where the cut happened. Break remaining work into smaller pieces.';

/** True when a response cut by `max_tokens` is resumed (`recovered`: consecutive cuts resumed so far). */
export function resumesAfterCut(recovered: number, limit = MAX_OUTPUT_TOKENS_RECOVERIES): boolean {
  return recovered < limit;
}

/** The error of a turn whose responses kept being cut (Claude Code's words). */
export function outputLimitError(maxTokens: number): string {
  return `API Error: Claude's response exceeded the ${maxTokens} output token maximum.`;
}
