import type { HooksConfig, TurnHooks } from '../common/hooks';
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

/** What the turn carries of its hooks: the stored config's ref and the matchers of each event. */
export function turnHooks(hooks: HooksConfig, configRef: string): TurnHooks {
  const matchers: TurnHooks['matchers'] = {};
  for (const [event, list] of Object.entries(hooks) as Array<
    [keyof HooksConfig, NonNullable<HooksConfig[keyof HooksConfig]>]
  >) {
    matchers[event] = list.map((h) => h.matcher);
  }
  return { configRef, matchers };
}
