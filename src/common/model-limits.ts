/**
 * Context windows of the Claude models, in tokens: what `modelUsage[model].contextWindow`
 * reports and what auto-compaction compares a prompt with (unless `compaction.contextWindowTokens`
 * is set). Source: Claude Code 2.1.328's `modelUsage` for each model (`claude -p --model M
 * --output-format json`, run against the project's fake model on 2026-12-01). Pure: used by
 * workflows and activities alike.
 */

/** Context window of a model not in the table (tokens): the smallest current window, so compaction starts early rather than late. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

/** Model id prefix → context window (tokens). Longer prefixes first where one extends another. */
const CONTEXT_WINDOWS: ReadonlyArray<readonly [string, number]> = [
  ['claude-opus-5-5', 1_000_000],
  ['claude-opus-5', 1_000_000],
  ['claude-sonnet-5-5', 1_000_000],
  ['claude-sonnet-5', 1_000_000],
  ['claude-opus-4', 200_000],
  ['claude-sonnet-4', 200_000],
  ['claude-haiku-4', 200_000],
  ['claude-3', 200_000],
];

/**
 * The context window of `model` (an id such as `claude-sonnet-5-5`, or a dated one such as
 * `claude-sonnet-4-5-20250929`), in tokens; {@link DEFAULT_CONTEXT_WINDOW} when unknown.
 */
export function contextWindowOf(model: string): number {
  for (const [prefix, tokens] of CONTEXT_WINDOWS) {
    if (model === prefix || model.startsWith(`${prefix}-`)) return tokens;
  }
  return DEFAULT_CONTEXT_WINDOW;
}
