/** Claude Code settings files: loading and merging (the `env` re-read by tool activities is src/activities/settings-env.ts). */
export type { LoadSettingsOptions, LoadedSettings, LoadedSource, SettingSource } from './settings';
export {
  SETTING_SOURCES,
  SettingsError,
  canonicalRule,
  claudeConfigDir,
  isTrustedProject,
  loadSettings,
  parseSettingSources,
} from './settings';
export type { ProjectTrust } from './settings-trust';
export { claudeConfigFile, projectRootOf, projectTrust } from './settings-trust';
export type { SettingsFile } from './settings-schema';
export { SettingsFileSchema } from './settings-schema';
