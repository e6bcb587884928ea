/**
 * The configuration schema: one zod schema whose `.default()`s are the built-in defaults.
 * They must stay identical to the shipped `temporal.yaml` (a unit test compares them).
 *
 * Everything here is pure (no I/O); `load.ts` reads the file and the environment.
 */
import { z } from 'zod';
import type { ModelPrice } from '../common/usage';
import { canonicalModelId } from '../common/model-capabilities';
import { MODEL_PROVIDER_NAMES, type ModelProviderName } from './provider';

// ---------------------------------------------------------------------------------------------
// Field helpers: each carries the message a user sees after "<field path>: ".
// ---------------------------------------------------------------------------------------------

const positiveInt = (def: number) =>
  z.int({ error: 'expected a positive integer' }).positive({ error: 'expected a positive integer' }).default(def);

const nonNegativeInt = (def: number) =>
  z
    .int({ error: 'expected a non-negative integer' })
    .nonnegative({ error: 'expected a non-negative integer' })
    .default(def);

const port = (def: number) =>
  z
    .int({ error: 'expected a port number (0-65535, 0 = a free port)' })
    .min(0, { error: 'expected a port number (0-65535, 0 = a free port)' })
    .max(65535, { error: 'expected a port number (0-65535, 0 = a free port)' })
    .default(def);

const nonEmptyString = (def: string) =>
  z.string({ error: 'expected a non-empty string' }).min(1, { error: 'expected a non-empty string' }).default(def);

const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const envVarName = (def: string) =>
  z
    .string({ error: 'expected the name of an environment variable' })
    .regex(ENV_NAME_RE, { error: 'expected the name of an environment variable' })
    .default(def);

/** `host:port`, `1.2.3.4:7233` or `[::1]:7233`. */
const HOST_PORT_RE = /^(\[[0-9A-Fa-f:.]+\]|[^\s:/[\]]+):\d{1,5}$/;

const usdPerMTok = z
  .number({ error: 'expected a non-negative number (USD per million tokens)' })
  .nonnegative({ error: 'expected a non-negative number (USD per million tokens)' });

// ---------------------------------------------------------------------------------------------
// Prices
// ---------------------------------------------------------------------------------------------

export type { ModelPrice } from '../common/usage';

/** Table of model prices keyed by model id (a prefix of the ids the API reports). */
export type PriceTable = Record<string, ModelPrice>;

const price = (
  input: number,
  output: number,
  cacheWrite5m: number,
  cacheWrite1h: number,
  cacheRead: number,
): ModelPrice => ({ input, output, cacheWrite5m, cacheWrite1h, cacheRead });

/**
 * Built-in prices, USD per million tokens.
 * Source: https://platform.claude.com/docs/en/about-claude/pricing (checked 2026-11).
 * Keep in sync with the `prices:` table of `temporal.yaml`.
 */
export const DEFAULT_PRICES: Readonly<PriceTable> = Object.freeze({
  'claude-opus-5-5': price(4, 20, 5, 8, 0.2),
  'claude-opus-5': price(5, 25, 6.25, 10, 0.5),
  'claude-opus-4-6': price(5, 25, 6.25, 10, 0.5),
  'claude-opus-4-5': price(5, 25, 6.25, 10, 0.5),
  'claude-opus-4-1': price(15, 75, 18.75, 30, 1.5),
  'claude-opus-4': price(15, 75, 18.75, 30, 1.5),
  'claude-sonnet-5-5': price(2, 10, 2.5, 4, 0.2),
  'claude-sonnet-5': price(2, 10, 2.5, 4, 0.2),
  'claude-sonnet-4-6': price(3, 15, 3.75, 6, 0.3),
  'claude-sonnet-4-5': price(3, 15, 3.75, 6, 0.3),
  'claude-sonnet-4': price(3, 15, 3.75, 6, 0.3),
  'claude-haiku-4-5': price(1, 5, 1.25, 2, 0.1),
  'claude-3-5-haiku': price(0.8, 4, 1, 1.6, 0.08),
});

const ModelPriceSchema = z.strictObject({
  input: usdPerMTok,
  output: usdPerMTok,
  cacheWrite5m: usdPerMTok,
  cacheWrite1h: usdPerMTok,
  cacheRead: usdPerMTok,
  /** USD per 1,000 web searches (default: the API's 10). */
  webSearch: usdPerMTok.optional(),
});

/**
 * The price of `model` in `prices`: the entry whose key equals the model id, else the entry with
 * the longest key that is a prefix of the id followed by `-` or `@` (so
 * `claude-sonnet-4-5-20250929` and `claude-sonnet-4-5@20250929` find `claude-sonnet-4-5`, and
 * `claude-opus-4-1-20250805` finds `claude-opus-4-1` rather than `claude-opus-4`); a Bedrock or
 * Vertex id not in the table has the price of the model it names (`canonicalModelId`).
 * @returns undefined when no entry matches (the caller decides how to report unknown cost).
 */
export function findPrice(prices: Readonly<PriceTable>, model: string): ModelPrice | undefined {
  const found = findPriceOf(prices, model);
  if (found) return found;
  // A provider's id (us.anthropic.claude-sonnet-4-5-20250929-v1:0, claude-haiku-4-5@20251001)
  // has the price of the model it names, unless the table has an entry for the id itself.
  const canonical = canonicalModelId(model);
  return canonical !== model ? findPriceOf(prices, canonical) : undefined;
}

function findPriceOf(prices: Readonly<PriceTable>, model: string): ModelPrice | undefined {
  const exact = Object.prototype.hasOwnProperty.call(prices, model) ? prices[model] : undefined;
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(prices)) {
    if (key.length === 0 || model.length <= key.length || !model.startsWith(key)) continue;
    const next = model[key.length];
    if (next !== '-' && next !== '@') continue;
    if (best === undefined || key.length > best.length) best = key;
  }
  return best === undefined ? undefined : prices[best];
}

// ---------------------------------------------------------------------------------------------
// The schema
// ---------------------------------------------------------------------------------------------

/** Log levels of `temporal server start-dev --log-level`. */
export const DEV_SERVER_LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'never'] as const;
/** One of {@link DEV_SERVER_LOG_LEVELS}. */
export type DevServerLogLevel = (typeof DEV_SERVER_LOG_LEVELS)[number];

const pathOrNull = z
  .string({ error: 'expected a file path or null' })
  .min(1, { error: 'expected a file path or null' })
  .nullable()
  .default(null);

/** `true`/`false`, also as the strings `true`/`1`/`false`/`0` (the form an environment variable has). */
const boolOrNull = z
  .preprocess(
    (v) => (v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : v),
    z.boolean({ error: 'expected true, false or null' }).nullable(),
  )
  .default(null);

const TlsSchema = z.strictObject({
  enabled: boolOrNull,
  serverNameOverride: z
    .string({ error: 'expected a non-empty string' })
    .min(1, { error: 'expected a non-empty string' })
    .optional(),
  serverCaCertPath: pathOrNull,
  clientCertPath: pathOrNull,
  clientKeyPath: pathOrNull,
});

const TemporalSchema = z.strictObject({
  address: z
    .string({ error: 'expected host:port or null' })
    .regex(HOST_PORT_RE, { error: 'expected host:port or null' })
    .nullable()
    .default(null),
  namespace: nonEmptyString('default'),
  taskQueue: nonEmptyString('agent-runner'),
  tls: TlsSchema.prefault({}),
  apiKeyEnv: envVarName('TEMPORAL_API_KEY'),
  outageTimeoutMs: nonNegativeInt(600_000),
});

const DevServerSchema = z.strictObject({
  cliPath: z
    .string({ error: 'expected a path or null' })
    .min(1, { error: 'expected a path or null' })
    .nullable()
    .default(null),
  ip: nonEmptyString('127.0.0.1'),
  port: port(0),
  uiPort: port(8233),
  ui: z.boolean({ error: 'expected true or false' }).default(false),
  dbFilename: z
    .string({ error: 'expected a file name or null' })
    .min(1, { error: 'expected a file name or null' })
    .nullable()
    .default('temporal.db'),
  startTimeoutMs: positiveInt(60_000),
  logLevel: z
    .enum(DEV_SERVER_LOG_LEVELS, { error: `expected one of ${DEV_SERVER_LOG_LEVELS.join(', ')}` })
    .default('warn'),
  idleTimeoutMs: nonNegativeInt(600_000),
  spareClients: nonNegativeInt(1).pipe(z.int().max(8, { error: 'expected at most 8' })),
  dynamicConfig: z.record(z.string().min(1), z.unknown(), { error: 'expected a map of key: value' }).default({}),
  sqlitePragmas: z
    .record(z.string().regex(/^[a-z_]+$/, { error: 'expected a pragma name' }), z.string(), {
      error: 'expected a map of pragma: value',
    })
    .default({}),
});

/** Values of `worker.defaultVersioningBehavior` (Temporal's `VersioningBehavior`). */
export const VERSIONING_BEHAVIORS = ['PINNED', 'AUTO_UPGRADE'] as const;

const WorkerSchema = z.strictObject({
  maxConcurrentActivityTaskExecutions: positiveInt(100),
  maxConcurrentWorkflowTaskExecutions: positiveInt(40),
  maxCachedWorkflows: positiveInt(500),
  shutdownGraceTimeMs: nonNegativeInt(5000),
  shutdownForceTimeMs: positiveInt(15000),
  stickyQueueTimeoutMs: positiveInt(5000),
  heartbeatThrottleMs: positiveInt(250),
  metricsPrometheusAddress: z
    .string()
    .regex(/^[^\s:]+:\d+$/, { error: 'expected host:port, e.g. 0.0.0.0:9000' })
    .nullable()
    .default(null),
  metricsOtlpUrl: z
    .url({ error: 'expected an http(s) or grpc(s) URL or null', protocol: /^(https?|grpcs?)$/ })
    .nullable()
    .default(null),
  deploymentName: z.string().min(1, { error: 'expected a non-empty string or null' }).nullable().default(null),
  buildId: z.string().min(1, { error: 'expected a non-empty string or null' }).nullable().default(null),
  defaultVersioningBehavior: z
    .enum(VERSIONING_BEHAVIORS, { error: `expected one of ${VERSIONING_BEHAVIORS.join(', ')}` })
    .default('PINNED'),
});

const BatchApiSchema = z.strictObject({
  enabled: z.boolean({ error: 'expected true or false' }).default(false),
  maxWaitMs: positiveInt(86_400_000),
  windowMs: nonNegativeInt(2000),
  pollIntervalMs: positiveInt(1000),
  maxPollIntervalMs: positiveInt(60_000),
});

const ModelSchema = z.strictObject({
  /** A model id, or a Claude Code alias (`sonnet`, `opus`, `haiku`), resolved per provider when a turn starts. */
  name: nonEmptyString('sonnet'),
  maxTokens: z
    .int({ error: 'expected a positive integer or null' })
    .positive({ error: 'expected a positive integer or null' })
    .nullable()
    .default(null),
  provider: z
    .enum(MODEL_PROVIDER_NAMES, { error: `expected one of ${MODEL_PROVIDER_NAMES.join(', ')}, or null` })
    .nullable()
    .default(null),
  baseUrl: z
    .url({ error: 'expected an http(s) URL or null', protocol: /^https?$/ })
    .nullable()
    .default(null),
  apiKeyEnv: envVarName('ANTHROPIC_API_KEY'),
  requestTimeoutMs: positiveInt(600_000),
  heartbeatTimeoutMs: positiveInt(30_000),
  maxAttempts: positiveInt(10),
  streamIdleTimeoutMs: nonNegativeInt(300_000),
  batchApi: BatchApiSchema.prefault({}),
});

const ToolsSchema = z.strictObject({
  bashTimeoutMs: positiveInt(120_000),
  bashOutputLimitChars: positiveInt(8_000_000),
  largeResultChars: positiveInt(30_000),
  /**
   * More environment variables tool processes must not see (besides the model and Temporal keys),
   * e.g. tokens the worker itself uses. See src/env/child-env.ts.
   */
  secretEnv: z
    .array(z.string().regex(ENV_NAME_RE, { error: 'expected the name of an environment variable' }), {
      error: 'expected a list of environment variable names',
    })
    .default([]),
});

const CompactionSchema = z.strictObject({
  autoCompactRatio: z
    .number({ error: 'expected a number between 0 and 1 (0 turns auto-compaction off)' })
    .min(0, { error: 'expected a number between 0 and 1 (0 turns auto-compaction off)' })
    .max(1, { error: 'expected a number between 0 and 1 (0 turns auto-compaction off)' })
    .default(0.8),
  contextWindowTokens: z
    .int({ error: 'expected a positive integer or null' })
    .positive({ error: 'expected a positive integer or null' })
    .nullable()
    .default(null),
  preserveTokens: nonNegativeInt(20_000),
  microcompact: z.boolean({ error: 'expected true or false' }).default(true),
  triggerFill: z
    .number({ error: 'expected a number between 0 and 1 (0: snip and microcompact batches at any context size)' })
    .min(0, { error: 'expected a number between 0 and 1 (0: snip and microcompact batches at any context size)' })
    .max(1, { error: 'expected a number between 0 and 1 (0: snip and microcompact batches at any context size)' })
    .default(0.95),
  toolResultBudget: z.boolean({ error: 'expected true or false' }).default(true),
  snip: z.boolean({ error: 'expected true or false' }).default(true),
  collapse: z.boolean({ error: 'expected true or false' }).default(true),
});

const STORE_URL_ERROR = 'expected a postgres:// URL, jsonl:DIR, or null (JSONL files under dataDir)';
const StoreSchema = z.strictObject({
  url: z
    .string({ error: STORE_URL_ERROR })
    .regex(/^(postgres(ql)?:\/\/.+|jsonl:.+)$/i, { error: STORE_URL_ERROR })
    .nullable()
    .default(null),
  maxContentBytes: positiveInt(256 * 1024 * 1024),
  poolSize: positiveInt(10),
  connectTimeoutMs: positiveInt(10_000),
  outageTimeoutMs: nonNegativeInt(600_000),
});

const WorkspaceSchema = z.strictObject({
  follow: z.boolean({ error: 'expected true or false' }).default(true),
  root: z
    .string({ error: 'expected a directory path or null' })
    .min(1, { error: 'expected a directory path or null' })
    .nullable()
    .default(null),
  maxSnapshotBytes: positiveInt(64 * 1024 * 1024),
  hostTimeoutMs: positiveInt(30_000),
});

const PricesSchema = z
  .record(z.string().min(1), ModelPriceSchema, { error: 'expected a table keyed by model id' })
  .default({})
  // Entries of the file are added to (or replace) the built-in ones.
  .transform((given): PriceTable => ({ ...DEFAULT_PRICES, ...(given as PriceTable) }));

/**
 * The whole configuration (strict at every level: unknown keys are errors).
 * `ConfigSchema.parse({})` gives the built-in defaults, before `~` expansion (see `load.ts`).
 */
export const ConfigSchema = z.strictObject({
  temporal: TemporalSchema.prefault({}),
  devServer: DevServerSchema.prefault({}),
  worker: WorkerSchema.prefault({}),
  model: ModelSchema.prefault({}),
  tools: ToolsSchema.prefault({}),
  compaction: CompactionSchema.prefault({}),
  store: StoreSchema.prefault({}),
  workspace: WorkspaceSchema.prefault({}),
  prices: PricesSchema,
  dataDir: nonEmptyString('~/.agent-runner'),
});

// ---------------------------------------------------------------------------------------------
// The Config type, documented field by field (checked against the schema below).
// ---------------------------------------------------------------------------------------------

/**
 * TLS to the Temporal server (`temporal.tls`), named after `@temporalio/envconfig`: certificate
 * settings here are file *paths*; PEM *contents* come only from the environment
 * (`TEMPORAL_TLS_CLIENT_CERT_DATA`, `TEMPORAL_TLS_CLIENT_KEY_DATA`,
 * `TEMPORAL_TLS_SERVER_CA_CERT_DATA`), so that no secret sits in this file. A path and data for
 * the same item is an error. See `src/connection/temporal-connection.ts`.
 */
export interface TlsConfig {
  /**
   * Use TLS: true, false, or null for "when an API key or a certificate is given".
   * @default null. Env: `TEMPORAL_TLS` (true/false/1/0).
   */
  enabled: boolean | null;
  /** Server name to verify instead of the address's host. @default unset. Env: `TEMPORAL_TLS_SERVER_NAME`. */
  serverNameOverride?: string | undefined;
  /**
   * PEM file of the CA that signed the server's certificate (else the system's CAs). A relative
   * path is taken from the config file's directory. @default null. Env: `TEMPORAL_TLS_SERVER_CA_CERT_PATH`.
   */
  serverCaCertPath: string | null;
  /** PEM file of the client certificate (mTLS). @default null. Env: `TEMPORAL_TLS_CLIENT_CERT_PATH`. */
  clientCertPath: string | null;
  /** PEM file of the client's private key (mTLS). @default null. Env: `TEMPORAL_TLS_CLIENT_KEY_PATH`. */
  clientKeyPath: string | null;
}

/** Where the Temporal server is (`temporal`). */
export interface TemporalConfig {
  /**
   * `host:port` of a running Temporal server. When set, the runner connects to it and starts no
   * dev server; when null, an embedded dev server is started (see {@link DevServerConfig}).
   * @default null. Env: `TEMPORAL_ADDRESS`.
   */
  address: string | null;
  /** Temporal namespace. @default "default". Env: `TEMPORAL_NAMESPACE`. */
  namespace: string;
  /** Task queue of the agent workers. @default "agent-runner". Env: `AGENT_RUNNER_TASK_QUEUE`. */
  taskQueue: string;
  /** TLS settings. */
  tls: TlsConfig;
  /**
   * Name of the env var holding an API key (Temporal Cloud); when set, it is sent and TLS is on
   * unless `tls.enabled` is false. @default "TEMPORAL_API_KEY"
   */
  apiKeyEnv: string;
  /**
   * How long a client (`-p`, `attach`) keeps waiting for an unreachable server while it starts or
   * follows a turn, in milliseconds, before it gives up (the turn goes on). @default 600000
   */
  outageTimeoutMs: number;
}

/** The embedded dev server (`temporal server start-dev`), used when `temporal.address` is null. */
export interface DevServerConfig {
  /**
   * Path of the Temporal CLI binary; null = look for `TEMPORAL_CLI_PATH`, `temporal` on PATH, then
   * the project-local `.temporal/bin/temporal`. `~` is expanded.
   * @default null. Env: `TEMPORAL_CLI_PATH`.
   */
  cliPath: string | null;
  /** IP address the server binds to. @default "127.0.0.1" */
  ip: string;
  /** gRPC port; 0 = a free port. @default 0 */
  port: number;
  /**
   * Web UI port (used when the UI is served: `agent-runner server` and the background server
   * serve it); when it is taken, a free port is used instead. 0 = always a free port. @default 8233
   */
  uiPort: number;
  /** Serve the Web UI. @default false */
  ui: boolean;
  /** SQLite file, relative to `dataDir` (absolute paths allowed); null = in-memory. @default "temporal.db" */
  dbFilename: string | null;
  /** How long to wait for the server to answer, in milliseconds. @default 60000 */
  startTimeoutMs: number;
  /** Server log level. @default "warn" */
  logLevel: DevServerLogLevel;
  /**
   * How long the background server (started by a run that found no server) stays up with no
   * running turn and no client, in milliseconds; 0 = until `agent-runner server stop`. @default 600000
   */
  idleTimeoutMs: number;
  /**
   * Spare client processes a shared server keeps loaded, each taking one later `agent-runner -p`
   * on this machine so that it skips loading the client code (about 400 ms; see
   * `src/host/spare-pool.ts`); 0 = none, at most 8. @default 1
   */
  spareClients: number;
  /**
   * Extra dynamic config (`--dynamic-config-value KEY=JSON`), over the tuning every dev server gets
   * (`history.transferProcessorMaxPollRPS: 1000`; docs/performance.md, "Server tuning"). @default {}
   */
  dynamicConfig: Record<string, unknown>;
  /**
   * SQLite pragmas of the database file (`--sqlite-pragma NAME=VALUE`), over the defaults
   * `journal_mode: wal`, `synchronous: normal` (set `synchronous: full` to survive an OS crash
   * without losing the last transactions). @default {}
   */
  sqlitePragmas: Record<string, string>;
}

/** Worker tuning (`worker`); see Temporal's `WorkerOptions`. */
export interface WorkerConfig {
  /** Activities (model calls, tool runs) run at once per worker. @default 100 */
  maxConcurrentActivityTaskExecutions: number;
  /** Workflow tasks processed at once per worker. @default 40 */
  maxConcurrentWorkflowTaskExecutions: number;
  /** Workflows kept in the worker's sticky cache (about 1 MB each). @default 500 */
  maxCachedWorkflows: number;
  /** Time activities get to finish on shutdown before they are cancelled, in milliseconds. @default 5000 */
  shutdownGraceTimeMs: number;
  /**
   * Time after the grace time that cancelled activities get to stop before the worker stops
   * anyway (its run then fails), in milliseconds: a tool that ignores its cancellation cannot keep
   * a stopping worker alive for ever. @default 15000
   */
  shutdownForceTimeMs: number;
  /**
   * How long a workflow task waits for the worker that cached the workflow before any worker may
   * take it (Temporal's sticky queue schedule-to-start timeout), in milliseconds. It bounds how
   * long a killed worker's workflows stall. @default 5000 (Temporal's own default is 10000)
   */
  stickyQueueTimeoutMs: number;
  /**
   * Most time between two heartbeats an activity sends to Temporal, in milliseconds (Temporal's
   * `maxHeartbeatThrottleInterval`). A cancellation (an interrupt) reaches a running tool with a
   * heartbeat's answer, so this bounds how long a command runs on after an interrupt. @default 250
   */
  heartbeatThrottleMs: number;
  /**
   * `host:port` where the SDK Runtime serves Temporal's worker metrics for Prometheus (`/metrics`);
   * null = none. Env `AGENT_RUNNER_METRICS_PROMETHEUS_ADDRESS`. @default null
   */
  metricsPrometheusAddress: string | null;
  /**
   * OTLP collector for Temporal's worker metrics: `grpc(s)://host:4317` (OTLP/gRPC), or an
   * `http(s)://…/v1/metrics` URL (OTLP/HTTP); null = none. Env `AGENT_RUNNER_METRICS_OTLP_URL`.
   * @default null
   */
  metricsOtlpUrl: string | null;
  /**
   * Worker Deployment (Temporal's Worker Versioning) this worker belongs to; null = an unversioned
   * worker, as before. With a name, the worker polls as the version `{deploymentName, buildId}`
   * and takes only the tasks of workflows on that version (or of new ones while it is the
   * deployment's current version): see docs/deploy.md, "Releasing a new build".
   * Env `AGENT_RUNNER_DEPLOYMENT_NAME`. @default null
   */
  deploymentName: string | null;
  /**
   * The build id of this release within `deploymentName`; null = the worker's own build id
   * (`agent-runner@<version>+<12 hex digits of the workflow bundle's SHA-256>`, so a changed
   * workflow bundle is a new build). Ignored without `deploymentName`.
   * Env `AGENT_RUNNER_BUILD_ID`. @default null
   */
  buildId: string | null;
  /**
   * Versioning behaviour of the workflow types that declare none (with `deploymentName`):
   * `PINNED` (a run stays on the build it started on) or `AUTO_UPGRADE` (it moves to the
   * current build at its next workflow task). Sessions, turns, background shells and batch
   * workflows declare none; the budget pool declares `AUTO_UPGRADE` (docs/deploy.md says why).
   * Env `AGENT_RUNNER_VERSIONING_BEHAVIOR`. @default "PINNED"
   */
  defaultVersioningBehavior: (typeof VERSIONING_BEHAVIORS)[number];
}

/** The model and its API (`model`). */
export interface ModelConfig {
  /**
   * Model of a turn that names none: a model id, or a Claude Code alias resolved for the provider
   * when the turn starts (`sonnet` is `claude-sonnet-5-5` on the Anthropic API,
   * `us.anthropic.claude-sonnet-4-5-20250929-v1:0` on Bedrock, `claude-sonnet-4-5@20250929` on
   * Vertex, `claude-sonnet-4-5` on Foundry). @default "sonnet". Env: `AGENT_RUNNER_MODEL`.
   */
  name: string;
  /**
   * `max_tokens` of each model call; null = the model's own limit, as Claude Code sends it
   * (128,000 for the 5.x models, 64,000 for Opus 4.6, 32,000 for the 4.x ones, 8,192 for 3.5 Haiku;
   * src/common/model-capabilities.ts). @default null
   */
  maxTokens: number | null;
  /**
   * The API models are called through: `anthropic` (the Messages API, `ANTHROPIC_API_KEY`,
   * `ANTHROPIC_AUTH_TOKEN` or settings `apiKeyHelper`), `bedrock`, `vertex` or `foundry`; null =
   * chosen by the environment as Claude Code does (`CLAUDE_CODE_USE_BEDROCK`,
   * `CLAUDE_CODE_USE_VERTEX`, `CLAUDE_CODE_USE_FOUNDRY`; see docs/providers.md). @default null
   */
  provider: ModelProviderName | null;
  /** Messages API base URL; null = the SDK's default. @default null. Env: `ANTHROPIC_BASE_URL`. */
  baseUrl: string | null;
  /** Name of the env var holding the API key (read by the worker only). @default "ANTHROPIC_API_KEY" */
  apiKeyEnv: string;
  /** Timeout of one model call (the activity's start-to-close), in milliseconds. @default 600000 */
  requestTimeoutMs: number;
  /** Heartbeat timeout of a model call, in milliseconds. @default 30000 */
  heartbeatTimeoutMs: number;
  /** Attempts of one model call, the first included. @default 10 */
  maxAttempts: number;
  /**
   * Longest wait for the next event of a response stream (pings count), in milliseconds: a
   * stream that sends nothing for this long is given up and the call retried, its billed usage
   * counted (`ModelError.StreamIdleTimeout`); 0 = no limit. `CLAUDE_STREAM_IDLE_TIMEOUT_MS` in the
   * worker's environment overrides it as Claude Code reads it (at least 300000, at most 1800000),
   * `CLAUDE_ENABLE_STREAM_WATCHDOG=0` turns it off. @default 300000 (Claude Code's)
   */
  streamIdleTimeoutMs: number;
  /**
   * The Message Batches API (docs/batch-api.md): `enabled` sends every turn's model calls through
   * it (as `--batch-api`), at half price. `maxWaitMs`: longest wait for one call's answer before
   * it falls back to the synchronous API (@default 86400000, the API's 24 h); `windowMs`: calls
   * arriving within it go in one batch (@default 2000); `pollIntervalMs` / `maxPollIntervalMs`:
   * first and longest interval between polls of a batch (@default 1000 / 60000).
   */
  batchApi: {
    enabled: boolean;
    maxWaitMs: number;
    windowMs: number;
    pollIntervalMs: number;
    maxPollIntervalMs: number;
  };
}

/** Built-in tools (`tools`). */
export interface ToolsConfig {
  /** Default timeout of one Bash command, in milliseconds. @default 120000 */
  bashTimeoutMs: number;
  /**
   * Bash output captured per command, in characters; past it the start and end are kept (memory
   * stays bounded whatever a command prints). @default 8000000
   */
  bashOutputLimitChars: number;
  /**
   * A tool result longer than this (characters) is kept whole in the transcript store and
   * written to a file; the model gets a 2 KB preview and the file's path to `Read`.
   * @default 30000 (Claude Code's limit for Bash output)
   */
  largeResultChars: number;
  /** Environment variables tool processes never see, besides the model and Temporal keys. @default [] */
  secretEnv: string[];
}

/** Context compaction (`compaction`). */
export interface CompactionConfig {
  /**
   * Compact before the next model call once the last call's context (input, cache and output
   * tokens) reaches this share of the context window; 0 turns proactive compaction off (a prompt
   * the API refuses as too long is still compacted). @default 0.8
   */
  autoCompactRatio: number;
  /** Context window to compare with, in tokens; null = the model's (1,000,000 for the 5.x Opus and Sonnet, 200,000 for older ones; see src/common/model-limits.ts). @default null */
  contextWindowTokens: number | null;
  /** Tokens of the most recent messages kept verbatim after the summary. @default 20000 */
  preserveTokens: number;
  /** Old tool results sent as a placeholder before auto-compaction (microcompact, `src/engine/microcompact.ts`). @default true */
  microcompact: boolean;
  /**
   * Snip and microcompact make a new batch only once the context reaches this share of the
   * auto-compaction threshold (each batch rewrites the cached prefix); 0: at any size, the
   * cheapest in `bench pipeline` but with a lower cache-read share. @default 0.95
   */
  triggerFill: number;
  /** Tool results of one message bounded to 200,000 characters, the largest sent by reference (`src/engine/tool-result-budget.ts`). @default true */
  toolResultBudget: boolean;
  /** Stale rounds (failed calls, reads repeated with the same result) left out of the view (`src/engine/snip.ts`). @default true */
  snip: boolean;
  /** Runs of old rounds whose results microcompact cleared folded into one digest (context collapse, `src/engine/collapse.ts`). @default true */
  collapse: boolean;
}

/**
 * Where transcripts and content blobs live (`store`): JSONL files on this machine, or a
 * PostgreSQL database that every host shares.
 */
export interface StoreConfig {
  /**
   * `postgres://user@host:5432/db` (options: `?schema=NAME`, `sslmode=…`; the password may come
   * from `PGPASSWORD`), `jsonl:DIR` (files under DIR/sessions), or null for JSONL files under
   * `dataDir`. @default null. Env: `AGENT_RUNNER_STORE_URL`.
   */
  url: string | null;
  /** Largest content blob (snapshot, bundle, large tool result), in bytes. @default 268435456 (256 MiB) */
  maxContentBytes: number;
  /** PostgreSQL connections per process. @default 10 */
  poolSize: number;
  /** How long to wait for a PostgreSQL connection, in milliseconds. @default 10000 */
  connectTimeoutMs: number;
  /**
   * How long workers and clients wait for a store that cannot be reached (PostgreSQL down or
   * restarting) before the call fails with `TranscriptError.Unavailable`, in milliseconds. A
   * write waits in place: a model response or tool result already received is kept and written
   * once the store is back, never made again. 0 = do not wait. @default 600000
   */
  outageTimeoutMs: number;
}

/**
 * The working tree a turn edits, carried across hosts (`workspace`): recorded as git snapshots in
 * the store after every Edit, Write and Bash, and re-materialized on another worker when its host
 * is gone. Applies to working directories inside a git repository with at least one commit.
 */
export interface WorkspaceConfig {
  /** Record origins and snapshots, and route tools to the workspace's host. @default true */
  follow: boolean;
  /**
   * Where this worker re-materializes workspaces of other hosts (`<root>/<sessionId>`); `~` is
   * expanded. null = `<dataDir>/workspaces`. @default null. Env: `AGENT_RUNNER_WORKSPACE_ROOT`.
   */
  root: string | null;
  /** Largest snapshot (a git pack of the changes since the base commit), in bytes. @default 67108864 (64 MiB) */
  maxSnapshotBytes: number;
  /**
   * How long a tool call waits for the workspace's host to pick it up before the host counts as
   * gone and the workspace moves to another worker, in milliseconds. @default 30000
   */
  hostTimeoutMs: number;
}

/** The runner's configuration, as returned by `loadConfig`. */
export interface Config {
  /** Temporal connection. */
  temporal: TemporalConfig;
  /** Embedded dev server settings. */
  devServer: DevServerConfig;
  /** Worker tuning. */
  worker: WorkerConfig;
  /** Model settings. */
  model: ModelConfig;
  /** Tool settings. */
  tools: ToolsConfig;
  /** Context compaction. */
  compaction: CompactionConfig;
  /** Transcript store. */
  store: StoreConfig;
  /** Workspaces that follow the turn across hosts. */
  workspace: WorkspaceConfig;
  /**
   * Model prices in USD per million tokens, keyed by model id; look up with {@link findPrice}.
   * Entries of the file are added to the built-in table ({@link DEFAULT_PRICES}).
   */
  prices: PriceTable;
  /**
   * Directory of transcripts, dev-server state and database; absolute after loading (`~` expanded,
   * a relative path resolved against the config file's directory, or the cwd for env/defaults).
   * @default "~/.agent-runner". Env: `AGENT_RUNNER_DATA_DIR`.
   */
  dataDir: string;
}

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compile-time check that the documented interface and the schema agree. */
const schemaMatchesConfig: Equals<z.output<typeof ConfigSchema>, Config> = true;
void schemaMatchesConfig;
