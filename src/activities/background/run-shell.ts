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
import { Context } from '@temporalio/activity';
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import type { RunShellInput, RunShellResult } from '../../common/shell-tasks';
import { outputTrailer } from '../../common/shell-tasks';

export type { RunShellInput, RunShellResult } from '../../common/shell-tasks';
import { toolEnvironment } from '../../env/child-env';
import type { TranscriptStore } from '../../store/transcript-store';
import { commandLine, exitStatus, shellEnvironment } from '../tools/bash';

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
    return runShell(command, i, Context.current());
  };
}

/** Runs `command` to its end, writing its output to `i.outputFile` (exported for tests). */
export function runShell(
  command: string,
  i: Pick<RunShellInput, 'cwd' | 'outputFile' | 'timeoutMs'>,
  ctx: Pick<Context, 'heartbeat' | 'cancellationSignal'>,
): Promise<RunShellResult> {
  return new Promise<RunShellResult>((resolve, reject) => {
    const out = createWriteStream(i.outputFile, { flags: 'a', mode: 0o600 });
    const [file, args] = commandLine(`exec 2>&1; ${command}`);
    const child = spawn(file, args, {
      cwd: i.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: shellEnvironment(toolEnvironment()),
    });
    let bytes = 0;
    let killed: 'timeout' | 'stopped' | undefined;
    let done = false;
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
      out.end(trailer === null ? '' : `\n${trailer}\n`, () => resolve({ end, outputBytes: bytes }));
    };
    child.stdout?.on('data', (b: Buffer) => {
      bytes += b.length;
      out.write(b);
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
