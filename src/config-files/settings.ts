/**
 * Loads Claude Code settings files with Claude Code's precedence, lowest first:
 * user (`$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`), project
 * (`<cwd>/.claude/settings.json`), local (`<root>/.claude/settings.local.json` of the git
 * repository's root when the run starts in a subdirectory of it, then
 * `<cwd>/.claude/settings.local.json`), then `--settings <file-or-json>`. As in `claude -p`
 * 2.1.328, a subdirectory reads the root's local settings but not its `settings.json`.
 * `--setting-sources` picks which of user, project and local are read (all three by default;
 * `--settings` always applies). Command-line flags rank above all of them (the caller merges
 * those).
 *
 * Each file is read under the rules of src/config-files/safe-read.ts (the user's inside the home
 * and config directory, the project's inside the project; a regular text file of at most 1 MiB):
 * one that breaks them is left out with a warning.
 *
 * Trust (src/config-files/settings-trust.ts): what widens permissions (`permissions.allow` and
 * `permissions.additionalDirectories`) is ignored, with Claude Code's warning, in the project's
 * settings until the project is trusted, and in its local settings until it or a directory above
 * it is. A project's `defaultMode: "bypassPermissions"` is never used.
 *
 * Merging, as Claude Code does: permission rule lists and `additionalDirectories` are joined
 * (a deny rule from any source wins over an allow rule from any other, because deny is checked
 * first); `env` objects are merged key by key, the higher source winning; `model` and
 * `permissions.defaultMode` come from the highest source that sets them.
 *
 * Path rules are made absolute here, where their roots are known: `/path` is relative to the
 * settings file's project directory (the folder holding `.claude/`; for user settings, the
 * folder holding the config directory), `path` and `./path` to the working directory.
 */
import { existsSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PermissionMode } from '../common/permissions';
import { canonicalPathPattern } from './path-rules';
import { PATH_RULE_TOOLS, parseRule, ruleSyntaxError } from './permission-rules';
import { SETTING_SOURCES, type SettingSource } from '../common/context';
import type { SettingsFile } from './settings-schema';
import { SettingsFileSchema } from './settings-schema';
import { AgentRunnerError } from '../common/errors';
import type { SafeReadOptions } from './safe-read';
import {
  MAX_CONFIG_JSON_BYTES,
  projectConfigRoots,
  readConfigFile,
  refusedWarning,
  userConfigRoots,
} from './safe-read';
import type { ProjectTrust } from './settings-trust';
import { claudeConfigFile, projectRootOf, projectTrust, trustRecordDir } from './settings-trust';

/** The sources `--setting-sources` names (a wire type: turn options carry them). */
export { SETTING_SOURCES, type SettingSource } from '../common/context';

/**
 * Thrown for a settings file or flag that cannot be used: the CLI prints it and exits 2. The
 * message names the file (or flag) and the field.
 */
export class SettingsError extends AgentRunnerError {
  override readonly name = 'SettingsError';
  readonly kind = 'usage';
}

/** One settings file that was read. */
export interface LoadedSource {
  source: SettingSource | 'flagSettings';
  /** Absolute path, or `--settings` for JSON given inline. */
  path: string;
  /** Directory `/path` rules are relative to. */
  root: string;
  settings: SettingsFile;
  /** {@link path} with its links resolved (what a worker re-reads); absent for inline JSON. */
  realPath?: string;
}

/** The merged settings. */
export interface LoadedSettings {
  /** Sources read, lowest precedence first (missing files are left out). */
  sources: LoadedSource[];
  permissions: {
    allow: string[];
    deny: string[];
    ask: string[];
    defaultMode?: PermissionMode;
    /** Absolute directories. */
    additionalDirectories: string[];
  };
  /** Merged `env` (apply to tool processes only; keep out of workflow history). */
  env: Record<string, string>;
  /** Files whose `env` makes up {@link env}, lowest first, links resolved (what a worker re-reads). */
  envFiles: string[];
  model?: string;
  /** `effortLevel` and `alwaysThinkingEnabled` of the highest source that sets each. */
  thinking: { effortLevel?: string; alwaysThinkingEnabled?: boolean };
  /** The `hooks` section of each source that has one, lowest precedence first (schema: src/config-files/hooks.ts). */
  hooks: Array<{ source: LoadedSource['source']; path: string; hooks: unknown }>;
  /** Warnings for stderr (e.g. ignored allow rules of an untrusted project). */
  warnings: string[];
}

/** Options of {@link loadSettings}. */
export interface LoadSettingsOptions {
  cwd: string;
  /** `--setting-sources` as given (comma-separated), or undefined for all. */
  settingSources?: string;
  /** `--settings` as given: a file path or a JSON object. */
  settingsArg?: string;
  /** Environment for `CLAUDE_CONFIG_DIR`. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** @default os.homedir() */
  home?: string;
  /**
   * Whether the project is trusted. Claude Code ignores what widens permissions in project and
   * local settings (`permissions.allow`, `permissions.additionalDirectories`) until the workspace
   * is trusted (`hasTrustDialogAccepted` in `~/.claude.json`), so a cloned repository cannot
   * grant itself permissions. `true` trusts all, `false` none. @default checked as Claude Code does (src/config-files/settings-trust.ts)
   */
  trusted?: boolean;
}

/** Parses `--setting-sources`. @throws SettingsError for an unknown source */
export function parseSettingSources(value: string | undefined): SettingSource[] {
  if (value === undefined) return [...SETTING_SOURCES];
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const n of names) {
    if (!(SETTING_SOURCES as readonly string[]).includes(n)) {
      throw new SettingsError(
        `--setting-sources: unknown source "${n}" (expected a comma-separated list of ${SETTING_SOURCES.join(', ')})`,
      );
    }
  }
  return names as SettingSource[];
}

/** The Claude config directory: `CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const dir = env['CLAUDE_CONFIG_DIR'];
  return dir ? path.resolve(dir) : path.join(home, '.claude');
}

function describe(where: string): string {
  return where === '--settings' ? '--settings (inline JSON)' : where;
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new SettingsError(`${describe(where)}: not valid JSON (${(err as Error).message})`);
  }
}

function validate(raw: unknown, where: string): SettingsFile {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new SettingsError(`${describe(where)}: expected a JSON object of settings`);
  }
  const parsed = SettingsFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') ?? '';
    throw new SettingsError(`${describe(where)}: ${field || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  const s = parsed.data;
  for (const list of ['allow', 'deny', 'ask'] as const) {
    (s.permissions?.[list] ?? []).forEach((rule, i) => {
      const e = ruleSyntaxError(rule);
      if (e !== null) throw new SettingsError(`${describe(where)}: permissions.${list}[${i}]: ${e}`);
    });
  }
  return s;
}

/**
 * A settings file read under the rules of src/config-files/safe-read.ts, or undefined when there
 * is none; a refused one is left out with a warning (`warnings`) naming it and why.
 * @throws SettingsError for a file that is not valid settings JSON
 */
function readFile(p: string, roots: SafeReadOptions['roots'], warnings: string[]): LoadedFile | undefined {
  const r = readConfigFile(p, { roots, maxBytes: MAX_CONFIG_JSON_BYTES });
  if (r.status === 'missing') return undefined;
  if (r.status === 'refused') {
    warnings.push(refusedWarning(p, r.reason));
    return undefined;
  }
  return { settings: validate(parseJson(r.text, p), p), realPath: r.realPath };
}

interface LoadedFile {
  settings: SettingsFile;
  /** Where the file really is (links resolved): what a worker re-reads (see SettingsEnvRef). */
  realPath: string;
}

/** Whether Claude Code would trust all settings of the project at `cwd` (see src/config-files/settings-trust.ts). */
export function isTrustedProject(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  home: string = os.homedir(),
): boolean {
  return projectTrust(cwd, env, home) === 'trusted';
}

/**
 * A rule with its path pattern made absolute (`Edit(/src/**)` from a project's settings →
 * `Edit(//<project>/src/**)`); other rules unchanged.
 */
export function canonicalRule(rule: string, root: string, cwd: string): string {
  const r = parseRule(rule);
  if (!r || r.content === null || !PATH_RULE_TOOLS.has(r.tool)) return rule.trim();
  return `${r.tool}(${canonicalPathPattern(r.content, root, cwd)})`;
}

/**
 * Reads and merges the settings files.
 * @throws SettingsError naming the file and field for malformed JSON, a wrong type, an unknown
 *   permission rule syntax, or an unknown `--setting-sources` entry.
 */
export function loadSettings(opts: LoadSettingsOptions): LoadedSettings {
  const env = opts.env ?? process.env;
  const home = opts.home ?? os.homedir();
  const cwd = path.resolve(opts.cwd);
  const sources: LoadedSource[] = [];
  const wanted = parseSettingSources(opts.settingSources);
  const configDir = claudeConfigDir(env, home);
  const projectRoot = projectRootOf(cwd);
  const userRoots = userConfigRoots(home, configDir);
  const projectRoots = projectConfigRoots(cwd);
  const refused: string[] = [];
  const candidates: Array<{ source: SettingSource; path: string; root: string }> = [
    { source: 'user', path: path.join(configDir, 'settings.json'), root: path.dirname(configDir) },
    { source: 'project', path: path.join(cwd, '.claude', 'settings.json'), root: cwd },
    // Started in a subdirectory of a repository: the root's local settings too (not its settings.json).
    ...(projectRoot !== null && projectRoot !== cwd
      ? [
          {
            source: 'local' as const,
            path: path.join(projectRoot, '.claude', 'settings.local.json'),
            root: projectRoot,
          },
        ]
      : []),
    { source: 'local', path: path.join(cwd, '.claude', 'settings.local.json'), root: cwd },
  ];
  for (const c of candidates) {
    if (!wanted.includes(c.source)) continue;
    const file = readFile(c.path, c.source === 'user' ? userRoots : projectRoots, refused);
    if (file) sources.push({ ...c, ...file });
  }
  if (opts.settingsArg !== undefined) {
    const arg = opts.settingsArg.trim();
    if (arg.startsWith('{')) {
      sources.push({
        source: 'flagSettings',
        path: '--settings',
        root: cwd,
        settings: validate(parseJson(arg, '--settings'), '--settings'),
      });
    } else {
      const p = path.resolve(cwd, arg);
      if (!existsSync(p) || !statSync(p).isFile())
        throw new SettingsError(`--settings: ${p} is not a file (give a settings file or a JSON object)`);
      // Named by the user: read wherever it is, under the other rules.
      const file = readFile(p, 'anywhere', refused);
      if (!file) throw new SettingsError(`--settings: ${refused.pop() ?? `${p} is not a file`}`);
      sources.push({ source: 'flagSettings', path: p, root: path.dirname(p), ...file });
    }
  }
  const trust: ProjectTrust =
    opts.trusted === undefined ? projectTrust(cwd, env, home) : opts.trusted ? 'trusted' : 'untrusted';
  const out = merge(sources, cwd, trust, home);
  out.warnings.unshift(...refused, ...untrustedWarnings(sources, trust, cwd, claudeConfigFile(env, home)));
  return out;
}

/** Settings of project and local files that widen permissions, and so wait for trust. */
const TRUST_GATED = ['permissions.allow', 'permissions.additionalDirectories'] as const;

/** Whether a source's widening settings are ignored under `trust`. */
function gated(source: LoadedSource['source'], trust: ProjectTrust): boolean {
  if (source === 'project') return trust !== 'trusted';
  if (source === 'local') return trust === 'untrusted';
  return false;
}

function gatedEntries(s: LoadedSource, setting: (typeof TRUST_GATED)[number]): number {
  const p = s.settings.permissions;
  return (setting === 'permissions.allow' ? p?.allow : p?.additionalDirectories)?.length ?? 0;
}

/** Claude Code's warnings for what an untrusted project's settings tried to widen (one per setting). */
function untrustedWarnings(sources: LoadedSource[], trust: ProjectTrust, cwd: string, configFile: string): string[] {
  const out: string[] = [];
  for (const setting of TRUST_GATED) {
    let count = 0;
    const files: string[] = [];
    for (const s of sources) {
      const n = gated(s.source, trust) ? gatedEntries(s, setting) : 0;
      if (n === 0) continue;
      count += n;
      const label = `.claude/${path.basename(s.path)}`;
      if (!files.includes(label)) files.push(label);
    }
    if (count === 0) continue;
    out.push(
      `Ignoring ${count} ${setting} ${count === 1 ? 'entry' : 'entries'} from ${files.join(' and ')}: ` +
        'this workspace has not been trusted. Run Claude Code interactively here once and accept the trust dialog, ' +
        `or set projects[${JSON.stringify(trustRecordDir(cwd))}].hasTrustDialogAccepted: true in ${configFile}.`,
    );
  }
  return out;
}

function merge(sources: LoadedSource[], cwd: string, trust: ProjectTrust, home: string): LoadedSettings {
  const out: LoadedSettings = {
    sources,
    permissions: { allow: [], deny: [], ask: [], additionalDirectories: [] },
    env: {},
    envFiles: [],
    thinking: {},
    hooks: [],
    warnings: [],
  };
  const add = (list: string[], rules: readonly string[] | undefined, root: string): void => {
    for (const r of rules ?? []) {
      const c = canonicalRule(r, root, cwd);
      if (!list.includes(c)) list.push(c);
    }
  };
  for (const s of sources) {
    const p = s.settings.permissions;
    const projectScoped = s.source === 'project' || s.source === 'local';
    // What widens permissions waits for trust (the warning is untrustedWarnings').
    const untrusted = gated(s.source, trust);
    if (!untrusted) add(out.permissions.allow, p?.allow, s.root);
    add(out.permissions.deny, p?.deny, s.root);
    add(out.permissions.ask, p?.ask, s.root);
    if (projectScoped && p?.defaultMode === 'bypassPermissions') {
      // As Claude Code: a repository cannot switch permission checks off for whoever runs in it
      // (trusted or not); only the user's own settings or the command line can.
      out.warnings.push(
        `Ignoring permissions.defaultMode "bypassPermissions" from ${s.path}: project settings cannot turn permission checks off. ` +
          `Pass --permission-mode bypassPermissions (or --dangerously-skip-permissions) to do so.`,
      );
    } else if (p?.defaultMode !== undefined) out.permissions.defaultMode = p.defaultMode;
    for (const d of untrusted ? [] : (p?.additionalDirectories ?? [])) {
      const abs = d === '~' || d.startsWith('~/') ? path.join(home, d.slice(1)) : path.resolve(s.root, d);
      if (!existsSync(abs) || !statSync(abs).isDirectory()) {
        out.warnings.push(`${s.path}: permissions.additionalDirectories: ${abs} is not a directory; ignored`);
        continue;
      }
      if (!out.permissions.additionalDirectories.includes(abs)) out.permissions.additionalDirectories.push(abs);
    }
    if (s.settings.env && Object.keys(s.settings.env).length > 0) {
      Object.assign(out.env, s.settings.env);
      out.envFiles.push(s.realPath ?? s.path);
    }
    if (s.settings.model !== undefined) out.model = s.settings.model;
    if (s.settings.effortLevel !== undefined) out.thinking.effortLevel = s.settings.effortLevel;
    if (s.settings.alwaysThinkingEnabled !== undefined)
      out.thinking.alwaysThinkingEnabled = s.settings.alwaysThinkingEnabled;
    if (s.settings.hooks !== undefined) out.hooks.push({ source: s.source, path: s.path, hooks: s.settings.hooks });
  }
  return out;
}
