/**
 * Which API a process calls models through: config `model.provider`, else the environment
 * variables Claude Code reads (`CLAUDE_CODE_USE_BEDROCK`, `CLAUDE_CODE_USE_VERTEX`,
 * `CLAUDE_CODE_USE_FOUNDRY`; the first set one wins, in that order, as in Claude Code 2.1.328).
 * The client reads it to name models (a Bedrock id for `--model sonnet`), the worker to build
 * its client (src/activities/model/providers/).
 */
import type { ModelProvider } from '../common/model-capabilities';

/** Values of config `model.provider`. */
export const MODEL_PROVIDER_NAMES = ['anthropic', 'bedrock', 'vertex', 'foundry'] as const;
/** One of {@link MODEL_PROVIDER_NAMES}. */
export type ModelProviderName = (typeof MODEL_PROVIDER_NAMES)[number];

/** Whether an environment flag is on (`1`, `true`, anything but empty, `0` and `false`). */
export function envFlag(v: string | undefined): boolean {
  if (v === undefined) return false;
  const s = v.trim().toLowerCase();
  return s !== '' && s !== '0' && s !== 'false' && s !== 'no' && s !== 'off';
}

/** The provider of config `model.provider` or, when it is null, of the environment. */
export function modelProviderOf(
  model: { provider: ModelProviderName | null },
  env: Readonly<Record<string, string | undefined>>,
): ModelProvider {
  if (model.provider !== null) return model.provider === 'anthropic' ? 'firstParty' : model.provider;
  if (envFlag(env['CLAUDE_CODE_USE_BEDROCK'])) return 'bedrock';
  if (envFlag(env['CLAUDE_CODE_USE_VERTEX'])) return 'vertex';
  if (envFlag(env['CLAUDE_CODE_USE_FOUNDRY'])) return 'foundry';
  return 'firstParty';
}
