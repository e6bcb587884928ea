/**
 * The effort and thinking parameters of a Messages API request, per model and provider, as Claude
 * Code 2.1.328 sends them (recorded table: docs/reference/claude-code-commands-skills-model.md,
 * "Effort and extended thinking"; checked against every recorded variant by
 * test/unit/activities/model/thinking-params.test.ts). Pure.
 */
import type { ModelProvider } from '../../common/model-capabilities';
import { canonicalModelId, capabilitiesOf } from '../../common/model-capabilities';
import type { EffortLevel, ThinkingDisplay, ThinkingOptions } from '../../common/thinking';
import { DEFAULT_THINKING_DISPLAY } from '../../common/thinking';

/** Betas a request needs for the parameters below (`anthropic-beta`). */
export const BETAS = {
  interleavedThinking: 'interleaved-thinking-2025-05-14',
  contextManagement: 'context-management-2025-06-27',
  effort: 'effort-2025-11-24',
  thinkingTokenCount: 'thinking-token-count-2026-05-13',
  thinkingDisplayUpdates: 'thinking-display-updates-2026-08-18',
  webSearch: 'web-search-2025-03-05',
} as const;

/** The API's smallest thinking budget (tokens). */
export const MIN_THINKING_BUDGET = 1024;

/** `thinking` of a request. */
export type ThinkingParam =
  | { type: 'adaptive'; display?: ThinkingDisplay }
  | { budget_tokens: number; type: 'enabled'; display?: ThinkingDisplay }
  | { type: 'disabled' };

/** The parameters, ready to spread into a request body, and the betas they need. */
export interface ThinkingParams {
  /** `max_tokens` (tokens). */
  max_tokens: number;
  thinking?: ThinkingParam;
  /** Sent whenever thinking is on (first-party and Foundry only): thinking blocks are all kept. */
  context_management?: { edits: Array<{ type: 'clear_thinking_20251015'; keep: 'all' }> };
  output_config?: { effort: EffortLevel };
  /** For `anthropic-beta`, in a stable order. */
  betas: string[];
}

/**
 * The effort a model gets: the one asked for when it takes it, the model's highest level when it
 * takes fewer (Opus 4.5: `xhigh` and `max` are sent as `high`), its default when none is asked;
 * undefined when the model takes no effort (through Bedrock and Vertex: unless it thinks adaptively).
 */
export function effortFor(
  model: string,
  provider: ModelProvider,
  asked: EffortLevel | undefined,
): EffortLevel | undefined {
  const caps = capabilitiesOf(model, provider);
  if (caps.effortLevels.length === 0) return undefined;
  // Bedrock and Vertex take an effort only from the models that think adaptively (not Opus 4.5).
  if ((provider === 'bedrock' || provider === 'vertex') && caps.thinking !== 'adaptive') return undefined;
  if (asked === undefined) return caps.defaultEffort;
  if (caps.effortLevels.includes(asked)) return asked;
  return caps.effortLevels[caps.effortLevels.length - 1];
}

/**
 * `max_tokens`, `thinking`, `context_management` and `output_config` of a conversation's model
 * call, and the betas they need.
 * @param maxTokens the turn's `max_tokens` (config `model.maxTokens`, or the model's own limit);
 *   capped at a known model's limit (a fallback model may have a lower one)
 */
export function thinkingParams(
  model: string,
  provider: ModelProvider,
  options: ThinkingOptions | undefined,
  maxTokens: number,
): ThinkingParams {
  const o = options ?? {};
  const caps = capabilitiesOf(model, provider);
  const max_tokens = caps.known ? Math.min(maxTokens, caps.maxOutputTokens) : maxTokens;
  const thirdParty = provider === 'bedrock' || provider === 'vertex';
  // Bedrock and Vertex get a display only for models that think adaptively (or are not known).
  const display =
    thirdParty && caps.known && caps.thinking !== 'adaptive' ? undefined : (o.display ?? DEFAULT_THINKING_DISPLAY);
  let thinking: ThinkingParam | undefined;
  if (o.off !== true && caps.thinking === 'adaptive') {
    thinking = { type: 'adaptive', ...(display ? { display } : {}) };
  } else if (o.off !== true && caps.thinking === 'budget') {
    const budget = Math.min(o.maxThinkingTokens ?? caps.maxOutputTokens - 1, max_tokens - 1);
    if (o.mode === 'disabled' || o.maxThinkingTokens === 0) thinking = { type: 'disabled' };
    // A budget under the API's minimum cannot be asked for: no thinking then (max_tokens too small).
    else if (budget >= MIN_THINKING_BUDGET)
      thinking = { budget_tokens: budget, type: 'enabled', ...(display ? { display } : {}) };
  }
  const on = thinking !== undefined && thinking.type !== 'disabled';
  const shown = on && thinking !== undefined && 'display' in thinking;
  const effort = effortFor(model, provider, o.effort);
  const betas: string[] = [];
  // Bedrock and Vertex do not take interleaved thinking for Haiku (Claude Code leaves the beta out).
  const interleaved = o.noInterleaved !== true && !(thirdParty && canonicalModelId(model).includes('haiku'));
  if (on && interleaved) betas.push(BETAS.interleavedThinking);
  const contextManagement = on && !thirdParty;
  if (contextManagement) betas.push(BETAS.contextManagement);
  if (provider === 'vertex' || provider === 'foundry') betas.push(BETAS.webSearch);
  if (shown) betas.push(BETAS.thinkingTokenCount);
  if (effort !== undefined) betas.push(BETAS.effort);
  if (shown && thinking !== undefined && 'display' in thinking && thinking.display === 'updates')
    betas.push(BETAS.thinkingDisplayUpdates);
  return {
    max_tokens,
    ...(thinking ? { thinking } : {}),
    ...(contextManagement ? { context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] } } : {}),
    ...(effort !== undefined ? { output_config: { effort } } : {}),
    betas,
  };
}

/**
 * Parameters of a call a tool makes for the conversation (WebSearch's search, WebFetch's summary):
 * no thinking, the model's default effort, its own output limit (Claude Code 2.1.328's
 * `web-search` recording).
 */
export function secondaryCallParams(model: string, provider: ModelProvider): ThinkingParams {
  const caps = capabilitiesOf(model, provider);
  const effort = effortFor(model, provider, undefined);
  const betas: string[] = [];
  if (provider === 'vertex' || provider === 'foundry') betas.push(BETAS.webSearch);
  if (effort !== undefined) betas.push(BETAS.effort);
  return { max_tokens: caps.maxOutputTokens, ...(effort !== undefined ? { output_config: { effort } } : {}), betas };
}
