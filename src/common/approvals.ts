/**
 * Durable approvals: wire types shared by the turn workflow, the client, the CLI and the
 * stream-json control protocol. The tool input never travels here: an approver reads it from
 * the transcript store (the assistant line), and a changed input is stored before it is named.
 */

/** A tool call waiting for a person's (or a program's) decision. */
export interface PendingApproval {
  /** Stable id of the approval: `<session id>:<tool_use id>`. */
  approvalId: string;
  sessionId: string;
  /** Workflow id of the waiting turn (where the answer goes). */
  turnWorkflowId: string;
  toolName: string;
  toolUseId: string;
  /** Uuid of the assistant line holding the tool_use (its input is there). */
  assistantUuid: string;
  /** Why it is asked (a hook's reason, or the permission mode's). */
  reason: string;
  /** When the turn started waiting (ISO time). */
  requestedAt: string;
  /** When the default decision applies (ISO time), or null without a timeout. */
  expiresAt: string | null;
  /** Decision applied at `expiresAt`. */
  onTimeout: 'allow' | 'deny';
}

/** The answer to an approval (the argument of the turn's `answerApproval` update). */
export interface ApprovalAnswer {
  approvalId: string;
  behavior: 'allow' | 'deny';
  /** Deny: the text the model gets (capped at 2 KB). */
  message?: string;
  /** Allow: ref of a changed input stored with {@link storeApprovalInput} (`updatedInput`). */
  inputRef?: string;
  /** Who answered (`cli`, `sdk`, `webhook`, `timeout`), for the record. */
  by?: string;
}

/** Approval settings of a turn: who may answer is anyone; these say how long to wait. */
export interface ApprovalSettings {
  /** Longest wait (ms); then `onTimeout` applies. null: wait forever. */
  timeoutMs: number | null;
  /** @default "deny" */
  onTimeout: 'allow' | 'deny';
}

/** `AgentStatus` of a session whose turn waits for an approval. */
export const WAITING_FOR_APPROVAL_STATUS = 'waiting_for_approval';

/** The approval id of a tool call. */
export function approvalIdOf(sessionId: string, toolUseId: string): string {
  return `${sessionId}:${toolUseId}`;
}

/** The session id in an approval id. */
export function sessionOfApproval(approvalId: string): string | null {
  const i = approvalId.lastIndexOf(':');
  return i > 0 ? approvalId.slice(0, i) : null;
}
