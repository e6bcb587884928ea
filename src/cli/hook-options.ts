import type { HooksConfig, TurnHooks } from '../common/hooks';
import { missingHookCommands } from '../hooks/check';
import type { SettingSource } from '../settings/hooks';
import { HooksConfigError, loadHooks } from '../settings/hooks';
import { UsageError } from './turn-options';

const SOURCES: readonly SettingSource[] = ['user', 'project', 'local'];

/** `--setting-sources user,project,local` → the list (all three when absent, none for ""). @throws UsageError */
export function settingSourcesFlag(value: string | undefined): SettingSource[] {
  if (value === undefined) return [...SOURCES];
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.filter((s) => !(SOURCES as readonly string[]).includes(s));
  if (bad.length)
    throw new UsageError(`--setting-sources: unknown source(s) ${bad.join(', ')}; use ${SOURCES.join(',')}`);
  return list as SettingSource[];
}

/**
 * The hooks of a run, from the settings files of `--setting-sources`; undefined when there are none.
 * @throws UsageError for a malformed hooks section or a hook command that cannot be found (file and field named)
 */
export function hooksFromSettings(
  cwd: string,
  settingSources: string | undefined,
  warn: (m: string) => void,
): HooksConfig | undefined {
  let hooks: HooksConfig;
  try {
    hooks = loadHooks({ cwd, sources: settingSourcesFlag(settingSources), warn });
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
