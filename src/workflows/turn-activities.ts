import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/types';
import type { ActivityTimeouts } from '../common/turn';
import { activityTimeouts } from './timeouts';

/** The activities a turn calls, with their timeouts and retry policies. */
export type TurnActivities = Pick<
  Activities,
  'callModel' | 'compactContext' | 'runTool' | 'recordTranscript' | 'loadContext'
>;

/**
 * Activity stubs of one turn. Model calls (and the compaction's summarizing call) stream with
 * heartbeats and retry with backoff up to `modelMaxAttempts`; their non-retryable failures are
 * marked so by the activity itself (so the type list does not travel in every retry policy).
 * Tool runs and transcript writes heartbeat every second and retry up to 20 times. Loading a
 * new session's context (a few files and git commands) has a minute and 5 attempts.
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
  };
}
