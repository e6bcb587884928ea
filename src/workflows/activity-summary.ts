/**
 * Activity calls with a summary: the one-line label the Temporal Web UI shows for each activity
 * in a workflow's history (`Bash: npm test`, `model call 3`). Stubs made by `proxyActivities` /
 * `proxyLocalActivities` take it through `executeWithOptions`; a plain function (a test double)
 * is simply called.
 */
import { firstLine } from '../common/summary';

type WithOptions<A extends unknown[], R> = ((...args: A) => Promise<R>) & {
  executeWithOptions?: (options: { summary: string }, args: A) => Promise<R>;
};

/** Calls the activity stub `fn` with `args`, its summary set to `summary` (one short line). */
export function summarized<A extends unknown[], R>(
  fn: (...args: A) => Promise<R>,
  summary: string | undefined,
  ...args: A
): Promise<R> {
  const stub = fn as WithOptions<A, R>;
  return summary && stub.executeWithOptions
    ? stub.executeWithOptions({ summary: firstLine(summary) }, args)
    : fn(...args);
}
