/**
 * The session's definitions from the flags and settings of a run: custom commands, skills and
 * agents of the user (`--setting-sources` with `user`) and the project (with `project`),
 * plugins from `--plugin-dir` and from settings, and what `--bare` leaves (nothing but the names
 * of skills, which it answers as unavailable). Plugins' hooks and MCP servers join the run's.
 */
import type { HooksConfig } from '../common/hooks';
import type { TurnOptions } from '../common/turn';
import type { LoadedSettings } from '../config-files';
import { claudeConfigDir, isTrustedProject, parseSettingSources } from '../config-files';
import type { McpConfig } from '../config-files/mcp-config';
import { emptyDefinitions } from '../config-files/definitions/types';
import { loadDefinitions, PluginError } from '../config-files/definitions/catalog';
import { loadSkillDir } from '../config-files/definitions/commands';
import { pluginSettingsOf } from '../config-files/definitions/plugin-settings';
import type { SessionDefinitions } from '../client/slash-commands';
import { homedir } from 'node:os';
import * as path from 'node:path';
import { projectConfigRoots, userConfigRoots } from '../config-files/safe-read';
import { UsageError } from './usage-error';
import type { AgentDefinition } from '../common/agents';
import { AgentsOptionError, parseAgentsOption, sessionAgentTypes } from '../client/agent-types';

/** Flags this step reads. */
export interface DefinitionFlags {
  /** `--plugin-dir <dir...>` (repeatable). */
  pluginDir?: string[];
  /** `--bare`. */
  bare?: boolean;
  settingSources?: string;
  /** `--agents <json>`: agent types for the Agent tool. */
  agents?: string;
}

/** What a run gets from its definitions. */
export interface RunDefinitions {
  definitions: SessionDefinitions;
  /** The plugins' hooks (merged after the settings' hooks). */
  hooks: HooksConfig;
  /** The plugins' MCP servers. */
  mcp: McpConfig;
  /** The session's agent types (built-in, the catalog's files, `--agents`). */
  agentTypes: AgentDefinition[];
}

/**
 * Loads the run's definitions.
 * @throws UsageError for a `--plugin-dir` that is not a plugin directory, or a plugin file that cannot be used
 */
export function runDefinitions(
  flags: DefinitionFlags,
  opts: { cwd: string; settings?: LoadedSettings; env?: NodeJS.ProcessEnv; warn: (m: string) => void },
): RunDefinitions {
  const env = opts.env ?? process.env;
  let cli: AgentDefinition[] = [];
  try {
    cli = flags.agents !== undefined ? parseAgentsOption(flags.agents, 'cli') : [];
  } catch (e) {
    if (e instanceof AgentsOptionError) throw new UsageError(e.message);
    throw e;
  }
  const sources = parseSettingSources(flags.settingSources);
  const userDir = sources.includes('user') ? claudeConfigDir(env) : false;
  if (flags.bare) {
    // `--bare` loads nothing, but a skill typed as a command gets an answer (Claude Code 2.1.328).
    const skills = [
      ...(userDir
        ? loadSkillDir(
            path.join(userDir, 'skills'),
            { scope: 'user', roots: userConfigRoots(homedir(), userDir) },
            () => undefined,
          )
        : []),
      ...loadSkillDir(
        path.join(opts.cwd, '.claude', 'skills'),
        { scope: 'project', roots: projectConfigRoots(opts.cwd) },
        () => undefined,
      ),
    ];
    return {
      definitions: { definitions: emptyDefinitions(), bare: { skillNames: skills.map((s) => s.name) } },
      hooks: {},
      mcp: { servers: {}, sources: {} },
      agentTypes: sessionAgentTypes({ cli, env }),
    };
  }
  try {
    const loaded = loadDefinitions({
      cwd: opts.cwd,
      userConfigDir: userDir,
      project: sources.includes('project'),
      pluginDirs: flags.pluginDir ?? [],
      ...(opts.settings
        ? { pluginSettings: pluginSettingsOf(opts.settings, isTrustedProject(opts.cwd, env), opts.warn) }
        : {}),
      warn: opts.warn,
    });
    return {
      definitions: { definitions: loaded.definitions },
      hooks: loaded.hooks,
      mcp: loaded.mcp,
      agentTypes: sessionAgentTypes({ catalog: loaded.definitions.agents, cli, env }),
    };
  } catch (e) {
    if (e instanceof PluginError) throw new UsageError(e.message);
    throw e;
  }
}

/** Tools `--bare` offers unless `--tools` says otherwise (Claude Code 2.1.328). */
export const BARE_TOOLS: readonly string[] = ['Bash', 'Edit', 'Read'];

/**
 * Turn options under `--bare`: no context (memory, git status, environment), Bash, Edit and Read
 * only, and a system prompt that names the working directory and the date (after any appended text).
 */
export function bareOptions(options: TurnOptions, cwd: string, now: Date = new Date()): TurnOptions {
  const date = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
  const where = `CWD: ${cwd}\nDate: ${date}`;
  return {
    ...options,
    bare: true,
    tools: options.tools ?? [...BARE_TOOLS],
    appendSystemPrompt: options.appendSystemPrompt !== undefined ? `${options.appendSystemPrompt}\n\n${where}` : where,
  };
}
