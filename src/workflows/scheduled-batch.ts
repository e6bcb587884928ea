import { ApplicationFailure, defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/types';
import type { ScheduledBatchInput, ScheduledBatchResult } from '../common/schedule';
import { SCHEDULED_START_TIME_ATTRIBUTE, scheduledBatchId, scheduledTimeFromWorkflowId } from '../common/schedule';

/** Heartbeat timeout of the batch's activity, ms: how soon a lost worker is noticed (and the batch resumed). */
export const SCHEDULED_BATCH_HEARTBEAT_TIMEOUT_MS = 60_000;

const SCHEDULED_START_TIME = defineSearchAttributeKey(SCHEDULED_START_TIME_ATTRIBUTE, SearchAttributeType.DATETIME);

const { runScheduledBatch } = proxyActivities<Activities>({
  // A nightly batch may take hours; the heartbeats say the process is alive.
  startToCloseTimeout: '7 days',
  heartbeatTimeout: SCHEDULED_BATCH_HEARTBEAT_TIMEOUT_MS,
  // A retry runs the same batch id again: finished tasks are reported, running ones re-attached,
  // only missing ones started (docs/batch.md). A refused batch (bad file or flags) is not retried.
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
});

/**
 * One fire of a schedule (`agent-runner schedule`): runs the schedule's task file as the batch
 * `<schedule id>-<scheduled time>`. The time is the fire's nominal one (the
 * `TemporalScheduledStartTime` search attribute Temporal sets, else the end of the workflow id it
 * forms), so a late, caught-up or repeated start of the same fire is the same batch and runs no
 * finished task again.
 * @throws ApplicationFailure (`ScheduledBatch.NoScheduledTime`) when started outside a schedule
 */
export async function scheduledBatchWorkflow(input: ScheduledBatchInput): Promise<ScheduledBatchResult> {
  const info = workflowInfo();
  const at = info.typedSearchAttributes.get(SCHEDULED_START_TIME) ?? scheduledTimeFromWorkflowId(info.workflowId);
  if (!at) {
    throw ApplicationFailure.nonRetryable(
      `${info.workflowId} has no scheduled time (${SCHEDULED_START_TIME_ATTRIBUTE}): scheduledBatchWorkflow is started by a schedule`,
      'ScheduledBatch.NoScheduledTime',
    );
  }
  const batchId = scheduledBatchId(input.scheduleId, at);
  return runScheduledBatch({ ...input, batchId });
}
