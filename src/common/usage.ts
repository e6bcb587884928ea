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
  /** Web searches the API ran (`usage.server_tool_use.web_search_requests`; WebSearch's searches). */
  webSearchRequests: number;
  /**
   * Thinking tokens among `outputTokens`, as far as the API reported them
   * (`usage.output_tokens_details.thinking_tokens`); absent in states recorded before it was counted.
   */
  thinkingTokens?: number;
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
  /** Web searches of the API's server tool, USD per 1,000 searches. @default {@link WEB_SEARCH_USD_PER_1000} */
  webSearch?: number;
}

/**
 * The Anthropic API's price of its web search server tool: USD 10 per 1,000 searches, on top of
 * the tokens (https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool,
 * "Usage and pricing"; https://platform.claude.com/docs/en/about-claude/pricing, checked 2026-12).
 */
export const WEB_SEARCH_USD_PER_1000 = 10;

/** Counts a response reports beside its tokens (both optional: older lines and other APIs lack them). */
export interface UsageDetails {
  /** Thinking tokens among the output tokens (`usage.output_tokens_details.thinking_tokens`). */
  thinkingTokens?: number;
  /** Searches of the web search server tool (`usage.server_tool_use.web_search_requests`). */
  webSearchRequests?: number;
}

/** The {@link UsageDetails} of a Messages API `usage` object (any shape; missing counts are 0). */
export function usageDetailsOf(usage: unknown): Required<UsageDetails> {
  const u = (usage ?? {}) as {
    output_tokens_details?: { thinking_tokens?: unknown } | null;
    server_tool_use?: { web_search_requests?: unknown } | null;
  };
  const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  return {
    thinkingTokens: n(u.output_tokens_details?.thinking_tokens),
    webSearchRequests: n(u.server_tool_use?.web_search_requests),
  };
}

/**
 * What the model calls a tool made for the conversation were billed (WebSearch's search call,
 * WebFetch's summary call): kept on the tool's result line and counted by the turn like a model
 * call's usage (its `modelUsage`, cost, USD limits and budget pool).
 */
export interface ToolModelSpend {
  /** Model the tool called. */
  model: string;
  usage: Usage;
  /** Web searches the API ran for it. */
  webSearchRequests: number;
  /** Thinking tokens among its output tokens. */
  thinkingTokens?: number;
  /** USD of tokens and searches, or null when the model has no price. */
  costUsd: number | null;
  /** Model calls it made. */
  calls: number;
  /** Wall time of those calls, ms. */
  durationMs: number;
}
