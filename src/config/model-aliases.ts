/**
 * Claude Code's model names (`--model sonnet`, `"model": "opus"` in settings, `set_model`) and the
 * model id each names per provider. Source: what `claude -p --model <name>` 2.1.328 sent to the
 * Messages API and to Bedrock, Vertex and Foundry (the `effort-thinking-matrix` and
 * `provider-model-ids` recordings, docs/reference/claude-code-commands-skills-model.md). A name
 * that is neither an alias nor a model a provider renames is returned as it is (a full model id,
 * or a model only the user's endpoint knows).
 */
import type { ModelProvider } from '../common/model-capabilities';

/** The first-party model of each alias. */
export const MODEL_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  sonnet: 'claude-sonnet-5-5',
  opus: 'claude-opus-5-5',
  haiku: 'claude-haiku-5-5',
});

type Alias = 'opus' | 'sonnet' | 'haiku';

/** Each provider's model of each alias (Bedrock ids without their region prefix). */
const PROVIDER_ALIASES: Readonly<Record<ModelProvider, Readonly<Record<Alias, string>>>> = {
  firstParty: { opus: 'claude-opus-5-5', sonnet: 'claude-sonnet-5-5', haiku: 'claude-haiku-5-5' },
  bedrock: {
    opus: 'anthropic.claude-opus-5-5',
    sonnet: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
    haiku: 'anthropic.claude-haiku-4-5-20251001-v1:0',
  },
  vertex: { opus: 'claude-opus-5-5', sonnet: 'claude-sonnet-4-5@20250929', haiku: 'claude-haiku-4-5@20251001' },
  foundry: { opus: 'claude-opus-4-6', sonnet: 'claude-sonnet-4-5', haiku: 'claude-haiku-4-5' },
};

/** Full model names Bedrock knows under its own id (others are sent as given). */
const BEDROCK_IDS: Readonly<Record<string, string>> = {
  'claude-opus-5-5': 'anthropic.claude-opus-5-5',
  'claude-sonnet-5-5': 'anthropic.claude-sonnet-5-5',
};

/** Retired models Claude Code sends as their successor (unless `CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP`). */
const LEGACY_REMAP: Readonly<Record<string, string>> = {
  'claude-opus-4-1': 'claude-opus-5-5',
  'claude-opus-4-1-20250805': 'claude-opus-5-5',
};

/** What model names depend on besides the name. */
export interface ModelNaming {
  /** @default 'firstParty' */
  provider?: ModelProvider;
  /**
   * Environment: `ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU}_MODEL` (an alias's model, all providers),
   * `AWS_REGION` and `ANTHROPIC_BEDROCK_REGION_PREFIX` (Bedrock's `us.`/`eu.`/`apac.` prefix),
   * `CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP`. @default {} (none of them)
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Bedrock's cross-region inference prefix: `ANTHROPIC_BEDROCK_REGION_PREFIX`, else from `AWS_REGION`. */
export function bedrockRegionPrefix(env: Readonly<Record<string, string | undefined>>): string {
  const given = env['ANTHROPIC_BEDROCK_REGION_PREFIX']?.trim();
  if (given) return given;
  const region = (env['AWS_REGION'] ?? env['AWS_DEFAULT_REGION'] ?? 'us-east-1').trim();
  if (region.startsWith('eu-')) return 'eu';
  if (region.startsWith('ap-')) return 'apac';
  return 'us';
}

function truthy(v: string | undefined): boolean {
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/**
 * The model id for `name` through `naming.provider`: an alias (`sonnet`, `opus`, `haiku`, any
 * case; `opusplan` is `sonnet` outside plan mode, `sonnet[1m]` is `sonnet`) becomes the
 * provider's model (or `ANTHROPIC_DEFAULT_<ALIAS>_MODEL`); on Bedrock the 5.x models get their
 * Bedrock id with the region prefix (`us.anthropic.claude-opus-5-5`); `claude-opus-4-1` is sent as
 * `claude-opus-5-5`; any other name is returned as it is.
 */
export function resolveModelAlias(name: string, naming: ModelNaming = {}): string {
  const provider = naming.provider ?? 'firstParty';
  const env = naming.env ?? {};
  const trimmed = name.trim();
  let key = trimmed.toLowerCase().replace(/\[1m\]$/, '');
  if (key === 'opusplan') key = 'sonnet';
  const bedrock = (id: string): string => (id.startsWith('anthropic.') ? `${bedrockRegionPrefix(env)}.${id}` : id);
  if (key === 'opus' || key === 'sonnet' || key === 'haiku') {
    const custom = env[`ANTHROPIC_DEFAULT_${key.toUpperCase()}_MODEL`]?.trim();
    if (custom) return custom;
    const id = PROVIDER_ALIASES[provider][key];
    return provider === 'bedrock' ? bedrock(id) : id;
  }
  const remapped = truthy(env['CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP']) ? trimmed : (LEGACY_REMAP[trimmed] ?? trimmed);
  if (provider === 'bedrock' && BEDROCK_IDS[remapped]) return bedrock(BEDROCK_IDS[remapped] ?? remapped);
  return remapped;
}
