import { AgentRunnerError } from '../common/errors';

/** How long `-p` without a prompt waits for the first byte on stdin (ms). Env: AGENT_RUNNER_STDIN_TIMEOUT_MS. */
export const DEFAULT_STDIN_TIMEOUT_MS = 10_000;
/**
 * How long `-p "prompt"` waits for the first byte of a piped stdin before it goes on without it
 * (ms), as Claude Code does (3 s). Env: AGENT_RUNNER_STDIN_TIMEOUT_MS (also for this wait).
 */
export const DEFAULT_STDIN_APPEND_WAIT_MS = 3_000;
/** The most piped stdin `-p` takes (bytes), as Claude Code (10 MB). */
export const MAX_PIPED_STDIN_BYTES = 10 * 1024 * 1024;

/** Thrown when no prompt is given and stdin has none to offer, or the prompt is empty or only whitespace. */
export class NoPromptError extends AgentRunnerError {
  override readonly name = 'NoPromptError';
  readonly kind = 'usage';
}

/**
 * The prompt of `-p`, checked before anything starts: an empty or whitespace-only prompt (argument
 * or stdin) is refused as `claude -p` refuses it, with its words.
 * @throws NoPromptError
 */
export function checkPrompt(prompt: string): string {
  if (prompt === '') {
    throw new NoPromptError(
      'no prompt: input must be provided either through stdin or as a prompt argument when using --print',
    );
  }
  if (prompt.trim() === '') {
    throw new NoPromptError(
      'no prompt: input contained only whitespace; provide a prompt with text through stdin or as a prompt argument when using --print',
    );
  }
  return prompt;
}

/**
 * Reads the prompt from stdin for `-p` without a prompt argument. Never hangs: a terminal stdin
 * is refused at once (nothing is being piped), and a pipe that sends nothing within `timeoutMs`
 * is an error (the known `claude -p` hang in CI jobs whose stdin is an open, silent pipe).
 * @throws NoPromptError
 */
export async function readPromptFromStdin(
  stdin: NodeJS.ReadStream = process.stdin,
  timeoutMs: number = Number(process.env['AGENT_RUNNER_STDIN_TIMEOUT_MS'] ?? DEFAULT_STDIN_TIMEOUT_MS),
): Promise<string> {
  if (stdin.isTTY) {
    throw new NoPromptError('no prompt: pass it as an argument (agent-runner -p "…") or pipe it on stdin');
  }
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let gotData = false;
    const timer = setTimeout(() => {
      if (gotData) return;
      cleanup();
      stdin.pause();
      reject(
        new NoPromptError(`no prompt: nothing arrived on stdin within ${timeoutMs} ms; pass the prompt as an argument`),
      );
    }, timeoutMs);
    const onData = (c: Buffer): void => {
      gotData = true;
      chunks.push(c);
    };
    const onEnd = (): void => {
      cleanup();
      const raw = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(checkPrompt(raw).trim());
      } catch (e) {
        reject(e);
      }
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(new NoPromptError(`no prompt: could not read stdin (${err.message})`));
    };
    function cleanup(): void {
      clearTimeout(timer);
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onError);
    }
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('error', onError);
    stdin.resume();
  });
}

/** Thrown when piped stdin is larger than {@link MAX_PIPED_STDIN_BYTES}. */
export class StdinTooLargeError extends AgentRunnerError {
  override readonly name = 'StdinTooLargeError';
  readonly kind = 'usage';
}

/** What {@link readPipedStdin} read: the text (empty when none came), and whether it gave up waiting. */
export interface PipedStdin {
  text: string;
  /** Nothing arrived within the wait: the pipe was left open and silent. */
  timedOut: boolean;
}

/**
 * Reads what is piped to stdin, for `-p "prompt"` (Claude Code appends it to the prompt): all of
 * it up to its end, or nothing if no byte arrives within `waitMs` (a pipe left open and silent;
 * data that starts in time is read to its end). A terminal stdin is not read.
 * @throws StdinTooLargeError past `maxBytes`
 */
export function readPipedStdin(
  stdin: NodeJS.ReadStream = process.stdin,
  waitMs: number = Number(process.env['AGENT_RUNNER_STDIN_TIMEOUT_MS'] ?? DEFAULT_STDIN_APPEND_WAIT_MS),
  maxBytes = MAX_PIPED_STDIN_BYTES,
): Promise<PipedStdin> {
  if (stdin.isTTY) return Promise.resolve({ text: '', timedOut: false });
  return new Promise<PipedStdin>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const timer = setTimeout(() => {
      if (bytes > 0) return;
      cleanup();
      stdin.pause();
      resolve({ text: '', timedOut: true });
    }, waitMs);
    const onData = (c: Buffer): void => {
      bytes += c.length;
      if (bytes > maxBytes) {
        cleanup();
        stdin.pause();
        reject(
          new StdinTooLargeError(
            `piped stdin input exceeds ${maxBytes / 1024 / 1024} MB; pass large content as a file path in your prompt instead`,
          ),
        );
        return;
      }
      chunks.push(c);
    };
    const onEnd = (): void => {
      cleanup();
      resolve({ text: Buffer.concat(chunks).toString('utf8'), timedOut: false });
    };
    const onError = (): void => {
      // An unreadable stdin (closed, not a pipe): go on without it.
      cleanup();
      resolve({ text: '', timedOut: false });
    };
    function cleanup(): void {
      clearTimeout(timer);
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onError);
    }
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('error', onError);
    stdin.resume();
  });
}

/** Claude Code's warning when a piped stdin sent nothing within `waitMs` (3 s by default). */
export function stdinSilentWarning(waitMs: number): string {
  return (
    `Warning: no stdin data received in ${waitMs / 1000}s, proceeding without it. ` +
    'If piping from a slow command, redirect stdin explicitly: < /dev/null to skip, or wait longer.'
  );
}

/**
 * The prompt of `-p`, from its argument and stdin, as Claude Code builds it: the argument, then
 * a newline and whatever is piped to stdin (`cat app.log | agent-runner -p "summarize"`); without
 * an argument, stdin alone (see {@link readPromptFromStdin}). `warn` gets the warning of a piped
 * stdin that sent nothing within the wait (the prompt goes on without it).
 * @throws NoPromptError for an empty or whitespace-only prompt
 * @throws StdinTooLargeError for piped input over 10 MB
 */
export async function promptFromInput(
  promptArg: string | undefined,
  warn: (line: string) => void,
  stdin: NodeJS.ReadStream = process.stdin,
): Promise<string> {
  if (promptArg === undefined) return checkPrompt(await readPromptFromStdin(stdin));
  const waitMs = Number(process.env['AGENT_RUNNER_STDIN_TIMEOUT_MS'] ?? DEFAULT_STDIN_APPEND_WAIT_MS);
  const piped = await readPipedStdin(stdin, waitMs);
  if (piped.timedOut) warn(stdinSilentWarning(waitMs));
  return checkPrompt(piped.text === '' ? promptArg : `${promptArg}\n${piped.text}`);
}
