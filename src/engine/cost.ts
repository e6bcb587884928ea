import type { ModelPrice, ModelUsage, Usage, UsageDetails } from '../common/usage';
import { WEB_SEARCH_USD_PER_1000 } from '../common/usage';

const PER_TOKEN = 1 / 1_000_000;

/**
 * Cost of one call in USD: its tokens, plus its web searches (`webSearchRequests`, at
 * `price.webSearch` per 1,000). Cache writes are billed at the 5-minute rate (the runner only
 * sets 5-minute breakpoints). Returns `null` when `price` is null (model not in the table): the
 * cost is then unknown, never reported as 0.
 */
export function costOfUsage(usage: Usage, price: ModelPrice | null, webSearchRequests = 0): number | null {
  if (!price) return null;
  return (
    (usage.input_tokens * price.input +
      usage.output_tokens * price.output +
      usage.cache_creation_input_tokens * price.cacheWrite5m +
      usage.cache_read_input_tokens * price.cacheRead) *
      PER_TOKEN +
    (webSearchRequests * (price.webSearch ?? WEB_SEARCH_USD_PER_1000)) / 1000
  );
}

/** Context window and output cap reported in `modelUsage` (tokens). */
export interface ModelLimits {
  contextWindow: number;
  maxOutputTokens: number;
}

/**
 * Adds one call to a `modelUsage` map (Claude Agent SDK shape); returns a new map.
 * A call of unknown cost makes the model's `costUSD` null from then on.
 */
export function addModelUsage(
  map: Readonly<Record<string, ModelUsage>>,
  model: string,
  usage: Usage,
  costUsd: number | null,
  limits: ModelLimits,
  details: UsageDetails = {},
): Record<string, ModelUsage> {
  const prev = map[model];
  const thinking = (prev?.thinkingTokens ?? 0) + (details.thinkingTokens ?? 0);
  const next: ModelUsage = {
    inputTokens: (prev?.inputTokens ?? 0) + usage.input_tokens,
    outputTokens: (prev?.outputTokens ?? 0) + usage.output_tokens,
    cacheReadInputTokens: (prev?.cacheReadInputTokens ?? 0) + usage.cache_read_input_tokens,
    cacheCreationInputTokens: (prev?.cacheCreationInputTokens ?? 0) + usage.cache_creation_input_tokens,
    webSearchRequests: (prev?.webSearchRequests ?? 0) + (details.webSearchRequests ?? 0),
    ...(prev?.thinkingTokens !== undefined || details.thinkingTokens !== undefined ? { thinkingTokens: thinking } : {}),
    costUSD: prev && prev.costUSD === null ? null : costUsd === null ? null : (prev?.costUSD ?? 0) + costUsd,
    contextWindow: limits.contextWindow,
    maxOutputTokens: limits.maxOutputTokens,
  };
  return { ...map, [model]: next };
}

/** Merges two `modelUsage` maps (e.g. a session's totals and one turn's). */
export function mergeModelUsage(
  a: Readonly<Record<string, ModelUsage>>,
  b: Readonly<Record<string, ModelUsage>>,
): Record<string, ModelUsage> {
  const out: Record<string, ModelUsage> = { ...a };
  for (const [model, u] of Object.entries(b)) {
    const prev = out[model];
    out[model] = prev
      ? {
          inputTokens: prev.inputTokens + u.inputTokens,
          outputTokens: prev.outputTokens + u.outputTokens,
          cacheReadInputTokens: prev.cacheReadInputTokens + u.cacheReadInputTokens,
          cacheCreationInputTokens: prev.cacheCreationInputTokens + u.cacheCreationInputTokens,
          webSearchRequests: prev.webSearchRequests + u.webSearchRequests,
          ...(prev.thinkingTokens !== undefined || u.thinkingTokens !== undefined
            ? { thinkingTokens: (prev.thinkingTokens ?? 0) + (u.thinkingTokens ?? 0) }
            : {}),
          costUSD: prev.costUSD === null || u.costUSD === null ? null : prev.costUSD + u.costUSD,
          contextWindow: u.contextWindow,
          maxOutputTokens: u.maxOutputTokens,
        }
      : { ...u };
  }
  return out;
}

/**
 * Total cost over a `modelUsage` map in USD; `known` is false when any model's cost is unknown
 * (then `usd` covers only the priced models).
 */
export function totalCost(map: Readonly<Record<string, ModelUsage>>): {
  usd: number;
  known: boolean;
} {
  let usd = 0;
  let known = true;
  for (const u of Object.values(map)) {
    if (u.costUSD === null) known = false;
    else usd += u.costUSD;
  }
  return { usd, known };
}
