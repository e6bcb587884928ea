/**
 * What each Claude model takes: its output limit (`max_tokens`), how it thinks (adaptively, with
 * a token budget, or not at all) and which effort levels it accepts. Source: the request
 * parameters Claude Code 2.1.328 sent per model (`test/conformance/recordings/claude-2.1.328/`
 * `effort-thinking-matrix` and `provider-model-ids`, summarized in
 * docs/reference/claude-code-commands-skills-model.md). Pure: used by the client (a turn's
 * `maxTokens`), the workflow and the model call alike.
 */
import type { EffortLevel } from './thinking';
import { EFFORT_LEVELS } from './thinking';

/** The API a model is called through (`modelUsage[model].provider`, as Claude Code names them). */
export type ModelProvider = 'firstParty' | 'bedrock' | 'vertex' | 'foundry';

/** How a model thinks. */
export type ThinkingKind = 'adaptive' | 'budget' | 'none';

/** What one model takes. */
export interface ModelCapabilities {
  /** `max_tokens` Claude Code sends (tokens); a thinking budget stays below it. */
  maxOutputTokens: number;
  thinking: ThinkingKind;
  /** Effort levels it accepts, lowest first; empty: no `output_config.effort`. */
  effortLevels: readonly EffortLevel[];
  /** Effort sent when none is asked for (absent when `effortLevels` is empty). */
  defaultEffort?: EffortLevel;
  /** False for a model not in the table (its figures are a guess). */
  known: boolean;
}

const ALL_EFFORTS = EFFORT_LEVELS;
const UP_TO_HIGH: readonly EffortLevel[] = ['low', 'medium', 'high'];

const FIVE: ModelCapabilities = {
  maxOutputTokens: 128_000,
  thinking: 'adaptive',
  effortLevels: ALL_EFFORTS,
  defaultEffort: 'medium',
  known: true,
};
const BUDGET_32K: ModelCapabilities = { maxOutputTokens: 32_000, thinking: 'budget', effortLevels: [], known: true };

/** Canonical model id prefix → capabilities. Longer prefixes first where one extends another. */
const TABLE: ReadonlyArray<readonly [string, ModelCapabilities]> = [
  ['claude-opus-5-5', FIVE],
  ['claude-sonnet-5-5', FIVE],
  ['claude-haiku-5-5', FIVE],
  ['claude-opus-5', FIVE],
  ['claude-sonnet-5', FIVE],
  [
    'claude-opus-4-6',
    { maxOutputTokens: 64_000, thinking: 'adaptive', effortLevels: UP_TO_HIGH, defaultEffort: 'high', known: true },
  ],
  [
    'claude-opus-4-5',
    { maxOutputTokens: 32_000, thinking: 'budget', effortLevels: UP_TO_HIGH, defaultEffort: 'high', known: true },
  ],
  ['claude-opus-4', BUDGET_32K],
  ['claude-sonnet-4', BUDGET_32K],
  ['claude-haiku-4', BUDGET_32K],
  ['claude-3-7-sonnet', BUDGET_32K],
  ['claude-3', { maxOutputTokens: 8192, thinking: 'none', effortLevels: [], known: true }],
];

/**
 * A model Claude Code does not know: through the Anthropic API and Foundry it thinks adaptively
 * with effort `high` and 32,000 output tokens; through Bedrock and Vertex with a 31,999-token budget
 * (`custom-sonnet-id` in the `provider-model-ids` recording).
 */
function unknownModel(provider: ModelProvider): ModelCapabilities {
  return provider === 'bedrock' || provider === 'vertex'
    ? { ...BUDGET_32K, known: false }
    : { maxOutputTokens: 32_000, thinking: 'adaptive', effortLevels: UP_TO_HIGH, defaultEffort: 'high', known: false };
}

/**
 * The model a provider's id names, as the Anthropic API names it: Bedrock's
 * `[us.|eu.|apac.|global.]anthropic.<id>[-v1:0]` (also inside an inference-profile ARN) and
 * Vertex's `<id>@<date>` become `<id>[-<date>]`; any other id is returned as it is.
 * `us.anthropic.claude-sonnet-4-5-20250929-v1:0` → `claude-sonnet-4-5-20250929`;
 * `claude-haiku-4-5@20251001` → `claude-haiku-4-5-20251001`.
 */
export function canonicalModelId(id: string): string {
  let m = id.trim();
  const slash = m.lastIndexOf('/');
  if (m.startsWith('arn:') && slash >= 0) m = m.slice(slash + 1);
  const bedrock = /^(?:[a-z]{2,6}\.)?anthropic\.(.+?)(?:-v\d+(?::\d+)?)?$/.exec(m);
  if (bedrock?.[1]) m = bedrock[1];
  return m.replace('@', '-');
}

/** What `model` (any provider's id) takes; a guess by provider when it is not in the table. */
export function capabilitiesOf(model: string, provider: ModelProvider = 'firstParty'): ModelCapabilities {
  const id = canonicalModelId(model);
  for (const [prefix, caps] of TABLE) {
    if (id === prefix || id.startsWith(`${prefix}-`)) return caps;
  }
  return unknownModel(provider);
}

/** `max_tokens` Claude Code sends for `model` (tokens). */
export function maxOutputTokensOf(model: string, provider: ModelProvider = 'firstParty'): number {
  return capabilitiesOf(model, provider).maxOutputTokens;
}
