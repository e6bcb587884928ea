/**
 * An agent's error result as a workflow failure, so that the Temporal Web UI's list shows a failed
 * turn (and a session whose last turn failed) as **Failed**, not as a green Completed. The result
 * itself travels in the failure's details, so that the session, `attach`, `batch` and any caller
 * of `handle.result()` read it as before (docs/architecture.md, "Failures").
 */
import { ApplicationFailure } from '@temporalio/common';

/** Prefix of the failure type: `AgentResult.error_max_turns`, `AgentResult.error_during_execution`, … */
export const AGENT_RESULT_FAILURE = 'AgentResult';

/**
 * The non-retryable failure a workflow ends with for an error result `subtype`: its message is the
 * result's first error (what the UI shows), its details `[result]`.
 */
export function agentResultFailure<R>(subtype: string, errors: readonly string[], result: R): ApplicationFailure {
  const first = errors.find((e) => e.trim() !== '') ?? subtype;
  return ApplicationFailure.create({
    type: `${AGENT_RESULT_FAILURE}.${subtype}`,
    message: `${subtype}: ${first.replace(/^\[[a-z_]+\]\s*/, '').slice(0, 500)}`,
    nonRetryable: true,
    details: [result],
  });
}

/**
 * The result carried by an agent-result failure anywhere on `err`'s cause chain (a
 * `WorkflowFailedError`, a `ChildWorkflowFailure`, the `ApplicationFailure` itself), or undefined
 * for any other error (a workflow that failed for another reason).
 */
export function resultOfFailure<R>(err: unknown): R | undefined {
  for (let e: unknown = err, depth = 0; e !== null && e !== undefined && depth < 8; depth++) {
    if (e instanceof ApplicationFailure && e.type?.startsWith(`${AGENT_RESULT_FAILURE}.`)) {
      return e.details?.[0] as R | undefined;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
