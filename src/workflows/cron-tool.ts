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
import type { CronCallRef, CronCommand, CronOutcome, CronReply, CronTaskInfo } from '../common/cron';
import type { RunToolInput, RunToolSummary } from '../common/tools';
import { CRON_TOOL_NAMES } from '../common/tools';
import type { TurnInput } from '../common/turn';
import { cronCommandSignal, cronReplySignal } from './cron-messages';
import { offeredTools } from './task-tools';

/** How long a turn waits for its session's answer, ms. */
const REPLY_TIMEOUT_MS = 60_000;

const acts = proxyActivities<Pick<Activities, 'readCronCall' | 'recordCronResult'>>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10 },
});

/**
 * A turn's CronCreate, CronList and CronDelete calls, answered by the workflow: the activity
 * reads and checks the call (a new job's id, 8 hex digits as 2.1.328's, is drawn here, so a
 * retried activity computes the same fire time), the session keeps the job as a task and arms its
 * timer (signal `cronCommand`, answered by `cronReply`), and the activity writes 2.1.328's text.
 * Offered only when the turn's tools name the tool and the turn has a session.
 *
 * New tools that old histories never call (they had no such tools): no patch.
 */
export class CronTool {
  private readonly replies = new Map<string, CronReply>();

  constructor(private readonly input: TurnInput) {
    setHandler(cronReplySignal, (r) => {
      this.replies.set(r.requestId, r);
    });
  }

  /** True for a call this class answers. */
  handles(name: string): boolean {
    return (
      (CRON_TOOL_NAMES as readonly string[]).includes(name) &&
      this.input.sessionWorkflowId !== undefined &&
      (this.input.options.tools ?? []).includes(name)
    );
  }

  async run(call: RunToolInput): Promise<RunToolSummary> {
    const ref: CronCallRef = {
      sessionId: call.sessionId,
      assistantUuid: call.assistantUuid,
      toolUseId: call.toolUseId,
      toolName: call.toolName,
      resultUuid: call.resultUuid,
      parentUuid: call.parentUuid ?? call.assistantUuid,
      cwd: call.cwd,
    };
    const id = uuid4().replace(/-/g, '').slice(0, 8);
    const read = await acts.readCronCall({ ...ref, id, nowMs: Date.now(), permission: call.permission });
    if (read.kind === 'invalid') return read.result;
    const requestId = uuid4();
    const replyTo = workflowInfo().workflowId;
    let outcome: CronOutcome;
    if (read.kind === 'create') {
      const job = this.withScheduler(read.job);
      await this.ask({ kind: 'create', requestId, replyTo, toolUseId: call.toolUseId, id, job });
      outcome = { kind: 'created', id, job };
    } else if (read.kind === 'list') {
      const reply = await this.ask({ kind: 'list', requestId, replyTo });
      outcome = { kind: 'listed', jobs: reply?.jobs ?? [] };
    } else {
      const reply = await this.ask({ kind: 'delete', requestId, replyTo, id: read.id });
      outcome = {
        kind: 'deleted',
        id: read.id,
        deleted: reply?.deleted === true,
        ...(reply?.durable ? { durable: true } : {}),
      };
    }
    return acts.recordCronResult({ ...ref, outcome });
  }

  /** A subagent's job carries the agent's tools and permission mode to its fires. */
  private withScheduler(job: CronTaskInfo): CronTaskInfo {
    const agent = this.input.agent;
    if (!agent) return job;
    const o = this.input.options;
    return {
      ...job,
      scheduledBy: { agentType: agent.agentType, tools: offeredTools(o), permissionMode: o.permissionMode },
    };
  }

  private async ask(command: CronCommand): Promise<CronReply | null> {
    const id = this.input.sessionWorkflowId;
    if (!id) return null;
    const sent = await CancellationScope.nonCancellable(() =>
      getExternalWorkflowHandle(id)
        .signal(cronCommandSignal, command)
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
