/**
 * The runner's own error classes say what kind of fault they are, and the kind decides how the
 * `agent-runner` command ends (src/cli/main.ts):
 * - `usage`: how the runner was called or configured (a bad flag, config file, settings,
 *   `--json-schema`, a missing Temporal CLI or model key, an unusable data directory or store):
 *   nothing was run; the message is printed without a stack and the exit code is 2;
 * - `runtime`: the run itself failed (a server that went away, no worker answering): exit code 1.
 * Errors of other classes are runtime faults too.
 */

/** What kind of fault an {@link AgentRunnerError} is. */
export type ErrorKind = 'usage' | 'runtime';

/** Base of the runner's error classes: `kind` says whether the caller or the run is at fault. */
export abstract class AgentRunnerError extends Error {
  /** `usage` (exit 2, nothing ran) or `runtime` (exit 1). */
  abstract readonly kind: ErrorKind;
}

/** Whether `err` is a usage or configuration error (CLI exit code 2). */
export function isUsageError(err: unknown): err is AgentRunnerError {
  return err instanceof AgentRunnerError && err.kind === 'usage';
}
