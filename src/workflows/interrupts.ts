import { CancellationScope, isCancellation } from '@temporalio/workflow';

/** Reason recorded when the turn workflow itself is cancelled. */
export const CANCELLED_REASON = 'Interrupted: the turn workflow was cancelled';

/**
 * The turn's abort controller (the seeds' `abortController`): an `interrupt` signal or a
 * cancellation of the workflow sets a reason and cancels the step in flight; both end the turn
 * the same way, with a clean result in which every tool_use has a tool_result.
 */
export class Interrupts {
  /** Why the turn is being interrupted, or null. */
  reason: string | null = null;
  /** Scope of the current step, cancelled by an interrupt. */
  private scope: CancellationScope | null = null;

  /** Handler of the `interrupt` signal. */
  interrupt(reason: string | undefined): void {
    this.reason ??= reason ?? 'Interrupted by user';
    this.scope?.cancel();
  }

  /** True once the turn was interrupted (a cancellation of the workflow seen here counts too). */
  requested(): boolean {
    if (!this.reason && CancellationScope.current().consideredCancelled) this.reason = CANCELLED_REASON;
    return this.reason !== null;
  }

  /** Runs one step in a scope that an interrupt cancels; undefined when it was (or already is) interrupted. */
  async run<T>(fn: () => Promise<T>): Promise<T | undefined> {
    if (this.requested()) return undefined;
    const scope = new CancellationScope();
    this.scope = scope;
    try {
      return await scope.run(fn);
    } catch (err) {
      if (isCancellation(err)) {
        this.reason ??= CANCELLED_REASON;
        return undefined;
      }
      throw err;
    } finally {
      this.scope = null;
    }
  }
}

/** Runs `fn` so that an interrupt cannot cancel it (writes that keep the transcript whole). */
export function uninterruptible<T>(fn: () => Promise<T>): Promise<T> {
  return CancellationScope.nonCancellable(fn);
}
