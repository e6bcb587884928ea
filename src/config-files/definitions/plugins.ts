/**
 * Claude Code plugins from local directories: `--plugin-dir <dir>` and plugins enabled in
 * settings (`enabledPlugins: {"<plugin>@<marketplace>": true}`) from a marketplace known to the
 * settings (`extraKnownMarketplaces: {"<marketplace>": {"source": {"source": "directory", "path"}}}`)
 * whose `.claude-plugin/marketplace.json` lists the plugin with a relative `source`. Only local
 * directories are read: a marketplace or plugin on GitHub, git or a URL is skipped with a warning.
 *
 * A plugin directory holds `.claude-plugin/plugin.json` (`name`, `version`; `commands`, `agents`,
 * `skills` may name other directories, `hooks` and `mcpServers` other files or inline objects),
 * `commands/`, `agents/`, `skills/`, `hooks/hooks.json` and `.mcp.json`. Everything it brings is
 * namespaced by its name, as Claude Code 2.1.328 does: the command `/demo:hello`, the skill
 * `demo:plug-skill`, the agent `demo:helper`, the MCP server `plugin:demo:fixture` (tools
 * `mcp__plugin_demo_fixture__<tool>`). Its hooks and MCP servers get `CLAUDE_PLUGIN_ROOT` (the
 * plugin's directory), in their environment and in place of `${CLAUDE_PLUGIN_ROOT}`.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { HooksConfig } from '../../common/hooks';
import { HooksConfigError, parseHooksSection } from '../hooks';
import type { McpConfig, McpServerConfig } from '../mcp-config';
import { McpConfigFileSchema } from '../mcp-config';
import type { AgentDefinition, CommandDefinition, PluginInfo } from './types';
import { loadAgentDir } from './agents';
import { loadCommandDir, loadSkillDir } from './commands';
import { isDir } from './files';
import { MAX_CONFIG_JSON_BYTES, readConfigFile, refusedWarning } from '../safe-read';

/** Thrown for a plugin that cannot be used (a missing `--plugin-dir`, a malformed manifest); the CLI exits 2. */
export class PluginError extends Error {
  override readonly name = 'PluginError';
}

/** Everything one plugin brings. */
export interface LoadedPlugin {
  info: PluginInfo;
  commands: CommandDefinition[];
  skills: CommandDefinition[];
  agents: AgentDefinition[];
  /** Its hooks, each command run with `CLAUDE_PLUGIN_ROOT` set. */
  hooks: HooksConfig;
  /** Its MCP servers, named `plugin:<plugin>:<server>`. */
  mcp: McpConfig;
}

/**
 * A plugin's JSON file, read under the rules of src/config-files/safe-read.ts with the plugin's
 * (or marketplace's) directory as the root; undefined, with a warning, when they refuse it.
 * @throws PluginError for a file that is not there or is not valid JSON
 */
function readJson(file: string, root: string, warn: (m: string) => void): unknown {
  const r = readConfigFile(file, { roots: [root], maxBytes: MAX_CONFIG_JSON_BYTES });
  if (r.status === 'missing') throw new PluginError(`${file}: cannot be read (ENOENT)`);
  if (r.status === 'refused') {
    warn(refusedWarning(file, r.reason));
    return undefined;
  }
  try {
    return JSON.parse(r.text) as unknown;
  } catch (err) {
    throw new PluginError(`${file}: not valid JSON (${(err as Error).message})`);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Directories a manifest field names (a path or a list of paths, relative to the plugin), plus the default. */
function dirsOf(root: string, v: unknown, fallback: string): string[] {
  const listed = typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [];
  return [path.join(root, fallback), ...listed.map((p) => path.resolve(root, p))].filter(
    (d, i, all) => all.indexOf(d) === i,
  );
}

/** Shell-quotes a path for `/bin/sh`. */
function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function withRoot(s: string, root: string): string {
  return s.split('${CLAUDE_PLUGIN_ROOT}').join(root);
}

function pluginServer(server: McpServerConfig, root: string): McpServerConfig {
  if (server.type === 'stdio') {
    return {
      ...server,
      command: withRoot(server.command, root),
      ...(server.args ? { args: server.args.map((a) => withRoot(a, root)) } : {}),
      env: {
        CLAUDE_PLUGIN_ROOT: root,
        ...Object.fromEntries(Object.entries(server.env ?? {}).map(([k, v]) => [k, withRoot(v, root)])),
      },
    };
  }
  return {
    ...server,
    url: withRoot(server.url, root),
    ...(server.headers
      ? { headers: Object.fromEntries(Object.entries(server.headers).map(([k, v]) => [k, withRoot(v, root)])) }
      : {}),
  };
}

function pluginMcp(
  name: string,
  root: string,
  manifest: Record<string, unknown>,
  warn: (m: string) => void,
): McpConfig {
  const out: McpConfig = { servers: {}, sources: {} };
  const entries: Array<{ raw: unknown; where: string }> = [];
  const file = path.join(root, '.mcp.json');
  if (existsSync(file)) entries.push({ raw: readJson(file, root, warn), where: file });
  const m = manifest['mcpServers'];
  if (typeof m === 'string')
    entries.push({ raw: readJson(path.resolve(root, m), root, warn), where: path.resolve(root, m) });
  else if (isRecord(m)) entries.push({ raw: { mcpServers: m }, where: `${root}/.claude-plugin/plugin.json` });
  for (const { raw, where } of entries) {
    if (raw === undefined) continue; // refused, and warned about
    const parsed = McpConfigFileSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new PluginError(`${where}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
    }
    for (const [server, cfg] of Object.entries(parsed.data.mcpServers)) {
      const full = `plugin:${name}:${server}`;
      out.servers[full] = pluginServer(cfg, root);
      out.sources[full] = `${where}: mcpServers.${server}`;
    }
  }
  return out;
}

function pluginHooks(root: string, manifest: Record<string, unknown>, warn: (m: string) => void): HooksConfig {
  const sections: Array<{ raw: unknown; where: string }> = [];
  const file = path.join(root, 'hooks', 'hooks.json');
  if (existsSync(file)) sections.push({ raw: readJson(file, root, warn), where: file });
  const h = manifest['hooks'];
  if (typeof h === 'string')
    sections.push({ raw: readJson(path.resolve(root, h), root, warn), where: path.resolve(root, h) });
  else if (isRecord(h)) sections.push({ raw: h, where: `${root}/.claude-plugin/plugin.json` });
  const out: HooksConfig = {};
  for (const { raw, where } of sections) {
    if (raw === undefined) continue; // refused, and warned about
    // hooks.json is `{"hooks": {…}}`; a manifest's inline value may be the section itself.
    const section = isRecord(raw) && isRecord(raw['hooks']) ? raw['hooks'] : raw;
    let parsed: HooksConfig;
    try {
      parsed = parseHooksSection(section, where, warn);
    } catch (e) {
      if (e instanceof HooksConfigError) throw new PluginError(e.message);
      throw e;
    }
    for (const [event, list] of Object.entries(parsed)) {
      const key = event as keyof HooksConfig;
      out[key] = [
        ...(out[key] ?? []),
        ...list.map((c) => ({
          ...c,
          command: `export CLAUDE_PLUGIN_ROOT=${shellQuote(root)}; ${withRoot(c.command, root)}`,
        })),
      ];
    }
  }
  return out;
}

/**
 * Loads one plugin directory. Its files are read only inside it (src/config-files/safe-read.ts):
 * a hooks or MCP file that links out of it is skipped with a warning, and so is the whole plugin
 * when its manifest does.
 * @param source `system/init`'s `source` (`<name>@inline`, `<name>@<marketplace>`); `{name}` is
 *   replaced by the plugin's name
 * @returns the plugin, or undefined when its manifest was refused (and warned about)
 * @throws PluginError for a directory that does not exist or a malformed manifest, hooks or MCP file
 */
export function loadPluginDir(dir: string, source: string, warn: (m: string) => void): LoadedPlugin | undefined {
  const root = path.resolve(dir);
  if (!isDir(root)) throw new PluginError(`${root}: not a plugin directory (no such directory)`);
  const manifestFile = path.join(root, '.claude-plugin', 'plugin.json');
  const raw = existsSync(manifestFile) ? readJson(manifestFile, root, warn) : {};
  if (raw === undefined) return undefined;
  if (!isRecord(raw)) throw new PluginError(`${manifestFile}: expected a JSON object`);
  const name = typeof raw['name'] === 'string' && raw['name'].trim() !== '' ? raw['name'].trim() : path.basename(root);
  if (!/^[A-Za-z0-9._-]+$/.test(name)) {
    throw new PluginError(`${manifestFile}: name: "${name}" must be letters, digits, '.', '_' or '-'`);
  }
  const origin = { scope: 'plugin' as const, plugin: name, roots: [root] };
  const version = typeof raw['version'] === 'string' ? raw['version'] : undefined;
  return {
    info: { name, path: root, source: source.replace('{name}', name), ...(version !== undefined ? { version } : {}) },
    commands: dirsOf(root, raw['commands'], 'commands').flatMap((d) => loadCommandDir(d, origin, warn)),
    skills: dirsOf(root, raw['skills'], 'skills').flatMap((d) => loadSkillDir(d, origin, warn)),
    agents: dirsOf(root, raw['agents'], 'agents').flatMap((d) => loadAgentDir(d, origin, warn)),
    hooks: pluginHooks(root, raw, warn),
    mcp: pluginMcp(name, root, raw, warn),
  };
}

/** The settings sections that enable plugins (read from each settings file as written). */
export interface PluginSettings {
  /** `enabledPlugins` of every settings file, lowest precedence first. */
  enabledPlugins: Array<{ file: string; value: unknown }>;
  /** `extraKnownMarketplaces` of every settings file, lowest precedence first. */
  marketplaces: Array<{ file: string; root: string; value: unknown }>;
}

/** A marketplace's local directory, or undefined (with a warning) when it is not local. */
function marketplaceDir(
  name: string,
  spec: unknown,
  root: string,
  file: string,
  warn: (m: string) => void,
): string | undefined {
  const src = isRecord(spec) ? spec['source'] : undefined;
  if (isRecord(src) && src['source'] === 'directory' && typeof src['path'] === 'string') {
    return path.resolve(root, src['path']);
  }
  warn(
    `${file}: extraKnownMarketplaces.${name}: only local directory marketplaces ({"source": {"source": "directory", "path": …}}) are supported; skipped`,
  );
  return undefined;
}

/**
 * The plugin directories enabled in settings, each with its `source` (`<plugin>@<marketplace>`).
 * A later settings file's `enabledPlugins` entry wins (`false` disables an earlier `true`).
 * @throws PluginError for a marketplace manifest that cannot be read
 */
export function enabledPluginDirs(
  settings: PluginSettings,
  warn: (m: string) => void,
): Array<{ dir: string; source: string }> {
  const markets = new Map<string, string>();
  for (const m of settings.marketplaces) {
    if (!isRecord(m.value)) continue;
    for (const [name, spec] of Object.entries(m.value)) {
      const dir = marketplaceDir(name, spec, m.root, m.file, warn);
      if (dir !== undefined) markets.set(name, dir);
    }
  }
  const enabled = new Map<string, boolean>();
  for (const e of settings.enabledPlugins) {
    if (!isRecord(e.value)) continue;
    for (const [id, on] of Object.entries(e.value)) enabled.set(id, on === true);
  }
  const out: Array<{ dir: string; source: string }> = [];
  for (const [id, on] of enabled) {
    if (!on) continue;
    const at = id.lastIndexOf('@');
    const plugin = at > 0 ? id.slice(0, at) : id;
    const market = at > 0 ? id.slice(at + 1) : '';
    const marketDir = markets.get(market);
    if (marketDir === undefined) {
      warn(`enabledPlugins: ${id}: no local marketplace "${market}" is known (extraKnownMarketplaces); skipped`);
      continue;
    }
    const manifestFile = path.join(marketDir, '.claude-plugin', 'marketplace.json');
    const manifest = readJson(manifestFile, marketDir, warn);
    if (manifest === undefined) continue; // refused, and warned about
    const plugins = isRecord(manifest) && Array.isArray(manifest['plugins']) ? manifest['plugins'] : [];
    const entry = plugins.find((p) => isRecord(p) && p['name'] === plugin) as Record<string, unknown> | undefined;
    if (!entry) {
      warn(`enabledPlugins: ${id}: ${manifestFile} lists no plugin "${plugin}"; skipped`);
      continue;
    }
    const src = entry['source'];
    const rel =
      typeof src === 'string' ? src : isRecord(src) && src['source'] === 'directory' ? src['path'] : undefined;
    if (typeof rel !== 'string') {
      warn(`enabledPlugins: ${id}: only plugins in a local directory are supported; skipped`);
      continue;
    }
    out.push({ dir: path.resolve(marketDir, rel), source: id });
  }
  return out;
}
