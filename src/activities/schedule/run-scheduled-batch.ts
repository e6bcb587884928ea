/**
 * Activity `runScheduledBatch`: one fire of a schedule runs `agent-runner batch` as a child
 * process of the worker, with the fire's batch id. The batch is resumable by that id, so a retry
 * (a lost worker, a crash) runs it again and only the tasks it had not finished start.
 */
import { spawn } from 'node:child_process';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { RunScheduledBatchInput, ScheduledBatchResult } from '../../common/schedule';
import { binPath } from '../../host/package-root';

/** Seconds between heartbeats of a running scheduled batch. */
const HEARTBEAT_MS = 5_000;
/** Characters of the batch's output kept for the result and for failure messages. */
const TAIL_CHARS = 4_000;

/** Dependencies of {@link createRunScheduledBatch}. */
export interface RunScheduledBatchDeps {
  /** Environment of the batch process, over the worker's own. @default none */
  env?: NodeJS.ProcessEnv;
  /** The `agent-runner` script. @default this package's bin/agent-runner.js */
  bin?: string;
}

/** The `agent-runner batch` command line of a fire (after the script). */
export function scheduledBatchArgv(input: RunScheduledBatchInput): string[] {
  const args = input.args.map((a) => a.split('{batch_id}').join(input.batchId));
  return ['batch', input.taskFile, ...args, '--batch-id', input.batchId, '--progress', 'lines'];
}

/**
 * Creates `runScheduledBatch`. The batch runs against the worker's own server, namespace and task
 * queue (its workers run the tasks), in the schedule's directory; the activity heartbeats while it
 * runs and kills it when cancelled.
 * @returns the batch's exit code (0 or 1) and summary line
 * @throws ApplicationFailure `ScheduledBatch.Refused` (not retried) when the batch exits 2 (a
 *   usage error: missing task file, bad flag); `ScheduledBatch.Failed` (retried) for any other end
 */
export function createRunScheduledBatch(
  deps: RunScheduledBatchDeps = {},
): (input: RunScheduledBatchInput) => Promise<ScheduledBatchResult> {
  return async (input) => {
    const ctx = Context.current();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...deps.env,
      TEMPORAL_NAMESPACE: ctx.info.workflowNamespace,
      AGENT_RUNNER_TASK_QUEUE: ctx.info.taskQueue,
    };
    const child = spawn(process.execPath, [deps.bin ?? binPath(), ...scheduledBatchArgv(input)], {
      cwd: input.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const keep = (s: string, c: Buffer): string => (s + c.toString()).slice(-TAIL_CHARS);
    child.stdout.on('data', (c: Buffer) => (stdout = keep(stdout, c)));
    child.stderr.on('data', (c: Buffer) => (stderr = keep(stderr, c)));
    const onAbort = (): void => {
      child.kill('SIGINT'); // the batch stops starting tasks; running turns go on in Temporal
    };
    ctx.cancellationSignal.addEventListener('abort', onAbort, { once: true });
    ctx.heartbeat();
    const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_MS);
    const end = await new Promise<{ code: number | null; signal: string | null; error?: Error }>((resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, error }));
      child.once('close', (code, signal) => resolve({ code, signal }));
    }).finally(() => {
      clearInterval(beat);
      ctx.cancellationSignal.removeEventListener('abort', onAbort);
    });
    const tail = stderr.trim().split('\n').slice(-10).join('\n');
    if (end.code === 0 || end.code === 1) {
      const summary =
        stdout
          .trim()
          .split('\n')
          .reverse()
          .find((l) => /^\d+ tasks?: /.test(l)) ?? '';
      return { batchId: input.batchId, exitCode: end.code, summary };
    }
    if (end.code === 2) {
      throw ApplicationFailure.nonRetryable(
        `agent-runner batch ${input.batchId} refused to run: ${tail}`,
        'ScheduledBatch.Refused',
      );
    }
    throw ApplicationFailure.retryable(
      `agent-runner batch ${input.batchId} ended ${end.error ? `with ${end.error.message}` : end.signal ? `by ${end.signal}` : `with exit code ${end.code}`}: ${tail}`,
      'ScheduledBatch.Failed',
    );
  };
}
