import { Context } from '@temporalio/activity';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import type { RunToolInput } from '../../src/common/tools';
import { workflowBundle } from '../../src/worker/worker';
import type { RunnerEnv } from './runner-env';
import { temporalAddress } from './runner-env';

/** Tool-use ids starting with this run slowly (see {@link startSlowToolsWorker}). */
export const SLOW_TOOL_PREFIX = 'toolu_slow';

/**
 * An in-process worker on the env's task queue whose `runTool` first waits `slowMs` (heartbeating,
 * and giving up when cancelled) for every tool_use whose id starts with {@link SLOW_TOOL_PREFIX}:
 * a way to hold a read-only tool (which has no slow variant) in flight while a test interrupts.
 */
export async function startSlowToolsWorker(
  env: RunnerEnv,
  slowMs: number,
): Promise<{ worker: Worker; close(): Promise<void> }> {
  const connection = await NativeConnection.connect({ address: temporalAddress() });
  const activities = createActivities({ store: env.store, config: env.config, env: env.workerEnv });
  const realRunTool = activities.runTool;
  activities.runTool = async (input: RunToolInput) => {
    if (input.toolUseId.startsWith(SLOW_TOOL_PREFIX) && input.skipReason === undefined) {
      const ctx = Context.current();
      const beat = setInterval(() => ctx.heartbeat(), 200);
      try {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([new Promise((r) => (timer = setTimeout(r, slowMs))), ctx.cancelled]).finally(() =>
          clearTimeout(timer),
        );
      } finally {
        clearInterval(beat);
      }
    }
    return realRunTool(input);
  };
  const worker = await Worker.create({
    connection,
    namespace: env.config.temporal.namespace,
    taskQueue: env.taskQueue,
    workflowBundle: await workflowBundle(),
    activities,
    stickyQueueScheduleToStartTimeout: 1000,
  });
  const run = worker.run();
  return {
    worker,
    async close() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await run.catch(() => undefined);
      await connection.close().catch(() => undefined);
    },
  };
}
