import { BudgetPoolNotFoundError } from '../../client/budget-pool';
import { SessionNotFoundError } from '../../client/session-control';
import { NoWorkerAnsweredError } from '../../client/query-deadline';
import { ScheduleExistsError, UnknownScheduleError } from '../../client/schedules';
import type { ControlIo } from '../control';
import { NoServerError } from '../control';
import { EXIT } from '../output';

/**
 * Runs a control command, turning the errors users cause (no server, unknown session or pool, no
 * worker answering, an unknown or taken schedule id)
 * into a message on stderr and exit code 1. Other errors propagate (usage errors exit 2).
 */
export async function withControlErrors(io: ControlIo, fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (e) {
    if (
      e instanceof NoServerError ||
      e instanceof SessionNotFoundError ||
      e instanceof BudgetPoolNotFoundError ||
      e instanceof NoWorkerAnsweredError ||
      e instanceof UnknownScheduleError ||
      e instanceof ScheduleExistsError
    ) {
      io.stderr(`agent-runner: ${e.message}`);
      return EXIT.error;
    }
    throw e;
  }
}
