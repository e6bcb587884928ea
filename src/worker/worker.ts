import { createHash, randomBytes } from 'node:crypto';
import * as os from 'node:os';
import { Worker } from '@temporalio/worker';
import type { NativeConnection, WorkerOptions } from '@temporalio/worker';
import type { Config } from '../config';
import { createActivities } from '../activities';
import type { ActivityDeps } from '../activities';
import type { TranscriptStore } from '../store/transcript-store';
import { McpClientPool } from '../activities/mcp/pool';
import { checkWorkspaceRoot, type WorkspaceHost } from '../activities/workspace/prepare';
import { workflowBundle } from './workflow-bundle';
import { RUNNER_VERSION } from '../common/version';
import { startAgentTelemetry } from '../telemetry/setup';
import { activitySpanInterceptors } from '../telemetry/activity-interceptors';

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
 * The host-specific task queue of a worker process (Temporal's worker-specific task queue
 * pattern): `<taskQueue>@<hostname>/<pid>/<random>`.
 */
export function hostQueueName(taskQueue: string): string {
  return `${taskQueue}@${os.hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
}

/**
 * Creates a worker that runs the runner's workflows and activities on one task queue. With
 * `workspace.follow` (the default) it also polls its own host queue, where turns send the tool
 * calls of the workspaces this process holds; the returned worker runs and shuts down both.
 * Tuning comes from `config.worker`.
 * @throws WorkspaceRootError when the workspace root cannot be written.
 */
export async function createRunnerWorker(opts: RunnerWorkerOptions): Promise<Worker> {
  const { config } = opts;
  const taskQueue = opts.taskQueue ?? config.temporal.taskQueue;
  let workspace: WorkspaceHost | undefined;
  if (config.workspace.follow) {
    if (config.workspace.root) checkWorkspaceRoot(config.workspace.root);
    workspace = { hostQueue: hostQueueName(taskQueue), host: os.hostname(), config: config.workspace };
  }
  // Agent metrics and events under Claude Code's names (CLAUDE_CODE_ENABLE_TELEMETRY, OTEL_*); flushed when the worker stops.
  const telemetry = startAgentTelemetry(opts.env ?? process.env);
  // MCP servers started by this worker's activities; stopped when the worker stops.
  const mcpPool = new McpClientPool(opts.env ? { env: opts.env } : {});
  const activities = createActivities({
    store: opts.store,
    config,
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.anthropic ? { anthropic: opts.anthropic } : {}),
    ...(opts.modelFaults ? { modelFaults: opts.modelFaults } : {}),
    ...(workspace ? { workspace } : {}),
    ...(telemetry?.metrics ? { metrics: telemetry.metrics } : {}),
    ...(telemetry?.events ? { events: telemetry.events } : {}),
    ...(telemetry?.tracer ? { tracer: telemetry.tracer } : {}),
    mcpPool,
  });
  const bundle = await workflowBundle();
  const main = await Worker.create({
    connection: opts.connection,
    namespace: config.temporal.namespace,
    taskQueue,
    workflowBundle: bundle,
    ...versioningOptions(config, shortBuildId(bundle.code)),
    activities,
    maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivityTaskExecutions,
    maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTaskExecutions,
    maxCachedWorkflows: config.worker.maxCachedWorkflows,
    shutdownGraceTime: config.worker.shutdownGraceTimeMs,
    shutdownForceTime: config.worker.shutdownForceTimeMs,
    stickyQueueScheduleToStartTimeout: opts.stickyQueueScheduleToStartTimeoutMs ?? config.worker.stickyQueueTimeoutMs,
    maxHeartbeatThrottleInterval: config.worker.heartbeatThrottleMs,
    ...activitySpanInterceptors(telemetry?.tracer),
    ...(opts.identity ? { identity: opts.identity } : {}),
  });
  const closeMcp = (w: Worker): Worker => {
    const run = w.run.bind(w);
    w.run = async () => {
      try {
        await run();
      } finally {
        await mcpPool.close();
        await telemetry?.shutdown().catch(() => undefined);
      }
    };
    return w;
  };
  if (!workspace) return closeMcp(main);
  const host = await Worker.create({
    connection: opts.connection,
    namespace: config.temporal.namespace,
    taskQueue: workspace.hostQueue,
    activities,
    maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivityTaskExecutions,
    shutdownGraceTime: config.worker.shutdownGraceTimeMs,
    shutdownForceTime: config.worker.shutdownForceTimeMs,
    ...activitySpanInterceptors(telemetry?.tracer),
    ...(opts.identity ? { identity: `${opts.identity}/host` } : {}),
  });
  return closeMcp(withHostWorker(main, host));
}

/**
 * The worker's build id: this package's version and 12 hex digits of the workflow bundle's
 * SHA-256 (48 bits: unique enough to tell builds apart). The SDK's default (`@temporalio/worker@
 * <version>+<64 hex digits>`) is written into every workflow task and activity start event: about
 * 70 bytes more each, 500 more per step (DESIGN.md's budget is 4 KB a step). Informational for
 * an unversioned worker; the build id of its Worker Deployment version when `worker.deploymentName`
 * is set and `worker.buildId` is not.
 */
export function shortBuildId(bundleCode: string): string {
  return `agent-runner@${RUNNER_VERSION}+${createHash('sha256').update(bundleCode).digest('hex').slice(0, 12)}`;
}

/**
 * The shared-queue worker's versioning options: with `worker.deploymentName`, Worker Versioning
 * as the version `{deploymentName, buildId}` (the build id defaults to {@link shortBuildId}),
 * workflow types without their own behaviour taking `worker.defaultVersioningBehavior`; without
 * it, an unversioned worker that reports `buildId` only. The host-queue worker stays
 * unversioned: its queue is its process's own, so no other build ever polls it, and a version
 * listing it would keep the next build from becoming current (its queue is not polled there).
 */
export function versioningOptions(
  config: Pick<Config, 'worker'>,
  buildId: string,
): Pick<WorkerOptions, 'buildId' | 'workerDeploymentOptions'> {
  const { deploymentName, defaultVersioningBehavior } = config.worker;
  if (deploymentName === null) return { buildId };
  return {
    workerDeploymentOptions: {
      version: { deploymentName, buildId: config.worker.buildId ?? buildId },
      useWorkerVersioning: true,
      defaultVersioningBehavior,
    },
  };
}

/** Makes `main.run()` run (and `main.shutdown()` stop) the host-queue worker too. */
function withHostWorker(main: Worker, host: Worker): Worker {
  const runMain = main.run.bind(main);
  const shutdownMain = main.shutdown.bind(main);
  const stopHost = (): void => {
    if (host.getState() === 'RUNNING') host.shutdown();
  };
  main.run = async () => {
    const hostRun = host.run();
    try {
      await runMain();
    } finally {
      stopHost();
      await hostRun.catch(() => undefined);
    }
  };
  main.shutdown = () => {
    stopHost();
    shutdownMain();
  };
  return main;
}
