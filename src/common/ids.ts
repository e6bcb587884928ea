/** Workflow id of a session's workflow. */
export function sessionWorkflowId(sessionId: string): string {
  return `agent-session-${sessionId}`;
}

/** Workflow id of a session's n-th turn. */
export function turnWorkflowId(sessionId: string, turnNumber: number): string {
  return `${sessionWorkflowId(sessionId)}-turn-${turnNumber}`;
}

/** Prefix of budget pool workflow ids. */
export const BUDGET_POOL_WORKFLOW_PREFIX = 'agent-budget-pool-';

/** Workflow id of the budget pool `poolId` (what a turn's `budgetPoolId` option holds). */
export function budgetPoolWorkflowId(poolId: string): string {
  return `${BUDGET_POOL_WORKFLOW_PREFIX}${poolId}`;
}

/** Pool id of a budget pool workflow id (the id itself when it lacks the prefix). */
export function poolIdOfWorkflowId(workflowId: string): string {
  return workflowId.startsWith(BUDGET_POOL_WORKFLOW_PREFIX)
    ? workflowId.slice(BUDGET_POOL_WORKFLOW_PREFIX.length)
    : workflowId;
}
