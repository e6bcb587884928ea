import { condition, getExternalWorkflowHandle, setHandler, workflowInfo } from '@temporalio/workflow';
import type { ApprovalAnswer, ApprovalSettings, PendingApproval } from '../common/approvals';
import { approvalIdOf } from '../common/approvals';
import type { ToolUseSummary } from '../common/tools';
import type { TurnInput } from '../common/turn';
import { answerApprovalUpdate, approvalStatusSignal, pendingApprovalsQuery } from './approval-messages';
import type { Interrupts } from './interrupts';

/** Longest deny message kept (characters). */
const MAX_MESSAGE = 2048;

/**
 * The turn's durable approvals: a call that needs a decision is recorded as pending (tool name,
 * tool_use id, a stable approval id; its input stays in the store) and the turn waits on a
 * workflow condition, which holds no worker slot and survives restarts of the client, the
 * worker and the server. Anyone may answer with the `answerApproval` update; the configured
 * timeout applies the default decision. An interrupt ends the wait.
 */
export class Approvals {
  private readonly pending = new Map<string, PendingApproval>();
  private readonly answers = new Map<string, ApprovalAnswer>();

  constructor(
    private readonly input: TurnInput,
    private readonly interrupts: Interrupts,
  ) {
    setHandler(pendingApprovalsQuery, () => [...this.pending.values()]);
    setHandler(
      answerApprovalUpdate,
      (answer: ApprovalAnswer): PendingApproval => {
        const p = this.pending.get(answer.approvalId);
        if (!p) throw new Error(`no pending approval ${answer.approvalId}`);
        this.answers.set(answer.approvalId, {
          approvalId: answer.approvalId,
          behavior: answer.behavior,
          ...(answer.message !== undefined ? { message: String(answer.message).slice(0, MAX_MESSAGE) } : {}),
          ...(answer.inputRef !== undefined ? { inputRef: answer.inputRef } : {}),
          ...(answer.by !== undefined ? { by: String(answer.by).slice(0, 64) } : {}),
        });
        return p;
      },
      {
        validator: (answer: ApprovalAnswer) => {
          if (answer?.behavior !== 'allow' && answer?.behavior !== 'deny') {
            throw new Error('answerApproval: behavior must be "allow" or "deny"');
          }
          if (!this.pending.has(answer.approvalId)) {
            throw new Error(`answerApproval: no pending approval ${String(answer.approvalId)} (already answered?)`);
          }
          if (this.answers.has(answer.approvalId))
            throw new Error(`answerApproval: ${answer.approvalId} was already answered`);
        },
      },
    );
  }

  /** Approvals the turn waits for now. */
  list(): PendingApproval[] {
    return [...this.pending.values()];
  }

  /**
   * Waits for the decision on one call. Returns undefined when the turn was interrupted meanwhile.
   */
  async request(
    use: ToolUseSummary,
    assistantUuid: string,
    reason: string,
    settings: ApprovalSettings,
  ): Promise<ApprovalAnswer | undefined> {
    const { sessionId } = this.input;
    const approvalId = approvalIdOf(sessionId, use.id);
    const now = Date.now();
    this.pending.set(approvalId, {
      approvalId,
      sessionId,
      turnWorkflowId: workflowInfo().workflowId,
      toolName: use.name,
      toolUseId: use.id,
      assistantUuid,
      reason: reason.slice(0, MAX_MESSAGE),
      requestedAt: new Date(now).toISOString(),
      expiresAt: settings.timeoutMs === null ? null : new Date(now + settings.timeoutMs).toISOString(),
      onTimeout: settings.onTimeout,
    });
    await this.tellSession(true);
    try {
      const decided = await this.interrupts.run(() =>
        settings.timeoutMs === null
          ? condition(() => this.answers.has(approvalId)).then(() => true)
          : condition(() => this.answers.has(approvalId), settings.timeoutMs),
      );
      if (decided === undefined) return undefined;
      return (
        this.answers.get(approvalId) ?? {
          approvalId,
          behavior: settings.onTimeout,
          by: 'timeout',
          ...(settings.onTimeout === 'deny'
            ? { message: `No one answered the approval request for ${use.name} in time; it was denied.` }
            : {}),
        }
      );
    } finally {
      this.pending.delete(approvalId);
      this.answers.delete(approvalId);
      await this.tellSession(this.pending.size > 0);
    }
  }

  /** Lets the session show `AgentStatus = waiting_for_approval` (best effort). */
  private async tellSession(waiting: boolean): Promise<void> {
    const id = this.input.sessionWorkflowId;
    if (!id) return;
    await getExternalWorkflowHandle(id)
      .signal(approvalStatusSignal, { waiting })
      .catch(() => undefined);
  }
}
