import type { HooksConfig, TurnHooks } from '../common/hooks';
import { DEFAULT_STOP_HOOK_BLOCK_CAP } from '../common/hooks';
import { missingHookCommands } from './hook-check';
import type { LoadedSettings } from '../config-files';
import { HooksConfigError, mergeHooks, parseHooksSection } from '../config-files/hooks';
import { UsageError } from './turn-options';

/**
 * The hooks of a run, from the `hooks` sections the settings loader read (`--setting-sources`,
 * `--settings`), merged in precedence order; undefined when there are none.
 * @throws UsageError for a malformed hooks section or a hook command that cannot be found (file and field named)
 */
export function hooksFromSettings(
  sections: LoadedSettings['hooks'],
  cwd: string,
  warn: (m: string) => void,
): HooksConfig | undefined {
  let hooks: HooksConfig;
  try {
    hooks = mergeHooks(sections.map((s) => parseHooksSection(s.hooks, s.path, warn)));
  } catch (e) {
    if (e instanceof HooksConfigError) throw new UsageError(e.message);
    throw e;
  }
  if (Object.keys(hooks).length === 0) return undefined;
  const missing = missingHookCommands(hooks, cwd);
  if (missing.length) throw new UsageError(missing.join('\n'));
  return hooks;
}

/** The environment variable of the Stop-hook block cap (Claude Code's name). */
export const STOP_HOOK_BLOCK_CAP_ENV = 'CLAUDE_CODE_STOP_HOOK_BLOCK_CAP';

/**
 * The Stop-hook block cap from `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP` (a whole number, 0 = no cap),
 * or Claude Code's default 8.
 * @throws UsageError when the variable is set to anything else
 */
export function stopHookBlockCap(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[STOP_HOOK_BLOCK_CAP_ENV];
  if (raw === undefined || raw.trim() === '') return DEFAULT_STOP_HOOK_BLOCK_CAP;
  if (!/^\d+$/.test(raw.trim())) {
    throw new UsageError(`${STOP_HOOK_BLOCK_CAP_ENV} must be a whole number of blocks (0 = no cap), got "${raw}"`);
  }
  return Number(raw.trim());
}

/**
 * What the turn carries of its hooks: the stored config's ref, the matchers of each event and
 * the Stop-hook block cap.
 */
export function turnHooks(
  hooks: HooksConfig,
  configRef: string,
  stopBlockCap: number = DEFAULT_STOP_HOOK_BLOCK_CAP,
): TurnHooks {
  const matchers: TurnHooks['matchers'] = {};
  for (const [event, list] of Object.entries(hooks) as Array<
    [keyof HooksConfig, NonNullable<HooksConfig[keyof HooksConfig]>]
  >) {
    matchers[event] = list.map((h) => h.matcher);
  }
  return { configRef, matchers, stopBlockCap };
}
