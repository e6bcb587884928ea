/**
 * The `Bash` tool: runs a command with `bash -c` in the session's working directory, in its
 * own process group so that a timeout or a cancellation can kill everything it started.
 */
import { spawn } from 'node:child_process';
import { z } from 'zod';
import { CappedOutput } from './capped-output';
import { statOrUndefined } from './file-state';
import { errorOutput, formatDuration } from './format';
import type { ToolContext, ToolDefinition, ToolOutput } from './types';

/** Timeout when the input gives none, ms. */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
/** Largest timeout the input may ask for, ms. */
export const BASH_MAX_TIMEOUT_MS = 600_000;
/** Characters of each stream (stdout, stderr) kept; longer output keeps its head and tail. */
export const BASH_MAX_OUTPUT_CHARS = 30_000;
/** Time between SIGTERM and SIGKILL when killing the process group, ms. */
export const BASH_KILL_GRACE_MS = 2_000;
/** Heartbeat period while a command runs, ms. */
const HEARTBEAT_MS = 1_000;
/**
 * After bash exits, how long to wait for its output pipes to close. A background process it
 * left behind may hold them open; we stop reading rather than wait for it.
 */
const PIPE_CLOSE_GRACE_MS = 250;

/** Input of the Bash tool (Claude Code's schema). */
export const BashInputSchema = z.object({
  command: z.string().describe('The shell command to run (with bash -c).'),
  timeout: z
    .number()
    .positive()
    .max(BASH_MAX_TIMEOUT_MS)
    .optional()
    .describe(`Timeout in milliseconds (default ${BASH_DEFAULT_TIMEOUT_MS}, at most ${BASH_MAX_TIMEOUT_MS}).`),
  description: z
    .string()
    .optional()
    .describe('A short description of what the command does, in 5-10 words (for logs and people watching).'),
  run_in_background: z.boolean().optional().describe('Not supported by this runner: leave it unset.'),
});
/** Parsed Bash input. */
export type BashInput = z.infer<typeof BashInputSchema>;

/** Structured Bash result (`tool_use_result`), as Claude Code reports it. */
export interface BashStructured {
  stdout: string;
  stderr: string;
  interrupted: boolean;
  isImage: false;
}

const DESCRIPTION = [
  'Runs a shell command with bash and returns its output (stdout, then stderr, then the exit code if it is not 0).',
  'Each call starts a fresh shell in the working directory: cd and exported variables do not carry over to the next call, so use absolute paths or chain commands with &&.',
  'Commands get no input (stdin is closed), so avoid interactive programs and pass flags such as --yes or --no-pager where needed.',
  `A command is killed, with everything it started, after ${BASH_DEFAULT_TIMEOUT_MS / 60_000} minutes unless timeout (ms, at most ${BASH_MAX_TIMEOUT_MS / 60_000} minutes) says otherwise; running in the background is not supported.`,
  `Each output stream is cut to ${BASH_MAX_OUTPUT_CHARS} characters (its start and end are kept), so filter long output with head, tail or grep.`,
  'Quote paths that contain spaces. Prefer the dedicated tools for files: Read instead of cat/head/tail, Edit or Write instead of sed/echo redirection, Glob instead of find/ls -R, Grep instead of grep/rg.',
].join(' ');

type KillReason = 'timeout' | 'abort';

function interruptedOutput(reason: KillReason, timeoutMs: number, stdout = '', stderr = ''): ToolOutput {
  const note =
    reason === 'timeout'
      ? `Command timed out after ${formatDuration(timeoutMs)} and was killed (with every process it started).`
      : 'Command was aborted because the tool run was cancelled; it was killed (with every process it started).';
  const structured: BashStructured = { stdout, stderr, interrupted: true, isImage: false };
  return {
    content: [stdout, stderr, note].filter((s) => s.length > 0).join('\n'),
    isError: true,
    structured,
  };
}

async function runBash(input: BashInput, ctx: ToolContext): Promise<ToolOutput> {
  if (input.run_in_background === true) {
    return errorOutput(
      'run_in_background is not supported by this runner. Run the command in the foreground instead (raise timeout, up to 600000 ms, for slow commands).',
    );
  }
  const timeoutMs = Math.min(input.timeout ?? BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS);
  if (ctx.signal.aborted) return interruptedOutput('abort', timeoutMs);
  const cwdStat = await statOrUndefined(ctx.cwd);
  if (!cwdStat?.isDirectory()) {
    return errorOutput(`The working directory ${ctx.cwd} does not exist, so the command cannot run.`);
  }

  return new Promise<ToolOutput>((resolve) => {
    const stdout = new CappedOutput(BASH_MAX_OUTPUT_CHARS);
    const stderr = new CappedOutput(BASH_MAX_OUTPUT_CHARS);
    let killReason: KillReason | undefined;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let spawnError: Error | undefined;
    let done = false;
    const timers: NodeJS.Timeout[] = [];
    let heartbeat: NodeJS.Timeout | undefined;

    const child = spawn('bash', ['-c', input.command], {
      cwd: ctx.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
    });

    const signalGroup = (sig: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        // The group is already gone.
      }
    };

    const killGroup = (reason: KillReason): void => {
      if (killReason !== undefined || done) return;
      killReason = reason;
      signalGroup('SIGTERM');
      // Not cleared on finish: stragglers that ignored SIGTERM still get SIGKILL.
      const hard = setTimeout(() => {
        signalGroup('SIGKILL');
        // If something still holds the pipes open after SIGKILL, stop waiting for it.
        const last = setTimeout(finish, 1_000);
        timers.push(last);
      }, BASH_KILL_GRACE_MS);
      hard.unref();
    };

    const onAbort = (): void => killGroup('abort');

    function finish(): void {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      if (heartbeat) clearInterval(heartbeat);
      ctx.signal.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();

      if (spawnError) {
        resolve(errorOutput(`Could not start bash: ${spawnError.message}`));
        return;
      }
      const out = stdout.trimmedText();
      const err = stderr.trimmedText();
      if (killReason) {
        resolve(interruptedOutput(killReason, timeoutMs, out, err));
        return;
      }
      const parts = [out, err].filter((s) => s.length > 0);
      let isError = false;
      if (exitCode !== null && exitCode !== 0) {
        parts.push(`Exit code ${exitCode}`);
        isError = true;
      } else if (exitCode === null && exitSignal !== null) {
        parts.push(`Command was terminated by signal ${exitSignal}`);
        isError = true;
      }
      const structured: BashStructured = { stdout: out, stderr: err, interrupted: false, isImage: false };
      resolve({
        content: parts.length > 0 ? parts.join('\n') : '(Command completed with no output)',
        isError,
        structured,
      });
    }

    child.stdout?.on('data', (b: Buffer) => stdout.push(b));
    child.stderr?.on('data', (b: Buffer) => stderr.push(b));
    child.on('error', (e) => {
      spawnError = e;
      finish();
    });
    child.on('exit', (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      timers.push(setTimeout(finish, PIPE_CLOSE_GRACE_MS));
    });
    child.on('close', finish);

    timers.push(setTimeout(() => killGroup('timeout'), timeoutMs));
    ctx.heartbeat();
    heartbeat = setInterval(() => ctx.heartbeat(), HEARTBEAT_MS);
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The built-in `Bash` tool. */
export const BashTool: ToolDefinition<BashInput> = {
  name: 'Bash',
  description: DESCRIPTION,
  inputSchema: BashInputSchema,
  readOnly: false,
  idempotent: false,
  run: runBash,
};
