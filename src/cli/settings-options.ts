/**
 * Turn options from Claude Code settings files plus the permission flags: `--settings`,
 * `--setting-sources`, `--add-dir`, `--allowedTools`, `--disallowedTools`, `--permission-mode`,
 * `--model`. Flags rank above every settings file. Rules travel in the turn options in canonical
 * form (path patterns absolute), so the workflow and the activities need no settings roots.
 */
import { createHash } from 'node:crypto';
import { resolveModelAlias } from '../config/model-aliases';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { TurnOptions } from '../common/turn';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, ensurePrivateDataDir } from '../store/data-dir';
import { ruleSyntaxError } from '../config-files/permission-rules';
import { canonicalRule, loadSettings } from '../config-files';
import type { LoadedSettings } from '../config-files';
import { UsageError } from './turn-options';
import { deniedAgentTypes } from '../engine/agent-rules';
import type { ThinkingFlags } from './thinking-options';
import { withThinkingSettings } from './thinking-options';
import type { ModelNaming } from '../config/model-aliases';

/** Flags this step reads. */
export interface SettingsFlags extends ThinkingFlags {
  settings?: string;
  settingSources?: string;
  addDir?: string[];
  /** Given explicitly (so settings' `defaultMode` does not apply)? */
  permissionMode?: string;
  dangerouslySkipPermissions?: boolean;
  model?: string;
}

/** Options of {@link applySettings}. */
export interface ApplySettingsOptions {
  cwd: string;
  /** Where `--settings` JSON given inline is kept for workers to re-read its `env` (the data directory). */
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** Receives warnings (stderr). */
  warn?: (line: string) => void;
  /** Receives the loaded settings (the hooks read their `hooks` sections from them). */
  onLoaded?: (loaded: LoadedSettings) => void;
  /** How a settings `model` resolves (provider, environment). @default first-party, no environment */
  naming?: ModelNaming;
}

function checkRules(flag: string, rules: readonly string[] | undefined): void {
  for (const r of rules ?? []) {
    const e = ruleSyntaxError(r);
    if (e !== null) throw new UsageError(`${flag}: ${e}`);
  }
}

function union(...lists: Array<readonly string[] | undefined>): string[] | undefined {
  const out: string[] = [];
  for (const l of lists) for (const r of l ?? []) if (!out.includes(r)) out.push(r);
  return out.length > 0 ? out : undefined;
}

/**
 * The settings files' `env` as files a worker can re-read: inline `--settings` JSON is written to
 * `<dataDir>/settings/<sha256>.json` (mode 0600).
 */
function envRef(loaded: LoadedSettings, dataDir: string): string[] {
  return loaded.envFiles.map((f) => {
    if (f !== '--settings') return f;
    const src = loaded.sources.find((s) => s.path === '--settings');
    const json = JSON.stringify({ env: src?.settings.env ?? {} });
    const dir = path.join(dataDir, 'settings');
    ensurePrivateDataDir(dataDir);
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const file = path.join(dir, `${createHash('sha256').update(json).digest('hex')}.json`);
    if (!existsSync(file)) writeFileSync(file, json, { mode: PRIVATE_FILE_MODE });
    return file;
  });
}

/** Claude Code's names of the places a permission rule comes from. */
const RULE_SOURCE_NAMES: Record<LoadedSettings['sources'][number]['source'], string> = {
  user: 'userSettings',
  project: 'projectSettings',
  local: 'localSettings',
  flagSettings: 'flagSettings',
};

/**
 * Where each `Agent(<type>)` deny rule comes from, by type (the first source that names it, the
 * settings files before the flags), or undefined when no deny rule names a type.
 */
function agentDenySources(
  loaded: LoadedSettings,
  cliRules: readonly string[] | undefined,
  cwd: string,
): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  const note = (rules: readonly string[], source: string): void => {
    for (const type of deniedAgentTypes(rules)) out[type] ??= source;
  };
  for (const s of loaded.sources) {
    note(
      (s.settings.permissions?.deny ?? []).map((r) => canonicalRule(r, s.root, cwd)),
      RULE_SOURCE_NAMES[s.source],
    );
  }
  note(cliRules ?? [], 'cliArg');
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Merges the settings files into turn options built from flags and config.
 * @throws UsageError for a bad rule in a flag or an `--add-dir` that is not a directory
 * @throws SettingsError naming the file and field for a bad settings file
 */
export function applySettings(base: TurnOptions, flags: SettingsFlags, opts: ApplySettingsOptions): TurnOptions {
  const cwd = path.resolve(opts.cwd);
  checkRules('--allowedTools', base.allowedTools);
  checkRules('--disallowedTools', base.disallowedTools);
  const addDirs = (flags.addDir ?? []).map((d) => {
    const abs = path.resolve(cwd, d);
    if (!existsSync(abs) || !statSync(abs).isDirectory()) throw new UsageError(`--add-dir: ${abs} is not a directory`);
    return abs;
  });
  const loaded = loadSettings({
    cwd,
    ...(flags.settingSources !== undefined ? { settingSources: flags.settingSources } : {}),
    ...(flags.settings !== undefined ? { settingsArg: flags.settings } : {}),
    ...(opts.env ? { env: opts.env } : {}),
  });
  for (const w of loaded.warnings) opts.warn?.(w);
  opts.onLoaded?.(loaded);
  const cli = (rules: readonly string[] | undefined): string[] | undefined =>
    rules?.map((r) => canonicalRule(r, cwd, cwd));
  const modeGiven = flags.permissionMode !== undefined || flags.dangerouslySkipPermissions === true;
  const allowed = union(loaded.permissions.allow, cli(base.allowedTools));
  const disallowed = union(loaded.permissions.deny, cli(base.disallowedTools));
  const ask = union(loaded.permissions.ask);
  const agentRuleSources = agentDenySources(loaded, cli(base.disallowedTools), cwd);
  const dirs = union(loaded.permissions.additionalDirectories, addDirs);
  const envFiles = envRef(loaded, opts.dataDir);
  const rest: TurnOptions = { ...base };
  delete rest.allowedTools;
  delete rest.disallowedTools;
  const env = opts.env ?? process.env;
  const thinking = withThinkingSettings(base.thinking, flags, env, loaded.thinking, opts.warn);
  delete rest.thinking;
  // `--model` and `ANTHROPIC_MODEL` rank above a settings file's model.
  const modelGiven = flags.model !== undefined || (env['ANTHROPIC_MODEL'] ?? '').trim() !== '';
  return {
    ...rest,
    ...(thinking ? { thinking } : {}),
    ...(!modelGiven && loaded.model !== undefined ? { model: resolveModelAlias(loaded.model, opts.naming) } : {}),
    ...(!modeGiven && loaded.permissions.defaultMode !== undefined
      ? { permissionMode: loaded.permissions.defaultMode }
      : {}),
    ...(allowed ? { allowedTools: allowed } : {}),
    ...(disallowed ? { disallowedTools: disallowed } : {}),
    ...(ask ? { askTools: ask } : {}),
    ...(agentRuleSources ? { agentRuleSources } : {}),
    ...(dirs ? { additionalDirectories: dirs } : {}),
    ...(envFiles.length > 0 ? { settingsEnv: { files: envFiles } } : {}),
  };
}

/**
 * The options settings files (and the permission flags) change relative to `base`, for callers
 * that layer them between defaults and per-task options (`agent-runner batch`).
 */
export function settingsOverrides(
  base: TurnOptions,
  flags: SettingsFlags,
  opts: ApplySettingsOptions,
): Partial<TurnOptions> {
  const merged = applySettings(base, flags, opts);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(merged)) {
    if (JSON.stringify(v) !== JSON.stringify((base as unknown as Record<string, unknown>)[k])) out[k] = v;
  }
  return out as Partial<TurnOptions>;
}
