import type { TurnLimits } from '../common/limits';

/** What the limit check sees. */
export interface LimitState {
  /** Model calls made so far in the turn. */
  modelCalls: number;
  /** USD spent by the turn so far (known part). */
  costUsd: number;
  /** True when a budget pool this turn belongs to reported exhaustion. */
  poolExhausted?: boolean;
  /** The pool's limit (USD), for the error text. */
  poolLimitUsd?: number;
  /** True when the turn is a member of a budget pool (its spend counts against a USD limit). */
  inBudgetPool?: boolean;
  /** Models of the turn's calls that have no price: their cost is unknown. */
  unpricedModels?: readonly string[];
}

export type LimitVerdict =
  { stop: false } | { stop: true; subtype: 'error_max_turns' | 'error_max_budget_usd'; errors: string[] };

/**
 * Checks limits before the next model call would be scheduled (and the budget right after a
 * call). A USD limit whose spend cannot be known (a call of a model without a price) stops the
 * turn: the CLI refuses such a limit up front, this catches what reaches a turn anyway (the
 * library API, `setLimits` on a running turn, a model switched mid-session).
 */
export function checkLimits(limits: TurnLimits, s: LimitState): LimitVerdict {
  const unpriced = s.unpricedModels ?? [];
  if ((limits.maxBudgetUsd !== undefined || s.inBudgetPool === true) && unpriced.length > 0) {
    return {
      stop: true,
      subtype: 'error_max_budget_usd',
      errors: [
        `The USD budget cannot be enforced: model ${unpriced.map((m) => `"${m}"`).join(', ')} has no price, ` +
          'so the cost of its calls is unknown (prices are configured under `prices:` in the config file)',
      ],
    };
  }
  if (limits.maxBudgetUsd !== undefined && s.costUsd >= limits.maxBudgetUsd) {
    return {
      stop: true,
      subtype: 'error_max_budget_usd',
      errors: [`Reached maximum budget ($${limits.maxBudgetUsd}): spent $${s.costUsd.toFixed(6)}`],
    };
  }
  if (s.poolExhausted) {
    return {
      stop: true,
      subtype: 'error_max_budget_usd',
      errors: [
        `Budget pool exhausted${s.poolLimitUsd !== undefined ? ` ($${s.poolLimitUsd})` : ''}: this turn spent $${s.costUsd.toFixed(6)}`,
      ],
    };
  }
  if (limits.maxTurns !== undefined && s.modelCalls >= limits.maxTurns) {
    return {
      stop: true,
      subtype: 'error_max_turns',
      errors: [`Reached maximum number of turns (${limits.maxTurns})`],
    };
  }
  return { stop: false };
}

/** Applies a `setLimits` patch: a number sets a limit, `null` removes it, absent keeps it. */
export function applyLimitPatch(limits: TurnLimits, patch: { [K in keyof TurnLimits]?: number | null }): TurnLimits {
  const out: TurnLimits = { ...limits };
  for (const key of ['maxTurns', 'maxBudgetUsd', 'taskBudget'] as const) {
    const v = patch[key];
    if (v === null) delete out[key];
    else if (v !== undefined) out[key] = v;
  }
  return out;
}
