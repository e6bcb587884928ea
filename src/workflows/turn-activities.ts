import { ActivityCancellationType, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Priority } from '@temporalio/common';
import type { Activities } from '../activities/types';
import type { ActivityTimeouts } from '../common/turn';
import { activityTimeouts } from './timeouts';
import { isPatched } from './patches';

/**
 * How a tool run is cancelled: waited for until its activity has stopped (its command killed).
 * Histories of turns started before this option existed replay with the old behaviour (TRY_CANCEL).
 * For every tool proxy, the shared queue's and a workspace host's alike.
 */
export function toolCancellationType(): ActivityCancellationType {
  return isPatched('waitForCancelledTools')
    ? ActivityCancellationType.WAIT_CANCELLATION_COMPLETED
    : ActivityCancellationType.TRY_CANCEL;
}

/** The activities a turn calls, with their timeouts and retry policies. */
export type TurnActivities = Pick<
  Activities,
  | 'callModel'
  | 'compactContext'
  | 'runTool'
  | 'recordTranscript'
  | 'recordPrompt'
  | 'loadContext'
  | 'connectMcpServers'
  | 'runHooks'
  | 'prepareCommand'
  | 'planAgent'
  | 'agentWorktree'
  | 'recordAgentResult'
  | 'readTaskCall'
  | 'recordNotification'
> & {
  /**
   * The same `runTool` and `recordTranscript` as local activities: run by the worker that runs
   * the workflow task, without a round trip through the server's task queues. For short,
   * bounded, idempotent calls only (Read, Glob, Grep; transcript lines and the prompt's line), see {@link LOCAL_TOOLS}.
   */
  local: Pick<Activities, 'runTool' | 'recordTranscript' | 'recordPrompt'>;
};

/**
 * Tools a turn runs as local activities: read-only and bounded (and re-runnable: a local
 * activity whose worker dies runs again with the workflow task). Everything that writes, runs
 * commands or can take long (Bash, Edit, Write, …) stays a normal activity with heartbeats.
 */
export const LOCAL_TOOLS: ReadonlySet<string> = new Set(['Read', 'Glob', 'Grep']);

/**
 * Activity stubs of one turn. Model calls (and the compaction's summarizing call) stream with
 * heartbeats and retry with backoff up to `modelMaxAttempts`; their non-retryable failures are
 * marked so by the activity itself (so the type list does not travel in every retry policy).
 * Tool runs and transcript writes heartbeat every second and retry up to 20 times. A cancelled
 * tool run (an interrupt) is waited for until its activity has stopped (its command killed), so
 * that a turn never ends while a command it started still runs. Loading a new session's context
 * (a few files and git commands) has a minute and 5 attempts. Local activities get 30 s per
 * attempt and 3 attempts; a call that still fails then goes to the normal activity (see
 * `ToolRuns`). `priority` (a rate pool member's `ratePriority` and `rateFairnessKey`) goes to the
 * model-call tasks.
 */
export function turnActivities(timeouts: ActivityTimeouts | undefined, priority?: Priority): TurnActivities {
  const t = activityTimeouts(timeouts);
  const model = proxyActivities<Activities>({
    // A rate pool member's priority and fairness key also order its model calls in the task queue.
    ...(priority ? { priority } : {}),
    startToCloseTimeout: t.modelStartToCloseMs,
    heartbeatTimeout: t.modelHeartbeatMs,
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '60s',
      maximumAttempts: t.modelMaxAttempts,
    },
  });
  const tools = proxyActivities<Activities>({
    // Histories of turns started before this option existed replay with the old behaviour.
    cancellationType: toolCancellationType(),
    startToCloseTimeout: t.toolStartToCloseMs,
    heartbeatTimeout: t.toolHeartbeatMs,
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 20 },
  });
  const setup = proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 5 },
  });
  const local = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '2s', maximumAttempts: 3 },
  });
  return {
    loadContext: setup.loadContext,
    callModel: model.callModel,
    compactContext: model.compactContext,
    runTool: tools.runTool,
    recordTranscript: tools.recordTranscript,
    recordPrompt: tools.recordPrompt,
    connectMcpServers: tools.connectMcpServers,
    runHooks: tools.runHooks,
    prepareCommand: tools.prepareCommand,
    planAgent: tools.planAgent,
    agentWorktree: tools.agentWorktree,
    recordAgentResult: tools.recordAgentResult,
    readTaskCall: tools.readTaskCall,
    recordNotification: tools.recordNotification,
    local: { runTool: local.runTool, recordTranscript: local.recordTranscript, recordPrompt: local.recordPrompt },
  };
}
