import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ApprovalAnswer, PendingApproval } from '../common/approvals';

/** Update on a turn: answer one of its pending approvals; returns the approval it answered. */
export const answerApprovalUpdate = defineUpdate<PendingApproval, [ApprovalAnswer]>('answerApproval');
/** Query on a turn: the approvals it is waiting for. */
export const pendingApprovalsQuery = defineQuery<PendingApproval[]>('pendingApprovals');
/** Signal from a turn to its session: it waits for an approval (or no longer does), for `AgentStatus`. */
export const approvalStatusSignal = defineSignal<[{ waiting: boolean }]>('approvalStatus');
