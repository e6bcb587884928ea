/** Workflow id of a session's workflow. */
export function sessionWorkflowId(sessionId: string): string {
  return `agent-session-${sessionId}`;
}

/** Workflow id of a session's n-th turn. */
export function turnWorkflowId(sessionId: string, turnNumber: number): string {
  return `${sessionWorkflowId(sessionId)}-turn-${turnNumber}`;
}

/**
 * The turn number in a turn's workflow id (the inverse of {@link turnWorkflowId}); undefined for
 * an id of another shape (a subagent's child turn, a session, a pool).
 */
export function turnNumberOf(workflowId: string): number | undefined {
  const m = /^agent-session-.+-turn-(\d+)$/.exec(workflowId);
  return m ? Number(m[1]) : undefined;
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

/** Workflow id of run `run` of subagent `agentId` of a session (a child `turnWorkflow`). */
export function agentTurnWorkflowId(sessionId: string, agentId: string, run: number): string {
  return `${sessionWorkflowId(sessionId)}-agent-${agentId}-${run}`;
}

const AGENT_TURN_ID = /-agent-(a[0-9a-f]{16})-(\d+)$/;

/**
 * The subagent a turn workflow id belongs to, or null for a turn of the session's own agent. Lines
 * a subagent writes carry its turn id: that is what makes them its sidechain (never the session's
 * leaf, never a prompt the user typed).
 */
export function agentOfTurnId(turnId: string | undefined): { agentId: string; run: number } | null {
  const m = turnId === undefined ? null : AGENT_TURN_ID.exec(turnId);
  return m ? { agentId: m[1] ?? '', run: Number(m[2]) } : null;
}

/**
 * A task run id in Claude Code 2.1.328's shape (9 base-36 characters, `-`, 8 hex: `run_id` of the
 * `task_*` stream messages) from a uuid the workflow made (deterministic, so replay-safe).
 */
export function taskRunIdFromUuid(uuid: string): string {
  const hex = uuid.replace(/-/g, '');
  const head = BigInt(`0x${hex.slice(0, 12)}`)
    .toString(36)
    .padStart(9, '0')
    .slice(-9);
  return `${head}-${hex.slice(12, 20)}`;
}

/** An agent id (`a` + 16 hex, as Claude Code's) from a uuid the workflow made. */
export function agentIdFromUuid(uuid: string): string {
  return `a${uuid.replace(/-/g, '').slice(0, 16)}`;
}
