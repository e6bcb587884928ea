import { CancellationScope, getExternalWorkflowHandle } from '@temporalio/workflow';
import type { AgentRunReport } from '../common/agent-run';
import type { TurnInput, TurnOutcome } from '../common/turn';
import { taskFinishedSignal } from './messages';
import type { TurnState } from './turn-state';

/**
 * The outcome of a turn with what its input asks it to report of itself: a subagent's turn its
 * hand-back figures (`agent`), a turn a task notification started its `origin`. Other turns'
 * outcomes are returned as they are.
 */
export function withOrigin(input: TurnInput, outcome: TurnOutcome, state: TurnState): TurnOutcome {
  if (input.notification) return { ...outcome, origin: input.notification.origin };
  if (!input.agent) return outcome;
  return { ...outcome, agent: agentReport(outcome, state) };
}

/**
 * A subagent run's figures, as Claude Code's hand-back and `<usage>` give them: its last
 * context size (input, cache and output tokens of its last model call), its tool calls, its wall
 * time and its cost (its own children included). An interrupted run (TaskStop, the parent's
 * interrupt) is killed, by its parent unless the session says otherwise.
 */
export function agentReport(outcome: TurnOutcome, state: TurnState): AgentRunReport {
  const d = state.data;
  const aborted = outcome.terminalReason === 'aborted_tools' || outcome.terminalReason === 'aborted_streaming';
  return {
    usage: {
      totalTokens: d.lastContext?.tokens ?? 0,
      toolUses: d.toolUses ?? 0,
      durationMs: outcome.durationMs,
      costUsd: outcome.costUsd,
    },
    toolsUsed: d.toolsUsed ?? [],
    ...(aborted ? { killedBy: 'parent' as const } : {}),
  };
}

/** A background agent's end, told to its session (which records it and queues its notification). */
export async function tellSessionFinished(input: TurnInput, outcome: TurnOutcome): Promise<void> {
  const run = input.agent;
  if (!run || !input.sessionWorkflowId) return;
  const report = outcome.agent;
  if (!report) return;
  const status = report.killedBy !== undefined ? 'killed' : outcome.isError ? 'failed' : 'completed';
  await CancellationScope.nonCancellable(() =>
    getExternalWorkflowHandle(input.sessionWorkflowId ?? '')
      .signal(taskFinishedSignal, {
        taskId: run.agentId,
        runId: run.runId,
        status,
        endedAtMs: Date.now(),
        usage: report.usage,
        modelUsage: outcome.modelUsage,
        refs: {
          ...(outcome.leafUuid ? { leafUuid: outcome.leafUuid } : {}),
          ...(outcome.lastAssistantUuid ? { resultUuid: outcome.lastAssistantUuid } : {}),
          outputFile: run.outputFile,
        },
        toolsUsed: report.toolsUsed,
        ...(report.killedBy !== undefined ? { killedBy: report.killedBy } : {}),
      })
      .catch(() => undefined),
  );
}
