/**
 * The settings sections that enable plugins, gathered from the loaded settings files:
 * `enabledPlugins` and `extraKnownMarketplaces`. A project's own settings (project and local
 * files) enable plugins only in a trusted workspace (`hasTrustDialogAccepted`), as a project's
 * allow rules apply only there: a plugin brings hooks and MCP servers, which run commands.
 */
import type { LoadedSettings } from '../settings';
import type { PluginSettings } from './plugins';

/** The plugin sections of the loaded settings (see the module comment). */
export function pluginSettingsOf(loaded: LoadedSettings, trusted: boolean, warn: (m: string) => void): PluginSettings {
  const out: PluginSettings = { enabledPlugins: [], marketplaces: [] };
  for (const s of loaded.sources) {
    const enabled = s.settings['enabledPlugins'];
    const markets = s.settings['extraKnownMarketplaces'];
    if (enabled === undefined && markets === undefined) continue;
    if ((s.source === 'project' || s.source === 'local') && !trusted) {
      warn(
        `Ignoring enabledPlugins and extraKnownMarketplaces of ${s.path}: this workspace has not been trusted ` +
          '(a plugin runs hooks and MCP servers). Accept the trust dialog of Claude Code here once, or enable the plugin in your own settings.',
      );
      continue;
    }
    if (enabled !== undefined) out.enabledPlugins.push({ file: s.path, value: enabled });
    if (markets !== undefined) out.marketplaces.push({ file: s.path, root: s.root, value: markets });
  }
  return out;
}
