import { ActivityCancellationType, patched, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/types';
import type { ActivityTimeouts } from '../common/turn';
import { activityTimeouts } from './timeouts';

/** Patch id: cancelled tool runs are awaited until they have stopped. */
const WAIT_FOR_CANCELLED_TOOLS = 'wait-for-cancelled-tools';

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
>;

/**
 * Activity stubs of one turn. Model calls (and the compaction's summarizing call) stream with
 * heartbeats and retry with backoff up to `modelMaxAttempts`; their non-retryable failures are
 * marked so by the activity itself (so the type list does not travel in every retry policy).
 * Tool runs and transcript writes heartbeat every second and retry up to 20 times. A cancelled
 * tool run (an interrupt) is waited for until its activity has stopped (its command killed), so
 * that a turn never ends while a command it started still runs. Loading a new session's context
 * (a few files and git commands) has a minute and 5 attempts.
 */
export function turnActivities(timeouts: ActivityTimeouts | undefined): TurnActivities {
  const t = activityTimeouts(timeouts);
  const model = proxyActivities<Activities>({
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
    cancellationType: patched(WAIT_FOR_CANCELLED_TOOLS)
      ? ActivityCancellationType.WAIT_CANCELLATION_COMPLETED
      : ActivityCancellationType.TRY_CANCEL,
    startToCloseTimeout: t.toolStartToCloseMs,
    heartbeatTimeout: t.toolHeartbeatMs,
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 20 },
  });
  const setup = proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 5 },
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
  };
}
