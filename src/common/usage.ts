/**
 * Token usage as the Anthropic Messages API reports it (`usage` of a Message), in tokens.
 *
 * `input_tokens` excludes cached tokens: the prompt's size is the sum of `input_tokens`,
 * `cache_creation_input_tokens` and `cache_read_input_tokens`.
 */
export interface Usage {
  /** Uncached input tokens of the request. */
  input_tokens: number;
  /** Output tokens generated. */
  output_tokens: number;
  /** Input tokens written to the prompt cache (billed at the cache-write rate). */
  cache_creation_input_tokens: number;
  /** Input tokens served from the prompt cache (billed at the cache-read rate). */
  cache_read_input_tokens: number;
}

/** A usage record with every counter at zero. */
export function emptyUsage(): Usage {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}

/** Adds two usage records field by field; returns a new object. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
  };
}

/** Total tokens of a usage record (all input kinds plus output). */
export function totalTokens(u: Usage): number {
  return u.input_tokens + u.output_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
}

/**
 * Per-model usage and cost, the `modelUsage` entries of a result message (Claude Agent SDK shape).
 * Token fields are tokens; `costUSD` is US dollars, or `null` when the model has no price entry
 * (the cost is then unknown, never silently 0).
 */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  costUSD: number | null;
  contextWindow: number;
  maxOutputTokens: number;
}

/**
 * Prices of one model in USD per million tokens. The table lives in `temporal.yaml` (`prices:`),
 * whose comment cites its source (Anthropic's pricing page) and the date it was checked.
 */
export interface ModelPrice {
  /** Uncached input, USD / MTok. */
  input: number;
  /** Output, USD / MTok. */
  output: number;
  /** Prompt-cache write with the 5-minute TTL, USD / MTok. */
  cacheWrite5m: number;
  /** Prompt-cache write with the 1-hour TTL, USD / MTok. */
  cacheWrite1h: number;
  /** Prompt-cache read, USD / MTok. */
  cacheRead: number;
}
