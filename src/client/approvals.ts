/**
 * Durable approvals from any process: list the tool calls turns are waiting on, and answer them.
 * The answer is a Temporal update on the waiting turn; a changed input is written to the
 * transcript store first and only its ref goes into the update (content stays out of history).
 */
import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { ApprovalAnswer, PendingApproval } from '../common/approvals';
import { sessionOfApproval, WAITING_FOR_APPROVAL_STATUS } from '../common/approvals';
import { AGENT_STATUS_RUNNING, SA } from '../common/search-attributes';
import type { ContentBlock } from '../common/transcript';
import { sidecarEntry } from '../store/sidecar';
import type { TranscriptStore } from '../store/transcript-store';
import { answerApprovalUpdate, pendingApprovalsQuery } from '../workflows/approval-messages';
import { sessionWorkflowId } from '../common/ids';
import { sessionStatusQuery } from '../workflows/messages';
import { uuidV5 } from '../store/uuid';

/** A pending approval with the call's input (read from the store). */
export interface ApprovalView extends PendingApproval {
  input: unknown;
}

/** Thrown when an approval id names no waiting call (answered already, timed out, or unknown). */
export class ApprovalNotFoundError extends Error {
  override readonly name = 'ApprovalNotFoundError';
}

/** The approvals the running turn of one session waits for (empty when none or idle). */
export async function sessionApprovals(client: Client, sessionId: string): Promise<PendingApproval[]> {
  const status = await client.workflow.getHandle(sessionWorkflowId(sessionId)).query(sessionStatusQuery);
  if (!status.currentTurnWorkflowId) return [];
  try {
    return await client.workflow.getHandle(status.currentTurnWorkflowId).query(pendingApprovalsQuery);
  } catch {
    return []; // the turn ended between the two queries
  }
}

/** Sessions asked at the same time by {@link listApprovals}. */
const LIST_CONCURRENCY = 16;

/**
 * How long {@link listApprovals} waits for a session whose `AgentStatus` is `running` (not
 * `waiting_for_approval`), in ms: a live worker answers a query in milliseconds; one whose worker
 * is gone holds it for the server's query timeout (about 30 s). A session that says it waits is
 * always waited for.
 */
export const RUNNING_SESSION_QUERY_MS = 5000;

/**
 * Whether a running session listed by visibility may have a turn waiting for an approval: yes
 * unless its `AgentStatus` says it is idle (the last turn's result subtype). A session without
 * the attribute (a server without the runner's search attributes) may. Set from the session's
 * start (`running`), so a turn that has just asked and not yet told its session counts.
 */
function mayWait(status: unknown): boolean {
  return status === undefined || status === AGENT_STATUS_RUNNING || status === WAITING_FOR_APPROVAL_STATUS;
}

/**
 * Every pending approval on the server (or of one session): running session workflows are
 * found by visibility and asked through queries, all but the idle ones (by `AgentStatus`, when
 * the server has it), several at a time. A query to a session whose worker is gone waits for the
 * server's query timeout (tens of seconds): asked one by one, a few such sessions (left by runs
 * whose workers died) would hold the list for minutes.
 */
export async function listApprovals(
  client: Client,
  store: TranscriptStore | null,
  opts: {
    sessionId?: string;
    limit?: number;
    /** Called for each `running` session that did not answer within {@link RUNNING_SESSION_QUERY_MS}. */
    onUnanswered?: (sessionId: string) => void;
  } = {},
): Promise<ApprovalView[]> {
  const sessions: Array<{ id: string; bounded: boolean }> = [];
  if (opts.sessionId) sessions.push({ id: opts.sessionId, bounded: false });
  else {
    const query = `WorkflowType = 'sessionWorkflow' AND ExecutionStatus = 'Running'`;
    for await (const wf of client.workflow.list({ query, pageSize: 200 })) {
      const status = wf.typedSearchAttributes.get(SA.status);
      if (!mayWait(status)) continue;
      sessions.push({ id: wf.workflowId.replace(/^agent-session-/, ''), bounded: status === AGENT_STATUS_RUNNING });
      if (sessions.length >= (opts.limit ?? 1000)) break;
    }
  }
  const pendingOf: PendingApproval[][] = new Array<PendingApproval[]>(sessions.length);
  let next = 0;
  const ask = async ({ id, bounded }: { id: string; bounded: boolean }): Promise<PendingApproval[]> => {
    if (!bounded) return sessionApprovals(client, id).catch(() => []); // ended, or not answering
    try {
      return await client.connection.withDeadline(Date.now() + RUNNING_SESSION_QUERY_MS, () =>
        sessionApprovals(client, id),
      );
    } catch {
      opts.onUnanswered?.(id);
      return [];
    }
  };
  const askNext = async (): Promise<void> => {
    for (let i = next++; i < sessions.length; i = next++) pendingOf[i] = await ask(sessions[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(LIST_CONCURRENCY, sessions.length) }, askNext));
  const out: ApprovalView[] = [];
  for (const p of pendingOf.flat()) out.push({ ...p, input: store ? await inputOf(store, p) : undefined });
  return out;
}

async function inputOf(store: TranscriptStore, p: PendingApproval): Promise<unknown> {
  const line = await store.get(p.sessionId, p.assistantUuid);
  const content = (line?.message?.content ?? []) as ContentBlock[];
  const block = Array.isArray(content)
    ? content.find((b) => b.type === 'tool_use' && b['id'] === p.toolUseId)
    : undefined;
  return block?.['input'];
}

/** Stores a changed input for an approval; returns its ref (what the update carries). */
export async function storeApprovalInput(
  store: TranscriptStore,
  approvalId: string,
  input: Record<string, unknown>,
): Promise<string> {
  const sessionId = sessionOfApproval(approvalId);
  if (!sessionId) throw new ApprovalNotFoundError(`not an approval id: ${approvalId}`);
  const hash = createHash('sha256').update(JSON.stringify(input)).digest('hex');
  const uuid = uuidV5(`${sessionId}/approval-input/${approvalId}/${hash}`);
  await store.append(sidecarEntry(sessionId, uuid, 'approval_input', { updatedInput: input, approvalId }));
  return uuid;
}

/** An answer as a person or a program gives it (the changed input as JSON, not yet stored). */
export interface ApprovalDecision {
  approvalId: string;
  behavior: 'allow' | 'deny';
  message?: string;
  updatedInput?: Record<string, unknown>;
  /**
   * AskUserQuestion: the person's choices (question text → label; several joined by ", "), put
   * into the call's input as its `answers` (the input the SDK's `canUseTool` would return).
   */
  answers?: Record<string, string>;
  by?: string;
}

/**
 * Answers a pending approval; returns what was answered.
 * @throws ApprovalNotFoundError when no running turn waits for that approval id
 */
export async function answerApproval(
  client: Client,
  store: TranscriptStore,
  d: ApprovalDecision,
): Promise<PendingApproval> {
  const sessionId = sessionOfApproval(d.approvalId);
  if (!sessionId)
    throw new ApprovalNotFoundError(`not an approval id: ${d.approvalId} (expected <session>:<tool_use id>)`);
  let pending: PendingApproval[];
  try {
    pending = await sessionApprovals(client, sessionId);
  } catch (e) {
    throw new ApprovalNotFoundError(`no running session ${sessionId}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const p = pending.find((x) => x.approvalId === d.approvalId);
  if (!p)
    throw new ApprovalNotFoundError(
      `no turn is waiting for approval ${d.approvalId} (answered, timed out, or unknown)`,
    );
  const answer: ApprovalAnswer = {
    approvalId: d.approvalId,
    behavior: d.behavior,
    ...(d.message !== undefined ? { message: d.message } : {}),
    ...(d.by !== undefined ? { by: d.by } : {}),
  };
  if (d.answers !== undefined && p.toolName !== 'AskUserQuestion')
    throw new ApprovalNotFoundError(`answers apply to AskUserQuestion calls only (${d.approvalId} is ${p.toolName})`);
  const updatedInput =
    d.answers !== undefined
      ? {
          ...(d.updatedInput ?? ((await inputOf(store, p)) as Record<string, unknown> | undefined) ?? {}),
          answers: d.answers,
        }
      : d.updatedInput;
  if (d.behavior === 'allow' && updatedInput)
    answer.inputRef = await storeApprovalInput(store, d.approvalId, updatedInput);
  try {
    return await client.workflow.getHandle(p.turnWorkflowId).executeUpdate(answerApprovalUpdate, { args: [answer] });
  } catch (e) {
    throw new ApprovalNotFoundError(
      `approval ${d.approvalId} could not be answered: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}
