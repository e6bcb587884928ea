/**
 * A session's definitions, read where the session starts (the client): the user's
 * (`~/.claude/commands`, `skills`, `agents`, or under `CLAUDE_CONFIG_DIR`), the project's
 * (`<cwd>/.claude/…`) and its plugins' (`--plugin-dir`, settings). `--setting-sources` selects the
 * user's and the project's, as it does for settings and memory; `--bare` reads none.
 */
import { homedir } from 'node:os';
import * as path from 'node:path';
import { projectConfigRoots, userConfigRoots } from '../safe-read';
import type { HooksConfig } from '../../common/hooks';
import { mergeHooks } from '../hooks';
import type { McpConfig } from '../mcp-config';
import { mergeMcpConfigs } from '../mcp-config';
import type { AgentDefinition, CommandDefinition, Definitions } from './types';
import { DEFINITIONS_VERSION } from './types';
import { loadAgentDir } from './agents';
import { loadCommandDir, loadSkillDir } from './commands';
import type { LoadedPlugin, PluginSettings } from './plugins';
import { enabledPluginDirs, loadPluginDir, PluginError } from './plugins';

/** Options of {@link loadDefinitions}. */
export interface LoadDefinitionsOptions {
  cwd: string;
  /** The user's Claude config directory (`~/.claude`); false reads no user definitions. */
  userConfigDir: string | false;
  /** Read the project's `.claude/` definitions. @default true */
  project?: boolean;
  /** `--plugin-dir` directories (absolute or relative to `cwd`). */
  pluginDirs?: readonly string[];
  /** The settings sections that enable plugins (see {@link PluginSettings}). */
  pluginSettings?: PluginSettings;
  warn?: (m: string) => void;
  /** Where the user's own files may link to, with the config directory. @default os.homedir() */
  home?: string;
}

/** The definitions, and what the plugins bring beyond them (hooks and MCP servers). */
export interface LoadedDefinitions {
  definitions: Definitions;
  /** The plugins' hooks (empty without plugins). */
  hooks: HooksConfig;
  /** The plugins' MCP servers (none without plugins). */
  mcp: McpConfig;
}

const byName = <T extends { name: string }>(a: T, b: T): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Keeps the first definition of each name. */
function firstByName<T extends { name: string }>(list: readonly T[]): T[] {
  const seen = new Set<string>();
  return list.filter((d) => (seen.has(d.name) ? false : (seen.add(d.name), true)));
}

/**
 * Reads every definition of a session.
 * @throws PluginError for a `--plugin-dir` that is not a directory or a plugin file that cannot be used
 */
export function loadDefinitions(opts: LoadDefinitionsOptions): LoadedDefinitions {
  const warn = opts.warn ?? (() => undefined);
  const cwd = path.resolve(opts.cwd);
  const user = opts.userConfigDir === false ? undefined : opts.userConfigDir;
  const project = opts.project !== false ? path.join(cwd, '.claude') : undefined;
  const userOrigin = { scope: 'user' as const, roots: user ? userConfigRoots(opts.home ?? homedir(), user) : [] };
  const projectOrigin = { scope: 'project' as const, roots: projectConfigRoots(cwd) };
  const plugins: LoadedPlugin[] = [];
  const seenPlugins = new Set<string>();
  const addPlugin = (dir: string, source: string): void => {
    const p = loadPluginDir(path.resolve(cwd, dir), source, warn);
    if (p === undefined) return;
    if (seenPlugins.has(p.info.name)) {
      warn(`plugin ${p.info.name} (${p.info.path}) is already loaded; this copy is skipped`);
      return;
    }
    seenPlugins.add(p.info.name);
    plugins.push(p);
  };
  for (const d of opts.pluginDirs ?? []) addPlugin(d, '{name}@inline');
  if (opts.pluginSettings) {
    for (const e of enabledPluginDirs(opts.pluginSettings, warn)) addPlugin(e.dir, e.source);
  }
  const userSkills = user ? loadSkillDir(path.join(user, 'skills'), userOrigin, warn) : [];
  const projectSkills = project ? loadSkillDir(path.join(project, 'skills'), projectOrigin, warn) : [];
  const userCommands = user ? loadCommandDir(path.join(user, 'commands'), userOrigin, warn) : [];
  const projectCommands = project ? loadCommandDir(path.join(project, 'commands'), projectOrigin, warn) : [];
  // The same name in both places: the user's wins (Claude Code 2.1.328, command-plain-and-namespaced).
  const localCommands = firstByName([...userCommands, ...projectCommands]).sort(byName);
  const commands: CommandDefinition[] = firstByName([
    ...userSkills,
    ...projectSkills,
    ...localCommands,
    ...plugins.flatMap((p) => p.commands).sort(byName),
    ...plugins.flatMap((p) => p.skills).sort(byName),
  ]);
  const agents: AgentDefinition[] = firstByName([
    ...(user ? loadAgentDir(path.join(user, 'agents'), userOrigin, warn) : []),
    ...(project ? loadAgentDir(path.join(project, 'agents'), projectOrigin, warn) : []),
    ...plugins.flatMap((p) => p.agents),
  ]).sort(byName);
  return {
    definitions: { v: DEFINITIONS_VERSION, commands, agents, plugins: plugins.map((p) => p.info) },
    hooks: mergeHooks(plugins.map((p) => p.hooks)),
    mcp: mergeMcpConfigs(plugins.map((p) => p.mcp)),
  };
}

/** The definition a typed `/name` or a Skill call names, or undefined. */
export function findCommand(defs: Definitions, name: string): CommandDefinition | undefined {
  return defs.commands.find((c) => c.name === name);
}

/** What the model is offered through the Skill tool: every definition it may invoke. */
export function modelInvocable(defs: Definitions): CommandDefinition[] {
  return defs.commands.filter((c) => !c.disableModelInvocation);
}

export { PluginError };
