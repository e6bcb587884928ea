/**
 * The `Bash` tool: runs a command with `bash -c` in the session's working directory, in its
 * own process group so that a timeout or a cancellation can kill everything it started. Its
 * stderr goes to the same stream as stdout (as in Claude Code), so the model sees both in order.
 *
 * The command dies with its worker: a small bash supervisor leads the process group and runs the
 * command; util-linux `setpriv --pdeathsig` makes the kernel signal the supervisor when the
 * worker process dies (even by kill -9), and the supervisor then kills the whole group.
 */
import { BASH_CONTROL_CHARS_MESSAGE, HIDDEN_CONTROL_CHARS } from './input-faults';
import { spawn } from 'node:child_process';
import { accessSync, constants as fsConstants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { constants as osConstants } from 'node:os';
import { z } from 'zod';
import { toolEnvironment } from '../../env/child-env';
import { commandTooLong } from './bash-limits';
import { launchBackground } from '../background/launch';
import { BACKGROUND_DEFAULT_TIMEOUT_MS, BACKGROUND_MAX_TIMEOUT_MS } from '../../common/shell-tasks';
import { CappedOutput } from './capped-output';
import { statOrUndefined } from './file-state';
import { errorOutput, plainErrorOutput } from './format';
import { blockedSleep, sleepBlockedMessage } from './sleep-block';
import { newShellCwdFile, shellCwdTrap, shellEnd, shellStart, withShellCwd } from './shell-cwd';
import type { ToolContext, ToolDefinition, ToolOutput } from './types';
import { heartbeatEvery } from '../heartbeats';
import type { Heartbeat } from '../heartbeats';

/** Timeout when the input gives none, ms. */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
/** Largest timeout the input may ask for, ms. */
export const BASH_MAX_TIMEOUT_MS = 600_000;
/**
 * Characters of output captured; longer output keeps its head and tail. Output longer than the
 * large-result threshold reaches the model as a preview plus a file (see `large-result.ts`).
 */
export const BASH_MAX_OUTPUT_CHARS = 8_000_000;
/** The shell: `/bin/bash` where it exists (its messages then read as Claude Code's do), else `bash` on PATH. */
const BASH_PATH = existsSync('/bin/bash') ? '/bin/bash' : 'bash';
/** Time between SIGTERM and SIGKILL when a command times out, ms. */
export const BASH_KILL_GRACE_MS = 2_000;
/** Time between SIGTERM and SIGKILL when the tool run is cancelled (an interrupt), ms. */
export const BASH_ABORT_GRACE_MS = 200;
/** Heartbeat period while a command runs, ms (a cancellation arrives with a heartbeat's answer). */
const HEARTBEAT_MS = 250;
/** Signal the kernel sends the supervisor when the worker dies (`setpriv --pdeathsig`). */
const PARENT_DEATH_SIGNAL = 'USR2';
/**
 * The supervisor: leads the process group, runs the command in a child bash and waits for it
 * (`wait` returns at once when a trapped signal arrives, a foreground command would not). On the
 * parent-death signal it kills its own process group, the command and everything it started.
 */
const SUPERVISOR = `trap 'kill -KILL 0' ${PARENT_DEATH_SIGNAL}; ${BASH_PATH} -c "$1" & wait $!`;

let setprivPath: string | null | undefined;

/**
 * Variables bash would act on before (or instead of) the command, from wherever they come (the
 * worker's environment, a settings file's `env`): `BASH_ENV` and `ENV` name a script it would
 * source first, `SHELLOPTS`/`BASHOPTS` turn options on, `CDPATH` moves a relative `cd`, and
 * `PS4` is expanded by `set -x`. Claude Code's shell drops the same ones.
 */
const SHELL_STEERING_ENV: readonly string[] = ['BASH_ENV', 'ENV', 'SHELLOPTS', 'BASHOPTS', 'CDPATH', 'PS4'];

/** The environment a Bash command gets: `env` without {@link SHELL_STEERING_ENV}. */
export function shellEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of SHELL_STEERING_ENV) delete out[name];
  return out;
}

/** util-linux `setpriv` on PATH, or null (then commands do not die with a killed worker). */
export function findSetpriv(env: NodeJS.ProcessEnv = process.env): string | null {
  if (setprivPath !== undefined) return setprivPath;
  setprivPath = null;
  if (process.platform !== 'linux') return setprivPath;
  for (const dir of (env['PATH'] ?? '/usr/bin:/bin').split(delimiter)) {
    const candidate = join(dir, 'setpriv');
    try {
      accessSync(candidate, fsConstants.X_OK);
      setprivPath = candidate;
      break;
    } catch {
      // not here
    }
  }
  return setprivPath;
}

/** The argv that runs `script` with bash under the supervisor (with a parent-death signal when possible). */
export function commandLine(script: string): [string, string[]] {
  const setpriv = findSetpriv();
  const supervised = ['-c', SUPERVISOR, 'bash-supervisor', script];
  return setpriv
    ? [setpriv, [`--pdeathsig=${PARENT_DEATH_SIGNAL}`, '--', BASH_PATH, ...supervised]]
    : [BASH_PATH, supervised];
}

/**
 * After bash exits, how long to wait for its output pipes to close. A background process it
 * left behind may hold them open; we stop reading rather than wait for it.
 */
const PIPE_CLOSE_GRACE_MS = 250;

/**
 * Input of the Bash tool: Claude Code 2.1.328's schema. With `run_in_background`, `timeout` is how
 * long the command may run in the background (default 10 min, at most 2 h); without it, at most
 * {@link BASH_MAX_TIMEOUT_MS}.
 */
export const BashInputSchema = z
  .strictObject({
    command: z
      .string()
      // Also checked before the permission check (input-faults.ts); here for direct callers.
      .refine((c) => !HIDDEN_CONTROL_CHARS.test(c), { message: BASH_CONTROL_CHARS_MESSAGE })
      .describe('The shell command to run (with bash -c).'),
    timeout: z
      .number()
      .positive()
      .max(BACKGROUND_MAX_TIMEOUT_MS)
      .optional()
      .describe(
        `Timeout in milliseconds (default ${BASH_DEFAULT_TIMEOUT_MS}, at most ${BASH_MAX_TIMEOUT_MS} for a foreground command).`,
      ),
    description: z
      .string()
      .optional()
      .describe('A short description of what the command does, in 5-10 words (for logs and people watching).'),
    run_in_background: z
      .boolean()
      .optional()
      .describe(
        `Set to true to run this command in the background. With it, \`timeout\` limits how long the command may run in the background before it is stopped (default ${BACKGROUND_DEFAULT_TIMEOUT_MS} ms, max ${BACKGROUND_MAX_TIMEOUT_MS} ms).`,
      ),
    dangerouslyDisableSandbox: z
      .boolean()
      .optional()
      .describe('Accepted for compatibility; this runner has no command sandbox, so it changes nothing.'),
  })
  .superRefine((input, ctx) => {
    // A foreground command keeps the foreground bound, with zod's own wording of it.
    if (input.run_in_background === true || input.timeout === undefined) return;
    const fg = FOREGROUND_TIMEOUT.safeParse(input.timeout);
    if (!fg.success) for (const issue of fg.error.issues) ctx.addIssue({ ...issue, path: ['timeout'] } as never);
  });
const FOREGROUND_TIMEOUT = z.number().max(BASH_MAX_TIMEOUT_MS);
/** Parsed Bash input. */
export type BashInput = z.infer<typeof BashInputSchema>;

/** Structured Bash result (`tool_use_result`), as Claude Code reports it (stderr is merged into stdout). */
export interface BashStructured {
  stdout: string;
  stderr: string;
  interrupted: boolean;
  isImage: false;
  noOutputExpected: false;
}

/** The description's sentence about `run_in_background` (left out with background tasks off). */
const BACKGROUND_SENTENCE = `run_in_background runs the command detached: it keeps running across turns and re-invokes you when it exits; its output goes to a file you can Read. With it, timeout is how long the command may run in the background (default ${BACKGROUND_DEFAULT_TIMEOUT_MS}, max ${BACKGROUND_MAX_TIMEOUT_MS}); at that limit it is stopped and you are re-invoked. No & needed.`;

const DESCRIPTION = [
  'Runs a shell command with bash and returns its output (stdout, then stderr, then the exit code if it is not 0).',
  'Each call starts a fresh shell in the directory where the previous command left off: cd carries over to the next call (within the working directory; leaving it resets the shell to it), exported variables and other shell state do not.',
  'Commands get no input (stdin is closed), so avoid interactive programs and pass flags such as --yes or --no-pager where needed.',
  `A command is killed, with everything it started, after ${BASH_DEFAULT_TIMEOUT_MS / 60_000} minutes unless timeout (ms, at most ${BASH_MAX_TIMEOUT_MS / 60_000} minutes) says otherwise.`,
  BACKGROUND_SENTENCE,
  'stderr is interleaved with stdout. Output over 30000 characters is saved to a file: you get its first 2 KB and the path, to Read in parts or search; filter long output with head, tail or grep where you can.',
  'Quote paths that contain spaces. Prefer the dedicated tools for files: Read instead of cat/head/tail, Edit or Write instead of sed/echo redirection, Glob instead of find/ls -R, Grep instead of grep/rg.',
].join(' ');

type KillReason = 'timeout' | 'abort';

/** A timeout as Claude Code words it: `900ms`, `1s`, `2.5s`, `2m`, `2m 30s`. */
export function formatTimeout(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))}s`;
  const min = Math.floor(ms / 60_000);
  const sec = Math.round((ms % 60_000) / 1000);
  return sec === 0 ? `${min}m` : `${min}m ${sec}s`;
}

/** The exit status a shell would report: the code, or 128 + the signal number. */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null): number | null {
  if (code !== null) return code;
  const n = signal ? osConstants.signals[signal] : undefined;
  return n === undefined ? null : 128 + n;
}

function abortedOutput(output: string): ToolOutput {
  const note = 'Command was aborted because the tool run was cancelled; it was killed (with every process it started).';
  const structured: BashStructured = {
    stdout: output,
    stderr: '',
    interrupted: true,
    isImage: false,
    noOutputExpected: false,
  };
  return { content: [output, note].filter((s) => s.length > 0).join('\n'), isError: true, structured };
}

/** Runs the command where the previous one left the shell, and reports where this one leaves it. */
async function runBash(input: BashInput, ctx: ToolContext): Promise<ToolOutput> {
  if (input.run_in_background !== true) {
    // As 2.1.328: a long leading sleep in the foreground is refused (Monitor or the background wait instead).
    const blocked = blockedSleep(input.command);
    if (blocked !== null) return errorOutput(sleepBlockedMessage(blocked));
  }
  const start = await shellStart(ctx);
  if (input.run_in_background === true) return launchBackground(input, ctx, start.dir);
  const cwdFile = newShellCwdFile();
  const out = await runCommand(input, { ...ctx, cwd: start.dir }, cwdFile);
  return withShellCwd(out, await shellEnd(ctx, cwdFile), start);
}

async function runCommand(input: BashInput, ctx: ToolContext, cwdFile: string): Promise<ToolOutput> {
  const timeoutMs = Math.min(
    input.timeout ?? ctx.settings?.bashTimeoutMs ?? BASH_DEFAULT_TIMEOUT_MS,
    BASH_MAX_TIMEOUT_MS,
  );
  if (ctx.signal.aborted) return abortedOutput('');
  const tooLong = commandTooLong(input.command);
  if (tooLong) return tooLong;
  const cwdStat = await statOrUndefined(ctx.cwd);
  if (!cwdStat?.isDirectory()) {
    return errorOutput(`The working directory ${ctx.cwd} does not exist, so the command cannot run.`);
  }

  return new Promise<ToolOutput>((resolve) => {
    const output = new CappedOutput(ctx.settings?.bashOutputLimitChars ?? BASH_MAX_OUTPUT_CHARS);
    let killReason: KillReason | undefined;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let spawnError: Error | undefined;
    let done = false;
    const timers: NodeJS.Timeout[] = [];
    let heartbeat: Heartbeat | undefined;

    // `exec 2>&1` first: stderr joins stdout in the order things were written.
    // The EXIT trap writes the directory the command leaves the shell in (for the next call).
    // Both on the command's first line, so that bash numbers the command's lines from 1 in its
    // messages, as Claude Code's shell does (`/bin/bash: line 1: cd: …`).
    const [file, args] = commandLine(`exec 2>&1; ${shellCwdTrap(cwdFile)}; ${input.command}`);
    const child = spawn(file, args, {
      cwd: ctx.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: shellEnvironment(ctx.env ?? toolEnvironment()),
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
      const hard = setTimeout(
        () => {
          signalGroup('SIGKILL');
          // If something still holds the pipes open after SIGKILL, stop waiting for it.
          const last = setTimeout(finish, reason === 'abort' ? 250 : 1_000);
          timers.push(last);
        },
        reason === 'abort' ? BASH_ABORT_GRACE_MS : BASH_KILL_GRACE_MS,
      );
      hard.unref();
    };

    const onAbort = (): void => killGroup('abort');

    function finish(): void {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      heartbeat?.stop();
      ctx.signal.removeEventListener('abort', onAbort);
      child.stdout?.destroy();

      if (spawnError) {
        resolve(errorOutput(`Could not start bash: ${spawnError.message}`));
        return;
      }
      const out = output.trimmedText();
      if (killReason === 'abort') {
        resolve(abortedOutput(out));
        return;
      }
      // Claude Code's form of a failure: `Exit code N`, then its own note, then the output.
      const status = exitStatus(exitCode, exitSignal);
      if (killReason === 'timeout' || (status !== null && status !== 0)) {
        const note = killReason === 'timeout' ? `Command timed out after ${formatTimeout(timeoutMs)}` : '';
        const head = status === null ? 'Command was terminated' : `Exit code ${status}`;
        resolve(plainErrorOutput([head, note, out].filter((p) => p.length > 0).join('\n')));
        return;
      }
      const structured: BashStructured = {
        stdout: out,
        stderr: '',
        interrupted: false,
        isImage: false,
        noOutputExpected: false,
      };
      resolve({ content: out.length > 0 ? out : '(Bash completed with no output)', isError: false, structured });
    }

    child.stdout?.on('data', (b: Buffer) => output.push(b));
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
    heartbeat = heartbeatEvery(HEARTBEAT_MS, () => ctx.heartbeat());
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

/**
 * Bash's spec with background tasks off (`CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1`): as Claude Code
 * 2.1.328 (recording `tools-background-disabled`), `run_in_background` leaves the schema and the
 * description. Any other spec is returned as it is.
 */
export function withoutBackgroundTasks<T extends { name: string; description: string; input_schema: unknown }>(
  spec: T,
): T {
  if (spec.name !== 'Bash') return spec;
  const schema = spec.input_schema as { properties?: Record<string, unknown> };
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).filter(([k]) => k !== 'run_in_background'),
  );
  return {
    ...spec,
    description: spec.description.replace(` ${BACKGROUND_SENTENCE}`, ''),
    input_schema: { ...schema, properties },
  };
}
