/**
 * The text of an error for a CLI message: its message followed by the messages of its causes
 * (`Workflow Update failed: submitMessage: the session is ending`). Temporal's client errors
 * (`WorkflowUpdateFailedError`, `WorkflowFailedError`, `ServiceError`, …) say only what failed;
 * the reason is in their `cause` (an `ApplicationFailure`, a gRPC error). A cause whose message the
 * text already holds is skipped; the chain is followed at most 8 deep (a cycle ends it).
 * @param e anything thrown
 * @returns one line or more, never empty
 */
export function errorText(e: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  let cur: unknown = e;
  while (cur !== undefined && cur !== null && !seen.has(cur) && seen.size < 8) {
    seen.add(cur);
    const message = cur instanceof Error ? cur.message : String(cur);
    if (message !== '' && !parts.some((p) => p.includes(message))) parts.push(message);
    cur = cur instanceof Error ? cur.cause : undefined;
  }
  return parts.length > 0 ? parts.join(': ') : String(e);
}
