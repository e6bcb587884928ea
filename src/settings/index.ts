/** Claude Code settings files: loading, merging, and the `env` re-read by tool activities. */
export type { LoadSettingsOptions, LoadedSettings, LoadedSource, SettingSource } from './load';
export {
  SETTING_SOURCES,
  SettingsError,
  canonicalRule,
  claudeConfigDir,
  isTrustedProject,
  loadSettings,
  parseSettingSources,
} from './load';
export type { ProjectTrust } from './trust';
export { claudeConfigFile, projectRootOf, projectTrust } from './trust';
export type { SettingsFile } from './schema';
export { SettingsFileSchema } from './schema';
export { readSettingsEnv } from './env';
