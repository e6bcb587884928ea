import { AgentRunnerError } from '../common/errors';

/** How long `-p` without a prompt waits for the first byte on stdin (ms). Env: AGENT_RUNNER_STDIN_TIMEOUT_MS. */
export const DEFAULT_STDIN_TIMEOUT_MS = 10_000;

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
