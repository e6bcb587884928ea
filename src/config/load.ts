/**
 * Loads the configuration: file (YAML) → environment overrides → zod schema → path expansion.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { ConfigSchema, type Config } from './schema';
import { AgentRunnerError } from '../common/errors';
import { loadTemporalProfile, profileConfigLayer } from './temporal-profile';

/** File name looked up in the working directory. */
export const CONFIG_FILE_NAME = 'temporal.yaml';

/** Env var naming the config file (relative paths are resolved against the cwd). */
export const CONFIG_PATH_ENV = 'AGENT_RUNNER_CONFIG';

/**
 * Environment variables that override fields of the file (an empty value counts as unset).
 * `ANTHROPIC_BASE_URL` sets `model.baseUrl`, `TEMPORAL_CLI_PATH` sets `devServer.cliPath`.
 */
export const CONFIG_ENV_OVERRIDES: ReadonlyArray<{ readonly env: string; readonly path: readonly string[] }> = [
  { env: 'TEMPORAL_ADDRESS', path: ['temporal', 'address'] },
  { env: 'TEMPORAL_NAMESPACE', path: ['temporal', 'namespace'] },
  { env: 'AGENT_RUNNER_TASK_QUEUE', path: ['temporal', 'taskQueue'] },
  { env: 'TEMPORAL_CLI_PATH', path: ['devServer', 'cliPath'] },
  { env: 'AGENT_RUNNER_DATA_DIR', path: ['dataDir'] },
  { env: 'AGENT_RUNNER_MODEL', path: ['model', 'name'] },
  { env: 'ANTHROPIC_BASE_URL', path: ['model', 'baseUrl'] },
  { env: 'AGENT_RUNNER_STORE_URL', path: ['store', 'url'] },
  { env: 'AGENT_RUNNER_WORKSPACE_ROOT', path: ['workspace', 'root'] },
  { env: 'AGENT_RUNNER_METRICS_PROMETHEUS_ADDRESS', path: ['worker', 'metricsPrometheusAddress'] },
  { env: 'AGENT_RUNNER_METRICS_OTLP_URL', path: ['worker', 'metricsOtlpUrl'] },
  { env: 'AGENT_RUNNER_DEPLOYMENT_NAME', path: ['worker', 'deploymentName'] },
  { env: 'AGENT_RUNNER_BUILD_ID', path: ['worker', 'buildId'] },
  { env: 'AGENT_RUNNER_VERSIONING_BEHAVIOR', path: ['worker', 'defaultVersioningBehavior'] },
  // Temporal's client environment configuration (@temporalio/envconfig) names:
  { env: 'TEMPORAL_TLS', path: ['temporal', 'tls', 'enabled'] },
  { env: 'TEMPORAL_TLS_SERVER_NAME', path: ['temporal', 'tls', 'serverNameOverride'] },
  { env: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH', path: ['temporal', 'tls', 'serverCaCertPath'] },
  { env: 'TEMPORAL_TLS_CLIENT_CERT_PATH', path: ['temporal', 'tls', 'clientCertPath'] },
  { env: 'TEMPORAL_TLS_CLIENT_KEY_PATH', path: ['temporal', 'tls', 'clientKeyPath'] },
];

/** One problem found in a configuration. */
export interface ConfigIssue {
  /** Dotted field path, e.g. `worker.maxCachedWorkflows` (empty for the whole file). */
  path: string;
  /** What is wrong, e.g. `expected a positive integer, got -1`. */
  message: string;
  /** 1-based line in the file, when known. */
  line?: number;
  /** The environment variable the bad value came from, when it came from one. */
  env?: string;
}

/**
 * Thrown by {@link loadConfig} when the config file is missing (when named explicitly), is not
 * valid YAML, or has a bad or unknown field. The message names the file, each field path and
 * the problem.
 */
export class ConfigError extends AgentRunnerError {
  override readonly name = 'ConfigError';
  readonly kind = 'usage';
  constructor(
    /** The config file, or null when the values came from the defaults and the environment. */
    readonly file: string | null,
    /** The problems, at least one. */
    readonly issues: readonly ConfigIssue[],
  ) {
    super(formatConfigError(file, issues));
  }
}

function formatConfigError(file: string | null, issues: readonly ConfigIssue[]): string {
  const lines = issues.map((i) => {
    const where = file === null ? '(defaults and environment)' : i.line !== undefined ? `${file}:${i.line}` : file;
    const field = i.path ? `${i.path}${i.env ? ` (from env ${i.env})` : ''}: ` : '';
    return `${where}: ${field}${i.message}`;
  });
  if (lines.length === 1) return `invalid configuration: ${lines[0]}`;
  return `invalid configuration (${lines.length} problems):\n${lines.map((l) => `  ${l}`).join('\n')}`;
}

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /** Config file to read; it must exist. Relative paths resolve against `cwd`. */
  path?: string;
  /** Environment to read overrides from. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Directory where `temporal.yaml` is looked up and relative paths resolve. @default process.cwd() */
  cwd?: string;
}

/**
 * Which config file {@link loadConfig} reads: `opts.path`, else env `AGENT_RUNNER_CONFIG`, else
 * `temporal.yaml` in `cwd` if it exists; null means the built-in defaults.
 */
export function resolveConfigPath(opts: LoadConfigOptions = {}): string | null {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  if (opts.path !== undefined) return path.resolve(cwd, opts.path);
  const fromEnv = env[CONFIG_PATH_ENV];
  if (fromEnv) return path.resolve(cwd, fromEnv);
  const local = path.join(cwd, CONFIG_FILE_NAME);
  return fs.existsSync(local) ? local : null;
}

/**
 * Loads and validates the configuration.
 *
 * File lookup: `opts.path` → env `AGENT_RUNNER_CONFIG` → `temporal.yaml` in `cwd` if present →
 * built-in defaults (identical to the shipped `temporal.yaml`). Then Temporal's TOML profile
 * (`TEMPORAL_CONFIG_FILE`, `TEMPORAL_PROFILE`, the default path; see `./temporal-profile`) overrides
 * the file's `temporal` section, and the variables of {@link CONFIG_ENV_OVERRIDES} override both. `~` is expanded in `dataDir`,
 * `devServer.cliPath` and `devServer.dbFilename`; `dataDir` is made absolute.
 *
 * @throws ConfigError when an explicitly named file (path or `AGENT_RUNNER_CONFIG`) is missing or
 *   unreadable, the YAML is invalid (the message has the line), or a field is invalid or unknown.
 * @throws TemporalProfileError when `TEMPORAL_CONFIG_FILE` cannot be read, its TOML is invalid, or
 *   the profile named by `TEMPORAL_PROFILE` is not in it.
 */
export function loadConfig(opts: LoadConfigOptions = {}): Config {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const file = resolveConfigPath(opts);

  let raw: unknown = {};
  let locate: (p: readonly PropertyKey[]) => number | undefined = () => undefined;
  if (file !== null) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const problem = code === 'ENOENT' ? 'file not found' : `cannot read the file (${code ?? String(err)})`;
      throw new ConfigError(file, [{ path: '', message: problem }]);
    }
    ({ raw, locate } = parseYaml(file, text));
  }

  if (raw === null || raw === undefined) raw = {};
  if (!isPlainObject(raw)) {
    throw new ConfigError(file, [
      { path: '', message: `expected a mapping at the top level, got ${describe(raw)}`, line: 1 },
    ]);
  }

  // Temporal's TOML profile (TEMPORAL_CONFIG_FILE / TEMPORAL_PROFILE) over the file's `temporal`
  // section, under the environment (see ./temporal-profile).
  const profile = loadTemporalProfile(env);
  if (profile !== null) applyLayer(raw, ['temporal'], profileConfigLayer(profile, cwd));
  const fromEnv = applyEnvOverrides(raw, env);
  const result = ConfigSchema.safeParse(raw, { reportInput: true });
  if (!result.success) {
    const issues = result.error.issues
      .flatMap((issue) => toConfigIssues(issue, fromEnv, locate))
      .sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    throw new ConfigError(file, issues);
  }

  const config = result.data;
  const home = env['HOME'] || os.homedir();
  const dataDirFromFile = file !== null && !fromEnv.has('dataDir') && hasPath(raw, ['dataDir']);
  const baseDir = dataDirFromFile && file !== null ? path.dirname(file) : cwd;
  config.dataDir = path.resolve(baseDir, expandHome(config.dataDir, home));
  if (config.devServer.cliPath !== null) {
    const cli = expandHome(config.devServer.cliPath, home);
    const cliBase = file !== null && !fromEnv.has('devServer.cliPath') ? path.dirname(file) : cwd;
    // A bare command name ("temporal") is left for a PATH lookup.
    config.devServer.cliPath = cli.includes('/') || cli.includes('\\') ? path.resolve(cliBase, cli) : cli;
  }
  // TLS file paths: relative to the config file (or, from the environment, to the cwd).
  for (const key of ['serverCaCertPath', 'clientCertPath', 'clientKeyPath'] as const) {
    const p = config.temporal.tls[key];
    if (p === null) continue;
    const base = file !== null && !fromEnv.has(`temporal.tls.${key}`) ? path.dirname(file) : cwd;
    config.temporal.tls[key] = path.resolve(base, expandHome(p, home));
  }
  config.workspace.root = path.resolve(
    config.workspace.root === null ? path.join(config.dataDir, 'workspaces') : expandHome(config.workspace.root, home),
  );
  if (config.devServer.dbFilename !== null) {
    config.devServer.dbFilename = expandHome(config.devServer.dbFilename, home);
  }
  return config;
}

/** Replaces a leading `~` (alone or followed by a separator) by `home`. */
export function expandHome(p: string, home: string = os.homedir()): string {
  if (p === '~') return home;
  if (p.startsWith('~/') || p.startsWith('~\\')) return path.join(home, p.slice(2));
  return p;
}

// ---------------------------------------------------------------------------------------------

function parseYaml(
  file: string,
  text: string,
): { raw: unknown; locate: (p: readonly PropertyKey[]) => number | undefined } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      file,
      doc.errors.map((e) => {
        const line = lineCounter.linePos(e.pos[0]).line;
        const message = `invalid YAML: ${e.message.split('\n')[0] ?? e.message}`;
        return line !== undefined ? { path: '', message, line } : { path: '', message };
      }),
    );
  }
  const locate = (p: readonly PropertyKey[]): number | undefined => {
    // Walk up until a node of the path exists (an unknown key's parent, a missing field's object).
    for (let n = p.length; n >= 0; n--) {
      const keys = p.slice(0, n).map((k) => (typeof k === 'number' ? k : String(k)));
      const node = n === 0 ? doc.contents : doc.getIn(keys, true);
      const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
      if (range) return lineCounter.linePos(range[0]).line;
    }
    return undefined;
  };
  return { raw: doc.toJS({ maxAliasCount: 100 }) as unknown, locate };
}

/** Merges `layer` into `raw` at `at` (mappings merged key by key, other values replaced). */
function applyLayer(raw: Record<string, unknown>, at: readonly string[], layer: Record<string, unknown>): void {
  let target = raw;
  for (const key of at) {
    const next = target[key];
    if (next === undefined || next === null) target[key] = {};
    else if (!isPlainObject(next)) return; // the schema reports the non-mapping
    target = target[key] as Record<string, unknown>;
  }
  for (const [key, value] of Object.entries(layer)) {
    const cur = target[key];
    if (isPlainObject(value) && isPlainObject(cur)) applyLayer(target, [key], value);
    else target[key] = value;
  }
}

/** Sets env overrides into the raw object; returns the dotted paths that came from env → env var. */
function applyEnvOverrides(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): Map<string, string> {
  const used = new Map<string, string>();
  for (const { env: name, path: p } of CONFIG_ENV_OVERRIDES) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    let target: Record<string, unknown> = raw;
    let ok = true;
    for (const key of p.slice(0, -1)) {
      const next = target[key];
      if (next === undefined || next === null) {
        const created: Record<string, unknown> = {};
        target[key] = created;
        target = created;
      } else if (isPlainObject(next)) {
        target = next;
      } else {
        ok = false; // the file has a non-mapping here; the schema reports it.
        break;
      }
    }
    const last = p[p.length - 1];
    if (ok && last !== undefined) {
      target[last] = value;
      used.set(p.join('.'), name);
    }
  }
  return used;
}

function toConfigIssues(
  issue: z.core.$ZodIssue,
  fromEnv: Map<string, string>,
  locate: (p: readonly PropertyKey[]) => number | undefined,
): ConfigIssue[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const p = [...issue.path, key];
      const known = knownKeysAt(ConfigSchema, issue.path);
      const suggestion = known ? closest(key, known) : undefined;
      const message = suggestion ? `unknown key (did you mean "${suggestion}"?)` : 'unknown key';
      return withLine({ path: dotted(p), message }, locate(p));
    });
  }
  const p = dotted(issue.path);
  const envName = fromEnv.get(p);
  let message = issue.message;
  if ('input' in issue) {
    message += issue.input === undefined ? ', but the field is missing' : `, got ${describe(issue.input)}`;
  }
  const out: ConfigIssue = { path: p, message };
  if (envName !== undefined) out.env = envName;
  return [withLine(out, envName === undefined ? locate(issue.path) : undefined)];
}

function withLine(issue: ConfigIssue, line: number | undefined): ConfigIssue {
  if (line !== undefined) issue.line = line;
  return issue;
}

function dotted(p: readonly PropertyKey[]): string {
  return p.map((k) => String(k)).join('.');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function hasPath(obj: Record<string, unknown>, p: readonly string[]): boolean {
  let cur: unknown = obj;
  for (const k of p) {
    if (!isPlainObject(cur) || !(k in cur)) return false;
    cur = cur[k];
  }
  return cur !== undefined;
}

/** The keys an object schema accepts at `p` (through defaults, optionals and records). */
function knownKeysAt(schema: z.core.$ZodType, p: readonly PropertyKey[]): string[] | undefined {
  let cur: z.core.$ZodType | undefined = unwrap(schema);
  for (const k of p) {
    if (!cur) return undefined;
    const def = cur._zod.def;
    if (def.type === 'object') cur = unwrap((def as z.core.$ZodObjectDef).shape[String(k)]);
    else if (def.type === 'record') cur = unwrap((def as z.core.$ZodRecordDef).valueType);
    else return undefined;
  }
  if (cur && cur._zod.def.type === 'object') return Object.keys((cur._zod.def as z.core.$ZodObjectDef).shape);
  return undefined;
}

function unwrap(s: z.core.$ZodType | undefined): z.core.$ZodType | undefined {
  let cur = s;
  for (let i = 0; cur && i < 10; i++) {
    const def = cur._zod.def as { type: string; innerType?: z.core.$ZodType; in?: z.core.$ZodType };
    if (def.innerType) cur = def.innerType;
    else if (def.type === 'pipe' && def.in) cur = def.in;
    else break;
  }
  return cur;
}

/** The known key closest to `key` (case-insensitive, edit distance ≤ a third of its length). */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDist = Infinity;
  const limit = Math.max(2, Math.floor(key.length / 3));
  for (const k of known) {
    const d = editDistance(key.toLowerCase(), k.toLowerCase());
    if (d <= limit && d < bestDist) {
      best = k;
      bestDist = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const sub = (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, sub);
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}
