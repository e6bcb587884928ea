import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/types';
import type { RunToolInput, RunToolSummary } from '../common/tools';
import type { TurnInput } from '../common/turn';
import type { WakeupCallRef, WakeupCommand, WakeupReply } from '../common/wakeup';
import { clampWakeupDelay, wakeupDueAtMs } from '../common/wakeup';
import { wakeupCommandSignal, wakeupReplySignal } from './wakeup-messages';

/** The tool this class answers. */
export const SCHEDULE_WAKEUP_TOOL = 'ScheduleWakeup';
/** How long a turn waits for its session's answer, ms. */
const REPLY_TIMEOUT_MS = 60_000;

const acts = proxyActivities<Pick<Activities, 'readWakeupCall' | 'recordWakeupResult'>>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10 },
});

/**
 * A turn's `ScheduleWakeup` calls, answered by the workflow: the activity reads the call (and
 * stores its prompt), the delay is clamped and rounded here (workflow time), the session arms or
 * cancels its timer (signal `wakeupCommand`, answered by `wakeupReply`), and the activity writes
 * 2.1.328's result text. Offered only when the turn's tools name it and the turn has a session.
 *
 * A new tool that old histories never call (they had no such tool): no patch.
 */
export class WakeupTool {
  private readonly replies = new Map<string, WakeupReply>();

  constructor(private readonly input: TurnInput) {
    setHandler(wakeupReplySignal, (r) => {
      this.replies.set(r.requestId, r);
    });
  }

  /** True for a call this class answers. */
  handles(name: string): boolean {
    return (
      name === SCHEDULE_WAKEUP_TOOL &&
      this.input.sessionWorkflowId !== undefined &&
      (this.input.options.tools ?? []).includes(SCHEDULE_WAKEUP_TOOL)
    );
  }

  async run(call: RunToolInput): Promise<RunToolSummary> {
    const ref: WakeupCallRef = {
      sessionId: call.sessionId,
      assistantUuid: call.assistantUuid,
      toolUseId: call.toolUseId,
      toolName: call.toolName,
      resultUuid: call.resultUuid,
      parentUuid: call.parentUuid ?? call.assistantUuid,
    };
    // The permission goes with the read only: the result's record needs none.
    const read = await acts.readWakeupCall({ ...ref, permission: call.permission });
    if (read.kind === 'invalid') return read.result;
    const requestId = uuid4();
    const replyTo = workflowInfo().workflowId;
    const nowMs = Date.now();
    if (read.kind === 'stop') {
      const reply = await this.ask({ kind: 'stop', requestId, replyTo });
      return acts.recordWakeupResult({ ...ref, outcome: { kind: 'stopped', nowMs, cancelled: reply?.cancelled ?? 0 } });
    }
    const clamped = clampWakeupDelay(read.delaySeconds);
    const dueAtMs = wakeupDueAtMs(nowMs, clamped.seconds);
    await this.ask({
      kind: 'schedule',
      requestId,
      replyTo,
      toolUseId: call.toolUseId,
      dueAtMs,
      promptRef: read.promptRef,
      reason: read.reason,
    });
    return acts.recordWakeupResult({
      ...ref,
      outcome: {
        kind: 'scheduled',
        nowMs,
        dueAtMs,
        clampedDelaySeconds: clamped.seconds,
        wasClamped: clamped.wasClamped,
      },
    });
  }

  private async ask(command: WakeupCommand): Promise<WakeupReply | null> {
    const id = this.input.sessionWorkflowId;
    if (!id) return null;
    const sent = await CancellationScope.nonCancellable(() =>
      getExternalWorkflowHandle(id)
        .signal(wakeupCommandSignal, command)
        .then(
          () => true,
          () => false,
        ),
    );
    if (!sent) return null;
    await condition(() => this.replies.has(command.requestId), REPLY_TIMEOUT_MS);
    const reply = this.replies.get(command.requestId) ?? null;
    this.replies.delete(command.requestId);
    return reply;
  }
}
