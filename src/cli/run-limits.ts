/**
 * `--max-budget-usd` and `--max-turns` of one `-p` run, over every turn it prints.
 *
 * Each turn is bounded by the workflow (`src/engine/limits.ts`), but a `-p` run also prints the
 * turns that its background tasks' notifications start (a Monitor's events, a background
 * command's or agent's end), and each of those starts with the limits afresh. Without a bound
 * over the run, a chatty monitor drives unbounded paid calls, every result `success` (outsider
 * finding F3). The run's figures come from its result lines: `total_cost_usd` is the session's
 * running total (as Claude Code's) and `num_turns` the turn's model calls.
 *
 * Once a limit is reached, `-p` stops the session's background tasks (no further notification
 * turn starts) and its last result says which limit, with exit code 1.
 */
import type { SDKResultMessage } from '../common/sdk-messages';

/** The limits of a run, as given on the command line (absent: none). */
export interface RunLimitFlags {
  /** USD over the run, this run's turns only (the session's spend before it is not counted). */
  maxBudgetUsd?: number;
  /** Model calls over the run (the sum of its turns' `num_turns`). */
  maxTurns?: number;
}

/** Which limit a run reached. */
export type RunLimitReached = 'error_max_budget_usd' | 'error_max_turns';

/** Counts a run's spend and model calls from its result lines. */
export class RunLimits {
  private turns = 0;
  private spentUsd = 0;
  private hit: RunLimitReached | null = null;
  private stoppedTasks = false;

  /**
   * @param limits the run's limits.
   * @param baseCostUsd the session's total before the run (USD; 0 for a new session).
   */
  constructor(
    private readonly limits: RunLimitFlags,
    private readonly baseCostUsd: number,
  ) {}

  /** The limit reached so far, or null. */
  get reached(): RunLimitReached | null {
    return this.hit;
  }

  /** Reaching a limit stopped the session's background tasks. */
  get stopped(): boolean {
    return this.stoppedTasks;
  }

  /** Records that reaching the limit stopped the session's background tasks. */
  markStopped(): void {
    this.stoppedTasks = true;
  }

  /** Counts a result line; returns the limit it reaches (first time only), else null. */
  observe(r: SDKResultMessage): RunLimitReached | null {
    this.turns += r.num_turns ?? 0;
    this.spentUsd = Math.max(this.spentUsd, (r.total_cost_usd ?? 0) - this.baseCostUsd);
    if (this.hit) return null;
    const { maxBudgetUsd, maxTurns } = this.limits;
    if (maxBudgetUsd !== undefined && this.spentUsd >= maxBudgetUsd) this.hit = 'error_max_budget_usd';
    else if (maxTurns !== undefined && this.turns >= maxTurns) this.hit = 'error_max_turns';
    else return null;
    return this.hit;
  }

  /**
   * Counts the session's spend so far, running agents included (`QueryEngine.liveSpendUsd`):
   * background agents run beside the turn that started them, each with what was left of the
   * budget at its launch, so their sum is only seen live (outsider F1). Returns the budget limit
   * when this reaches it (first time only), else null.
   */
  observeSpend(sessionTotalUsd: number): RunLimitReached | null {
    this.spentUsd = Math.max(this.spentUsd, sessionTotalUsd - this.baseCostUsd);
    if (this.hit || this.limits.maxBudgetUsd === undefined || this.spentUsd < this.limits.maxBudgetUsd) return null;
    this.hit = 'error_max_budget_usd';
    return this.hit;
  }

  /**
   * The run's last result once a limit stopped its background tasks: an error saying which
   * (also when the stop interrupted a notification turn that had just started), unless that turn
   * ended at the same limit by itself. A run that reached a limit with nothing left to stop keeps
   * its result as it is.
   * @param sessionTotalUsd the session's spend at the end (USD), when known.
   */
  finalResult(r: SDKResultMessage, sessionTotalUsd?: number): SDKResultMessage {
    if (!this.hit || !this.stoppedTasks || r.subtype === this.hit) return r;
    // The line may be a turn's from before its agents' spend was counted: the session's total now.
    const total = Math.max(r.total_cost_usd ?? 0, sessionTotalUsd ?? 0);
    const what =
      this.hit === 'error_max_budget_usd'
        ? `the run spent $${this.spentUsd.toFixed(4)}, reaching --max-budget-usd ${this.limits.maxBudgetUsd}`
        : `the run made ${this.turns} model calls, reaching --max-turns ${this.limits.maxTurns}`;
    return {
      ...r,
      total_cost_usd: total,
      subtype: this.hit,
      is_error: true,
      terminal_reason: 'run_limit',
      errors: [
        ...(r.errors ?? []),
        `${what} over its turns (background tasks' notification turns included): the session's background tasks were stopped`,
      ],
    } as SDKResultMessage;
  }
}
