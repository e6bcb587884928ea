import { Worker } from '@temporalio/worker';
import type { NativeConnection } from '@temporalio/worker';
import type { Config } from '../config';
import { createActivities } from '../activities';
import type { ActivityDeps } from '../activities';
import type { TranscriptStore } from '../store/transcript-store';
import { workflowBundle } from './workflow-bundle';

export { workflowBundle };

/** Options of {@link createRunnerWorker}. */
export interface RunnerWorkerOptions {
  connection: NativeConnection;
  config: Config;
  store: TranscriptStore;
  /** @default config.temporal.taskQueue */
  taskQueue?: string;
  /** Overrides the Anthropic client (tests). */
  anthropic?: ActivityDeps['anthropic'];
  /** Fault points of model calls (the fault suite only). */
  modelFaults?: ActivityDeps['modelFaults'];
  env?: NodeJS.ProcessEnv;
  /** How long a dead worker's sticky workflow tasks wait before going to another worker (ms). @default config.worker.stickyQueueTimeoutMs */
  stickyQueueScheduleToStartTimeoutMs?: number;
  identity?: string;
}

/**
 * Creates a worker that runs the runner's workflows and activities on one task queue.
 * Tuning comes from `config.worker`.
 */
export async function createRunnerWorker(opts: RunnerWorkerOptions): Promise<Worker> {
  const { config } = opts;
  return Worker.create({
    connection: opts.connection,
    namespace: config.temporal.namespace,
    taskQueue: opts.taskQueue ?? config.temporal.taskQueue,
    workflowBundle: await workflowBundle(),
    activities: createActivities({
      store: opts.store,
      config,
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.anthropic ? { anthropic: opts.anthropic } : {}),
      ...(opts.modelFaults ? { modelFaults: opts.modelFaults } : {}),
    }),
    maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivityTaskExecutions,
    maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTaskExecutions,
    maxCachedWorkflows: config.worker.maxCachedWorkflows,
    shutdownGraceTime: config.worker.shutdownGraceTimeMs,
    stickyQueueScheduleToStartTimeout: opts.stickyQueueScheduleToStartTimeoutMs ?? config.worker.stickyQueueTimeoutMs,
    maxHeartbeatThrottleInterval: config.worker.heartbeatThrottleMs,
    ...(opts.identity ? { identity: opts.identity } : {}),
  });
}
