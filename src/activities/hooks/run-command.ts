/**
 * Runs one hook command the way Claude Code does: through the shell, in the session's working
 * directory, with the event's JSON on stdin, `CLAUDE_PROJECT_DIR` set, and a timeout.
 */
import { spawn } from 'node:child_process';
import { toolEnvironment } from '../../env/child-env';

/** Default timeout of a hook command (Claude Code's), seconds. */
export const DEFAULT_HOOK_TIMEOUT_SEC = 60;
/** Output kept per stream (characters). */
export const MAX_HOOK_OUTPUT = 64 * 1024;
const MAX_OUTPUT = MAX_HOOK_OUTPUT;

/** What one hook command did. */
export interface HookCommandResult {
  /** Exit code; null when killed (timeout) or not started. */
  exitCode: number | null;
  /** Stdout, its first {@link MAX_HOOK_OUTPUT} characters. */
  stdout: string;
  stderr: string;
  /** Characters the hook printed on stdout when more than were kept (absent: all kept). */
  stdoutChars?: number;
  timedOut: boolean;
  /** Set when the shell itself could not be started. */
  spawnError?: string;
  durationMs: number;
}

/** Options of {@link runHookCommand}. */
export interface RunHookCommandOptions {
  cwd: string;
  /** JSON written to stdin. */
  input: unknown;
  /** Seconds. @default 60 */
  timeoutSec?: number;
  /** Base environment. @default process.env */
  env?: NodeJS.ProcessEnv;
  sessionId?: string;
  signal?: AbortSignal;
}

/** Runs `command` with `/bin/sh -c`; never rejects. */
export function runHookCommand(command: string, opts: RunHookCommandOptions): Promise<HookCommandResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    // The runner's rules for tool processes: the user's environment minus the runner's secrets.
    const env: NodeJS.ProcessEnv = {
      ...toolEnvironment({ base: opts.env ?? process.env }),
      CLAUDE_PROJECT_DIR: opts.cwd,
      ...(opts.sessionId ? { CLAUDE_CODE_SESSION_ID: opts.sessionId } : {}),
    };
    // Its own process group, so that a timeout stops the command's children too.
    const child = spawn('/bin/sh', ['-c', command], {
      cwd: opts.cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stdoutChars = 0;
    let stderr = '';
    let timedOut = false;
    let settled = false;
    const finish = (r: Omit<HookCommandResult, 'durationMs'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve({ ...r, durationMs: Date.now() - started });
    };
    const signalGroup = (signal: NodeJS.Signals): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        child.kill(signal); // the group is gone already
      }
    };
    const kill = (): void => {
      signalGroup('SIGTERM');
      setTimeout(() => signalGroup('SIGKILL'), 2000).unref();
    };
    const timer = setTimeout(
      () => {
        timedOut = true;
        kill();
      },
      (opts.timeoutSec ?? DEFAULT_HOOK_TIMEOUT_SEC) * 1000,
    );
    const onAbort = (): void => kill();
    opts.signal?.addEventListener('abort', onAbort);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdoutChars += d.length;
      if (stdout.length < MAX_OUTPUT) stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < MAX_OUTPUT) stderr += d;
    });
    child.stdin.on('error', () => undefined); // a hook that does not read stdin closes it early
    child.stdin.end(JSON.stringify(opts.input));
    const over = (): { stdoutChars?: number } => (stdoutChars > stdout.length ? { stdoutChars } : {});
    child.once('error', (e) =>
      finish({ exitCode: null, stdout, stderr, ...over(), timedOut: false, spawnError: e.message }),
    );
    child.once('close', (code) => finish({ exitCode: timedOut ? null : code, stdout, stderr, ...over(), timedOut }));
  });
}
