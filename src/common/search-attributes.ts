import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { SearchAttributePair } from '@temporalio/common';

/**
 * Custom search attributes the runner sets on its workflows, so runs can be found in the
 * Temporal Web UI and with `temporal workflow list --query`. The embedded dev server registers
 * them at start; on another server, register them once with
 * `temporal operator search-attribute create --name NAME --type TYPE` (4 Keyword + 1 Double: within
 * the custom attribute limits of every visibility store, SQL included).
 *
 * Set on session workflows only (one per conversation, so one per batch task):
 * - `AgentSessionId`, `AgentBatchId`, `AgentTaskId` when the client starts the session;
 * - `AgentStatus` (`running` while a turn runs, then the turn's result subtype: `success`,
 *   `error_max_turns`, `error_during_execution`, …) and `AgentCostUsd` (session total, USD),
 *   upserted by the session workflow around each turn.
 */
export const SEARCH_ATTRIBUTES = {
  AgentSessionId: 'Keyword',
  AgentBatchId: 'Keyword',
  AgentTaskId: 'Keyword',
  AgentStatus: 'Keyword',
  AgentCostUsd: 'Double',
} as const;

/** Typed keys of {@link SEARCH_ATTRIBUTES} (usable in workflows and clients). */
export const SA = {
  sessionId: defineSearchAttributeKey('AgentSessionId', SearchAttributeType.KEYWORD),
  batchId: defineSearchAttributeKey('AgentBatchId', SearchAttributeType.KEYWORD),
  taskId: defineSearchAttributeKey('AgentTaskId', SearchAttributeType.KEYWORD),
  status: defineSearchAttributeKey('AgentStatus', SearchAttributeType.KEYWORD),
  costUsd: defineSearchAttributeKey('AgentCostUsd', SearchAttributeType.DOUBLE),
} as const;

/** `AgentStatus` while a turn runs (and from the session's start until its first turn ends). */
export const AGENT_STATUS_RUNNING = 'running';

/** What a client knows about a session when it starts it. */
export interface SessionSearchAttributes {
  sessionId: string;
  batchId?: string;
  taskId?: string;
}

/** Search attributes a client sets when it starts a session workflow. */
export function sessionStartSearchAttributes(a: SessionSearchAttributes): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [
    { key: SA.sessionId, value: a.sessionId },
    { key: SA.status, value: AGENT_STATUS_RUNNING },
    { key: SA.costUsd, value: 0 },
  ];
  if (a.batchId !== undefined) pairs.push({ key: SA.batchId, value: a.batchId });
  if (a.taskId !== undefined) pairs.push({ key: SA.taskId, value: a.taskId });
  return pairs;
}

/** Quotes a value for a Temporal visibility query (`AgentBatchId = '…'`). */
export function quoteQueryValue(v: string): string {
  return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Message of a server's refusal of unregistered search attributes (start or upsert). */
export function isUnknownSearchAttributeError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const msg = e instanceof Error ? e.message : String(e);
    if (/search attribute/i.test(msg) && /(not defined|not registered|unknown|invalid|no mapping)/i.test(msg))
      return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
