import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { TurnProgress } from '../common/turn';
import { sessionWorkflowId } from '../common/ids';
import { queryWithDeadline } from './query-deadline';
import { interruptSignal, sessionStatusQuery, setLimitsSignal, turnProgressQuery } from '../workflows/messages';
import type { LimitPatch, SessionStatusView } from '../workflows/messages';

/** Thrown by the helpers below when no session workflow with that id exists (or it has ended). */
export class SessionNotFoundError extends Error {
  override readonly name = 'SessionNotFoundError';
  constructor(
    readonly sessionId: string,
    readonly reason: 'not_found' | 'not_running',
  ) {
    super(
      reason === 'not_found'
        ? `no session ${sessionId} on this Temporal server (workflow ${sessionWorkflowId(sessionId)})`
        : `session ${sessionId} is not running (its workflow ended; \`agent-runner -p --resume ${sessionId}\` continues it)`,
    );
  }
}

/** What `agent-runner status` shows: the session, plus the running turn's live progress. */
export interface SessionStatusReport {
  session: SessionStatusView;
  /** Workflow status of the session (`RUNNING`, `COMPLETED`, …). */
  workflowStatus: string;
  /**
   * Turns of the session so far, the running one included: what `status` shows as `turns`
   * (`session.turnCount` counts finished turns only).
   */
  turns: number;
  /** Progress of the running turn (turn count, usage, cost, activity, limits), or null when idle. */
  turn: (TurnProgress & { turnWorkflowId: string }) | null;
}

async function describeSession(client: Client, sessionId: string): Promise<string> {
  try {
    const d = await client.workflow.getHandle(sessionWorkflowId(sessionId)).describe();
    return d.status.name;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new SessionNotFoundError(sessionId, 'not_found');
    throw err;
  }
}

/**
 * Status of a session and of its running turn. Queries are answered by a worker, so one must be
 * polling the session's task queue.
 * @throws SessionNotFoundError when the session workflow does not exist
 * @throws NoWorkerAnsweredError when no worker answered within `CONTROL_QUERY_MS`
 */
export async function sessionStatus(client: Client, sessionId: string): Promise<SessionStatusReport> {
  const workflowStatus = await describeSession(client, sessionId);
  const id = sessionWorkflowId(sessionId);
  const session = await queryWithDeadline(client, id, () => client.workflow.getHandle(id).query(sessionStatusQuery));
  let turn: SessionStatusReport['turn'] = null;
  if (session.currentTurnWorkflowId) {
    try {
      const p = await client.workflow.getHandle(session.currentTurnWorkflowId).query(turnProgressQuery);
      turn = { ...p, turnWorkflowId: session.currentTurnWorkflowId };
    } catch {
      turn = null; // ended between the two queries
    }
  }
  return { session, workflowStatus, turns: session.turnCount + (session.busy ? 1 : 0), turn };
}

async function signalRunningSession(
  client: Client,
  sessionId: string,
  send: (h: ReturnType<Client['workflow']['getHandle']>) => Promise<void>,
): Promise<void> {
  const status = await describeSession(client, sessionId);
  if (status !== 'RUNNING') throw new SessionNotFoundError(sessionId, 'not_running');
  await send(client.workflow.getHandle(sessionWorkflowId(sessionId)));
}

/**
 * Interrupts the session's running turn (no-op when idle): it ends with a clean
 * `error_during_execution` result in which every tool_use has a tool_result.
 * @throws SessionNotFoundError when the session is not running
 */
export async function interruptSession(client: Client, sessionId: string, reason?: string): Promise<void> {
  await signalRunningSession(client, sessionId, (h) => h.signal(interruptSignal, reason));
}

/**
 * Changes the limits of the session's running turn (checked before its next model call) and of
 * its later turns. A number sets a limit, `null` removes it.
 * @throws SessionNotFoundError when the session is not running
 */
export async function setSessionLimits(client: Client, sessionId: string, patch: LimitPatch): Promise<void> {
  await signalRunningSession(client, sessionId, (h) => h.signal(setLimitsSignal, patch));
}
