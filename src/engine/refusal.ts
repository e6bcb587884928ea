/**
 * A response the API ended with `stop_reason: "refusal"` (its safety classifier stopped it), as
 * Claude Code 2.1.328 answers one: the first in a turn is noted to the model, which goes on once;
 * a second ends the turn. Pure.
 */

/** Claude Code's note to the model after a refused response (a user message). */
export const REFUSAL_NOTE =
  'Your response above was stopped by a safety classifier \u2014 this is not a tool or API error. ' +
  'The rest of it was withheld, and tool calls in it that had not finished did not run. ' +
  'Do not produce that content again, even reworded.';

/** What the caller is told (`system`/`informational`); Claude Code names the model by its display name. */
export function refusalNotice(model: string): string {
  return `${model}'s safeguards stopped the response above \u00b7 continuing once with that noted`;
}

/** The error of a turn whose model refused again after the note. */
export function refusedAgainError(model: string): string {
  return (
    `API Error: ${model}'s safeguards flagged this conversation (stop_reason "refusal", twice in a row). ` +
    'This sometimes happens with safe, normal conversations: rephrase the request in a new session or change the model.'
  );
}

/** What to do after a refused response: note it and go on (the first of a turn), or stop. */
export function afterRefusal(notedAlready: boolean): 'note' | 'stop' {
  return notedAlready ? 'stop' : 'note';
}
