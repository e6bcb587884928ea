import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { quoteQueryValue, SA } from '../common/search-attributes';
import { readSessionMemo } from './session-metadata';

/** One session workflow as `agent-runner list` shows it. */
export interface SessionRow {
  workflowId: string;
  sessionId: string;
  batchId: string | null;
  taskId: string | null;
  /** `AgentStatus`: `running`, or the last turn's result subtype; null when not set. */
  agentStatus: string | null;
  /** `AgentCostUsd` (USD), null when not set. */
  costUsd: number | null;
  /** Temporal's execution status: `RUNNING`, `COMPLETED`, `TERMINATED`, … */
  workflowStatus: string;
  startTime: Date;
  closeTime: Date | null;
  /** First line of the session's first prompt (its memo), null for sessions started without one. */
  prompt: string | null;
  /** Working directory (memo). */
  cwd: string | null;
  /** Model the session started with (memo). */
  model: string | null;
}

/** Filters of {@link listSessions}. */
export interface ListSessionsOptions {
  /** Only the sessions of this batch (`AgentBatchId`). */
  batchId?: string;
  /** Only sessions with this `AgentStatus`. */
  status?: string;
  /** Extra visibility query, ANDed (e.g. `StartTime > '2026-01-01T00:00:00Z'`). */
  query?: string;
  /** At most this many rows (most recent first). @default 200 */
  limit?: number;
}

const SESSION_PREFIX = 'agent-session-';

/** The visibility query {@link listSessions} runs. */
export function sessionListQuery(opts: ListSessionsOptions = {}): string {
  const parts = [`WorkflowType = 'sessionWorkflow'`, `ExecutionStatus != 'ContinuedAsNew'`];
  if (opts.batchId !== undefined) parts.push(`${SA.batchId.name} = ${quoteQueryValue(opts.batchId)}`);
  if (opts.status !== undefined) parts.push(`${SA.status.name} = ${quoteQueryValue(opts.status)}`);
  if (opts.query) parts.push(`(${opts.query})`);
  return parts.join(' AND ');
}

/** Session workflows found with `client.workflow.list` and the runner's search attributes. */
export async function listSessions(client: Client, opts: ListSessionsOptions = {}): Promise<SessionRow[]> {
  const limit = opts.limit ?? 200;
  const rows: SessionRow[] = [];
  if (limit <= 0) return rows;
  // A session resumed after its workflow closed runs again under the same workflow id: one row
  // per session, with the latest run's status and cost, and the first run's start and prompt.
  const byId = new Map<string, SessionRow>();
  for await (const wf of client.workflow.list({ query: sessionListQuery(opts), pageSize: Math.min(limit, 1000) })) {
    const row = toRow(wf);
    const seen = byId.get(row.workflowId);
    if (!seen) {
      if (byId.size >= limit) break;
      byId.set(row.workflowId, row);
      rows.push(row);
    } else Object.assign(seen, mergeRuns(seen, row));
  }
  return rows;
}

/** One row for two runs of a session workflow. */
export function mergeRuns(a: SessionRow, b: SessionRow): SessionRow {
  const [first, latest] = a.startTime.getTime() <= b.startTime.getTime() ? [a, b] : [b, a];
  return { ...latest, startTime: first.startTime, prompt: first.prompt ?? latest.prompt };
}

function toRow(wf: WorkflowExecutionInfo): SessionRow {
  const sa = wf.typedSearchAttributes;
  const memo = readSessionMemo(wf.memo);
  const sessionId =
    sa.get(SA.sessionId) ??
    (wf.workflowId.startsWith(SESSION_PREFIX) ? wf.workflowId.slice(SESSION_PREFIX.length) : wf.workflowId);
  return {
    workflowId: wf.workflowId,
    sessionId,
    batchId: sa.get(SA.batchId) ?? null,
    taskId: sa.get(SA.taskId) ?? null,
    agentStatus: sa.get(SA.status) ?? null,
    costUsd: sa.get(SA.costUsd) ?? null,
    workflowStatus: wf.status.name,
    startTime: wf.startTime,
    closeTime: wf.closeTime ?? null,
    prompt: memo.prompt ?? null,
    cwd: memo.cwd ?? null,
    model: memo.model ?? null,
  };
}
