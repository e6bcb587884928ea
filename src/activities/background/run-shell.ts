/**
 * `runBackgroundShell`: runs a background command (Bash with `run_in_background`) for as long as
 * it runs, as one long activity on the workspace's host. It reads the command from the stored
 * tool_use (content never travels in workflow history), runs it as a foreground command runs
 * (bash under the supervisor, in its own process group, dying with its worker through the
 * parent-death signal), appends its stdout and stderr to the output file as they come, and ends
 * the file with 2.1.328's trailer (`\n[exited with code N]\n`, `\n[killed]\n`).
 *
 * - It heartbeats while the command runs: a worker killed with the command's process (and the
 *   command with it) stops the heartbeats, and the workflow learns of the loss from the heartbeat
 *   timeout. It is never retried (Bash is not idempotent; see `shellTaskWorkflow`).
 * - A cancellation (`TaskStop`, an interrupt) kills the process group: SIGTERM, SIGKILL after
 *   {@link BACKGROUND_KILL_GRACE_MS}; so does reaching `timeoutMs`.
 */
import { Context, log } from '@temporalio/activity';
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import type { RunShellInput, RunShellResult } from '../../common/shell-tasks';
import { outputTrailer } from '../../common/shell-tasks';

export type { RunShellInput, RunShellResult } from '../../common/shell-tasks';
import { toolEnvironment } from '../../env/child-env';
import type { TranscriptStore } from '../../store/transcript-store';
import { commandLine, exitStatus, shellEnvironment } from '../tools/bash';
import type { MonitorEnd, TaskEventMessage } from '../../common/monitor';
import { TASK_EVENT_SIGNAL } from '../../common/monitor';
import { storeNotificationBlocks } from '../agents/notifications';
import { LineBatcher } from '../monitor/batcher';
import { monitorEventNotification } from '../monitor/texts';

/** Time between SIGTERM and SIGKILL when a background command is stopped or times out, ms. */
export const BACKGROUND_KILL_GRACE_MS = 2_000;
/** Heartbeat period while a background command runs, ms. */
export const BACKGROUND_HEARTBEAT_MS = 1_000;

/** Creates `runBackgroundShell`. */
export function createRunBackgroundShell(store: TranscriptStore): (input: RunShellInput) => Promise<RunShellResult> {
  return async (i) => {
    const line = await store.get(i.sessionId, i.assistantUuid);
    const content = Array.isArray(line?.message?.content) ? line.message.content : [];
    const use = content.find((b) => b.type === 'tool_use' && (b as { id?: string }).id === i.toolUseId) as
      { input?: { command?: unknown } } | undefined;
    const command = use?.input?.command;
    if (typeof command !== 'string') {
      throw new Error(
        `session ${i.sessionId}: no Bash command under tool_use ${i.toolUseId} in line ${i.assistantUuid}`,
      );
    }
    const ctx = Context.current();
    return runShell(command, i, ctx, i.monitor ? monitorSink(store, i, i.monitor, ctx) : undefined);
  };
}

/**
 * Where a monitor's events go: each is stored as its notification and signalled to the session
 * (`taskEvent`, a ref), through the worker's client. Without a session nobody is told.
 */
function monitorSink(
  store: TranscriptStore,
  i: RunShellInput,
  m: NonNullable<RunShellInput['monitor']>,
  ctx: Context,
): MonitorSink {
  let seq = 0;
  return {
    event: async (text) => {
      if (!m.sessionWorkflowId) return;
      const blocks = [monitorEventNotification(i.taskId, m.description, text)];
      try {
        const ref = await storeNotificationBlocks(store, i.sessionId, blocks);
        const msg: TaskEventMessage = { taskId: i.taskId, runId: m.runId, seq: ++seq, ref };
        await ctx.client.workflow.getHandle(m.sessionWorkflowId).signal(TASK_EVENT_SIGNAL, msg);
      } catch (e) {
        log.warn('monitor event not delivered', { taskId: i.taskId, error: String(e) });
      }
    },
  };
}

/** What a monitor does with each event (the text of a batch of stdout lines). */
export interface MonitorSink {
  event(text: string): Promise<void>;
}

/**
 * Runs `command` to its end, writing its output to `i.outputFile` (exported for tests). With
 * `monitor`, stdout lines are also events (batched, {@link LineBatcher}) handed to it in order,
 * and stderr goes to the file only; the result waits for the last event to be handed over. A
 * stopped monitor hands over nothing more; an expired one hands over the lines it printed first.
 */
export function runShell(
  command: string,
  i: Pick<RunShellInput, 'cwd' | 'outputFile' | 'timeoutMs'>,
  ctx: Pick<Context, 'heartbeat' | 'cancellationSignal'>,
  monitor?: MonitorSink,
): Promise<RunShellResult> {
  return new Promise<RunShellResult>((resolve, reject) => {
    const out = createWriteStream(i.outputFile, { flags: 'a', mode: 0o600 });
    const [file, args] = commandLine(monitor ? command : `exec 2>&1; ${command}`);
    const child = spawn(file, args, {
      cwd: i.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', monitor ? 'pipe' : 'ignore'],
      env: shellEnvironment(toolEnvironment()),
    });
    let bytes = 0;
    let killed: 'timeout' | 'stopped' | undefined;
    let done = false;
    const counts: MonitorEnd = { events: 0, wroteStderr: false, hadOutput: false };
    let delivered: Promise<void> = Promise.resolve();
    const batcher = monitor
      ? new LineBatcher((text) => {
          // A stopped monitor tells nothing more; an expired one still hands over what it printed.
          if (killed === 'stopped') return;
          counts.events++;
          // The sink reports its own failures: one lost event does not stop the watch.
          delivered = delivered.then(() => monitor.event(text).catch(() => undefined));
        })
      : undefined;
    const signalGroup = (sig: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        // The group is gone already.
      }
    };
    const kill = (why: 'timeout' | 'stopped'): void => {
      if (killed !== undefined || done) return;
      killed = why;
      signalGroup('SIGTERM');
      setTimeout(() => signalGroup('SIGKILL'), BACKGROUND_KILL_GRACE_MS).unref();
    };
    const onAbort = (): void => kill('stopped');
    const timer = setTimeout(() => kill('timeout'), i.timeoutMs);
    const beat = setInterval(() => ctx.heartbeat({ outputBytes: bytes }), BACKGROUND_HEARTBEAT_MS);
    ctx.cancellationSignal.addEventListener('abort', onAbort, { once: true });
    ctx.heartbeat({ outputBytes: 0 });

    const finish = (end: RunShellResult['end']): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(beat);
      ctx.cancellationSignal.removeEventListener('abort', onAbort);
      const trailer = outputTrailer(end);
      batcher?.end();
      void delivered.then(() =>
        out.end(trailer === null ? '' : `\n${trailer}\n`, () =>
          resolve({ end, outputBytes: bytes, ...(monitor ? { monitor: counts } : {}) }),
        ),
      );
    };
    child.stdout?.on('data', (b: Buffer) => {
      bytes += b.length;
      out.write(b);
      if (b.length > 0) counts.hadOutput = true;
      batcher?.push(b);
    });
    child.stderr?.on('data', (b: Buffer) => {
      bytes += b.length;
      out.write(b);
      counts.wroteStderr = true;
    });
    child.on('error', (e) => {
      done = true;
      clearTimeout(timer);
      clearInterval(beat);
      out.end();
      reject(e);
    });
    child.on('close', (code, signal) => {
      if (killed !== undefined) finish({ kind: killed });
      else finish({ kind: 'exited', exitCode: exitStatus(code, signal) ?? 1 });
    });
  });
}
