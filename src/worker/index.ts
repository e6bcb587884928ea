/**
 * Worker entry point (`@durable-agent-runner/agent-runner/worker`): everything that runs work in this process:
 * the worker factory, the activities, the embedded Temporal dev server launcher, and
 * {@link openRuntime} (connect, or start an embedded server, plus an in-process worker).
 */
export { openRuntime, runtimeLogLevel } from '../host/runtime';
export type { Runtime, OpenRuntimeOptions } from '../host/runtime';
export { createRunnerWorker, workflowBundle } from './worker';
export type { RunnerWorkerOptions } from './worker';
export { startDevServer, findTemporalCli, DevServerStartError, TemporalCliNotFoundError } from '../host/dev-server';
export type { DevServer, StartDevServerOptions } from '../host/dev-server';
export { createActivities } from '../activities';
export type { Activities, ActivityDeps } from '../activities';
