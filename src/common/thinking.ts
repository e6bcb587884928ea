/**
 * Effort and extended thinking as a turn asks for them (`--effort`, `--max-thinking-tokens`,
 * `--thinking`, `--thinking-display`, their environment variables and settings, the Agent SDK's
 * `thinking`/`effort`/`maxThinkingTokens` options, which the SDK passes as those flags). The
 * request parameters each model gets from them are decided by the model call
 * (`src/activities/model/thinking-params.ts`), from Claude Code 2.1.328's recorded table
 * (docs/reference/claude-code-commands-skills-model.md, "Effort and extended thinking").
 * JSON-safe: it travels in turn options and model-call inputs (a few bytes).
 */

/** Effort levels, lowest first (`output_config.effort`). */
export const EFFORT_LEVELS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
/** One of {@link EFFORT_LEVELS}. */
export type EffortLevel = (typeof EFFORT_LEVELS)[number];

/** `--thinking` (hidden in Claude Code; what the SDK's `thinking: {type}` becomes). */
export const THINKING_MODES = ['adaptive', 'enabled', 'disabled'] as const;
/** One of {@link THINKING_MODES}. */
export type ThinkingMode = (typeof THINKING_MODES)[number];

/** `--thinking-display`: how the API shows thinking (`thinking.display`). */
export const THINKING_DISPLAYS = ['updates', 'summarized', 'omitted'] as const;
/** One of {@link THINKING_DISPLAYS}. */
export type ThinkingDisplay = (typeof THINKING_DISPLAYS)[number];

/** The display Claude Code asks for when none is given. */
export const DEFAULT_THINKING_DISPLAY: ThinkingDisplay = 'updates';

/**
 * What a turn asks for; every field optional (absent = the model's default). Claude Code's
 * rules, which the request builder applies per model:
 * - 5.x models think adaptively whatever is asked (they cannot turn thinking off), and take every
 *   effort level; `maxThinkingTokens` does not apply to them.
 * - Models with a thinking budget (4.x) take `maxThinkingTokens` as `budget_tokens` (0 or
 *   `mode: 'disabled'` turns thinking off); only Opus 4.5 takes an effort, up to `high`.
 */
export interface ThinkingOptions {
  /** `--effort`, `CLAUDE_CODE_EFFORT_LEVEL`, settings `effortLevel`, SDK `effort`. */
  effort?: EffortLevel;
  /** `--max-thinking-tokens`, `MAX_THINKING_TOKENS`, SDK `maxThinkingTokens` / `thinking.budgetTokens` (tokens). */
  maxThinkingTokens?: number;
  /** `--thinking`, SDK `thinking.type`; settings `alwaysThinkingEnabled: false` is `disabled`. */
  mode?: ThinkingMode;
  /** `--thinking-display`. @default 'updates' */
  display?: ThinkingDisplay;
  /** `CLAUDE_CODE_DISABLE_THINKING=1`: no `thinking` parameter at all, for every model. */
  off?: true;
  /** `DISABLE_INTERLEAVED_THINKING=1`: no interleaved-thinking beta. */
  noInterleaved?: true;
}

/** Whether `v` is one of {@link EFFORT_LEVELS}. */
export function isEffortLevel(v: unknown): v is EffortLevel {
  return typeof v === 'string' && (EFFORT_LEVELS as readonly string[]).includes(v);
}
