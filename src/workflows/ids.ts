/** Workflow id of a session's workflow. */
export function sessionWorkflowId(sessionId: string): string {
  return `agent-session-${sessionId}`;
}

/** Workflow id of a session's n-th turn. */
export function turnWorkflowId(sessionId: string, turnNumber: number): string {
  return `${sessionWorkflowId(sessionId)}-turn-${turnNumber}`;
}
