import { AgentRunnerError } from '../common/errors';

/** Thrown for a bad flag value; the CLI prints it and exits 2. */
export class UsageError extends AgentRunnerError {
  override readonly name = 'UsageError';
  readonly kind = 'usage';
}
