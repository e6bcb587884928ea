/**
 * A USD limit the runner cannot check is refused before anything runs: the cost of a call is
 * known only from the `prices:` table, so a model without a price would spend without limit.
 */
import type { Config } from '../config';
import { findPrice } from '../config';

/** Where prices are configured, for error texts. */
export const PRICES_HINT =
  'prices are configured under `prices:` in the config file (temporal.yaml in the current directory, --config FILE or AGENT_RUNNER_CONFIG), in USD per million tokens';

/**
 * Why `limit` cannot be enforced for `model`, or null when it can (the model has a price).
 * @param limit the limit as the user set it, e.g. `--max-budget-usd 5` or `--budget-pool nightly`.
 */
export function unenforceableBudget(config: Pick<Config, 'prices'>, model: string, limit: string): string | null {
  if (findPrice(config.prices, model)) return null;
  const priced = Object.keys(config.prices).sort();
  return (
    `${limit} cannot be enforced: model "${model}" has no price, so the cost of its calls is unknown. ` +
    `Add its prices, or use a priced model (${priced.join(', ')}); ${PRICES_HINT}.`
  );
}
