import type { BatchApiOptions } from '../common/batch';
import { BATCH_API_DEFAULTS } from '../common/batch';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../config';
import { splitToolList as splitList } from '../common/tool-list';
import type { TurnOptions } from '../common/turn';
import {
  CLAUDE_CODE_ONLY_TOOLS,
  CRON_TOOL_NAMES,
  HEADLESS_DISABLED_TOOL_NAMES,
  LISTABLE_TOOL_NAMES,
} from '../common/tools';
import type { SubagentSettings } from '../common/agents';
import type { PermissionMode } from '../common/permissions';
import { PERMISSION_MODES } from '../common/permissions';
import { POOL_ID_PATTERN } from '../common/budget-pool';
import { budgetPoolWorkflowId } from '../common/ids';
import { ratePoolWorkflowId } from '../common/rate-pool';
import { unenforceableBudget } from './budget-prices';
import { resolveModelAlias } from '../config/model-aliases';
import type { ModelNaming } from '../config/model-aliases';
import { modelProviderOf } from '../config/provider';
import { maxOutputTokensOf } from '../common/model-capabilities';
import { parseSettingSources } from '../config-files/settings';
import type { ThinkingFlags } from './thinking-options';
import { thinkingOptionsFrom } from './thinking-options';

import { UsageError } from './usage-error';

export { UsageError } from './usage-error';

/** Largest system prompt file read (bytes): beyond it the model's context would be the limit anyway. */
export const MAX_PROMPT_FILE_BYTES = 8 * 1024 * 1024;

/**
 * Text of a `--system-prompt-file` / `--append-system-prompt-file`.
 * @throws UsageError naming the flag and the file when it is missing, not a file, or too large.
 */
export function readPromptFile(flag: string, file: string, cwd: string = process.cwd()): string {
  const path = resolve(cwd, file);
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new UsageError(`${flag}: ${path} is not a file`);
    size = st.size;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`${flag}: cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : String(code ?? e)}`);
  }
  if (size > MAX_PROMPT_FILE_BYTES) {
    throw new UsageError(`${flag}: ${path} has ${size} bytes; at most ${MAX_PROMPT_FILE_BYTES} are accepted`);
  }
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`${flag}: cannot read ${path}: ${(e as Error).message}`);
  }
}

/**
 * One system prompt part from a flag and its `-file` variant: as in Claude Code, the file's text
 * comes first and the flag's after a blank line when both are given.
 */
export function promptPart(
  flagName: string,
  text: string | undefined,
  file: string | undefined,
  cwd?: string,
): string | undefined {
  const fromFile = file === undefined ? undefined : readPromptFile(`${flagName}-file`, file, cwd);
  if (fromFile === undefined) return text;
  return text === undefined ? fromFile : `${fromFile}\n\n${text}`;
}

/** Flags of `-p` that shape a turn (as commander parses them). */
export interface TurnFlags extends ThinkingFlags {
  model?: string;
  maxTurns?: string;
  maxBudgetUsd?: string;
  taskBudget?: string;
  permissionMode?: string;
  allowedTools?: string[];
  disallowedTools?: string[];
  tools?: string[];
  systemPrompt?: string;
  appendSystemPrompt?: string;
  /** File whose text replaces the default system prompt (before `--system-prompt`'s, if both). */
  systemPromptFile?: string;
  /** File whose text is appended to the system prompt (before `--append-system-prompt`'s, if both). */
  appendSystemPromptFile?: string;
  /** `--setting-sources`: memory sources read for a new session (comma-separated user, project, local). */
  settingSources?: string;
  budgetPool?: string;
  /** `--rate-pool <id>` (env `AGENT_RUNNER_RATE_POOL`): lease every model call from this rate pool. */
  ratePool?: string;
  /** `--rate-priority <1-5>` (env `AGENT_RUNNER_RATE_PRIORITY`): the leases' priority in the rate pool. */
  ratePriority?: string;
  dangerouslySkipPermissions?: boolean;
  /** `--fallback-model`: model used after repeated overloaded errors. */
  fallbackModel?: string;
  /** `--batch-api`: model calls through the Message Batches API (also config `model.batchApi.enabled`). */
  batchApi?: boolean;
}

/** Splits tool lists as `claude` accepts them (`src/common/tool-list.ts`). */
export function splitToolList(values: string[] | undefined): string[] | undefined {
  return values ? splitList(values) : undefined;
}

/** Parses a positive integer flag value. @throws UsageError naming the flag */
export function positiveInt(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${name} must be a positive integer, got "${v}"`);
  return n;
}

/** Parses a positive number flag value. @throws UsageError naming the flag */
export function positiveNumber(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${name} must be a positive number, got "${v}"`);
  return n;
}

/** `--budget-pool <id>` → the pool's workflow id (what `TurnOptions.budgetPoolId` holds). */
function poolWorkflowIdFlag(poolId: string): string {
  if (!POOL_ID_PATTERN.test(poolId)) {
    throw new UsageError(
      `--budget-pool must be a pool id (1-200 letters, digits, '.', '_', ':' or '-'), got "${poolId}"`,
    );
  }
  return budgetPoolWorkflowId(poolId);
}

/** `--rate-pool <id>` → the pool's workflow id (what `TurnOptions.ratePoolId` holds). */
function ratePoolWorkflowIdFlag(poolId: string): string {
  if (!POOL_ID_PATTERN.test(poolId)) {
    throw new UsageError(
      `--rate-pool must be a pool id (1-200 letters, digits, '.', '_', ':' or '-'), got "${poolId}"`,
    );
  }
  return ratePoolWorkflowId(poolId);
}

/** `--rate-pool` and `--rate-priority` (or their environment variables) → turn options. */
function rateOptionsFrom(flags: TurnFlags, env: NodeJS.ProcessEnv): Pick<TurnOptions, 'ratePoolId' | 'ratePriority'> {
  const pool = flags.ratePool ?? (env['AGENT_RUNNER_RATE_POOL'] || undefined);
  const priority = flags.ratePriority ?? (env['AGENT_RUNNER_RATE_PRIORITY'] || undefined);
  if (pool === undefined) return {};
  const p = priority === undefined ? undefined : Number(priority);
  if (p !== undefined && !(Number.isInteger(p) && p >= 1 && p <= 5)) {
    throw new UsageError(`--rate-priority must be an integer from 1 (first) to 5 (last), got "${priority}"`);
  }
  return { ratePoolId: ratePoolWorkflowIdFlag(pool), ...(p !== undefined ? { ratePriority: p } : {}) };
}

/** How model names resolve for this process: the provider of config and environment, and the environment. */
export function modelNaming(config: Pick<Config, 'model'>, env: NodeJS.ProcessEnv = process.env): ModelNaming {
  return { provider: modelProviderOf(config.model, env), env };
}

/** Where turn options read the environment and send warnings. */
export interface TurnOptionsContext {
  /** `ANTHROPIC_MODEL`, the provider's variables, effort and thinking variables. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Receives warnings for stderr (an unknown effort). */
  warn?: (line: string) => void;
}

/**
 * Turn options from config defaults and CLI flags (and `ANTHROPIC_MODEL`, which ranks between
 * `--model` and config, as in Claude Code).
 * @throws UsageError naming the flag and the bad value
 */
export function turnOptionsFrom(config: Config, flags: TurnFlags, ctx: TurnOptionsContext = {}): TurnOptions {
  const env = ctx.env ?? process.env;
  const naming = modelNaming(config, env);
  if (flags.model !== undefined && flags.model.trim() === '') throw new UsageError('--model must not be empty');
  const mode = (
    flags.dangerouslySkipPermissions ? 'bypassPermissions' : (flags.permissionMode ?? 'default')
  ) as PermissionMode;
  if (!PERMISSION_MODES.includes(mode)) {
    throw new UsageError(
      `--permission-mode must be one of ${PERMISSION_MODES.join(', ')}, got "${flags.permissionMode}"`,
    );
  }
  const listedTools = splitToolList(flags.tools);
  const cronOff = ['1', 'true'].includes((env['CLAUDE_CODE_DISABLE_CRON'] ?? '').toLowerCase());
  // `--tools default` (what the Agent SDK sends for its `claude_code` preset) means every built-in tool.
  // `Task` is Claude Code's other name for `Agent`. AskUserQuestion and ExitPlanMode are accepted
  // but never offered: no one can answer them here (as in Claude Code).
  const tools =
    listedTools?.length === 1 && listedTools[0] === 'default'
      ? undefined
      : listedTools?.map((t) => (t === 'Task' ? 'Agent' : t)).filter((t) => !HEADLESS_DISABLED_TOOL_NAMES.includes(t));
  if (tools) {
    const unknown = tools.filter((t) => !LISTABLE_TOOL_NAMES.includes(t) && !CLAUDE_CODE_ONLY_TOOLS.has(t));
    if (unknown.length)
      throw new UsageError(
        `--tools: unknown tool(s) ${unknown.join(', ')}; available: ${LISTABLE_TOOL_NAMES.join(', ')}`,
      );
    const leftOut = tools.filter((t) => CLAUDE_CODE_ONLY_TOOLS.has(t));
    if (leftOut.length)
      ctx.warn?.(
        `agent-runner: --tools: ${leftOut.join(', ')} left out: Claude Code tool(s) this runner does not offer here`,
      );
  }
  const envModel = env['ANTHROPIC_MODEL']?.trim() ? env['ANTHROPIC_MODEL'] : undefined;
  const model = resolveModelAlias(flags.model ?? envModel ?? config.model.name, naming);
  const fallbackModel = flags.fallbackModel !== undefined ? resolveModelAlias(flags.fallbackModel, naming) : undefined;
  const thinking = thinkingOptionsFrom(flags, env, ctx.warn);
  if (flags.fallbackModel !== undefined) {
    if (flags.fallbackModel.trim() === '') throw new UsageError('--fallback-model must not be empty');
    if (fallbackModel === model) {
      throw new UsageError(`--fallback-model must differ from the model (both are "${model}")`);
    }
  }
  const maxTurns = positiveInt('--max-turns', flags.maxTurns);
  const maxBudgetUsd = positiveNumber('--max-budget-usd', flags.maxBudgetUsd);
  const taskBudget = positiveInt('--task-budget', flags.taskBudget);
  const systemPrompt = promptPart('--system-prompt', flags.systemPrompt, flags.systemPromptFile);
  const appendSystemPrompt = promptPart(
    '--append-system-prompt',
    flags.appendSystemPrompt,
    flags.appendSystemPromptFile,
  );
  // SettingsError (exit 2) names the flag and the unknown source.
  const settingSources = flags.settingSources === undefined ? undefined : parseSettingSources(flags.settingSources);
  const allowed = splitToolList(flags.allowedTools);
  const disallowed = splitToolList(flags.disallowedTools);
  // A USD limit needs the model's price: refuse one the runner could not check (exit 2).
  const budget =
    maxBudgetUsd !== undefined
      ? `--max-budget-usd ${flags.maxBudgetUsd}`
      : flags.budgetPool !== undefined
        ? `--budget-pool ${flags.budgetPool}`
        : undefined;
  // …for the fallback model too: the turn may switch to it.
  const refused =
    budget === undefined
      ? null
      : (unenforceableBudget(config, model, budget) ??
        (fallbackModel !== undefined ? unenforceableBudget(config, fallbackModel, budget) : null));
  if (refused !== null) throw new UsageError(refused);
  return {
    model,
    maxTokens: config.model.maxTokens ?? maxOutputTokensOf(model, naming.provider),
    ...(thinking ? { thinking } : {}),
    limits: {
      ...(maxTurns !== undefined ? { maxTurns } : {}),
      ...(maxBudgetUsd !== undefined ? { maxBudgetUsd } : {}),
      ...(taskBudget !== undefined ? { taskBudget } : {}),
    },
    permissionMode: mode,
    ...(allowed ? { allowedTools: allowed } : {}),
    ...(disallowed ? { disallowedTools: disallowed } : {}),
    // Claude Code's tools the runner does not have yet are left out (as it leaves out names it does not know).
    // CLAUDE_CODE_DISABLE_CRON=1 takes the Cron tools away (2.1.328's tools-cron-disabled).
    ...(tools ? { tools: tools.filter((t) => !CLAUDE_CODE_ONLY_TOOLS.has(t) && !(cronOff && isCronTool(t))) } : {}),
    subagents: subagentSettingsFrom(env),
    ...(systemPrompt !== undefined ? { systemPrompt } : {}),
    ...(appendSystemPrompt !== undefined ? { appendSystemPrompt } : {}),
    ...(settingSources !== undefined ? { settingSources } : {}),
    ...(flags.budgetPool !== undefined ? { budgetPoolId: poolWorkflowIdFlag(flags.budgetPool) } : {}),
    ...rateOptionsFrom(flags, env),
    ...(fallbackModel !== undefined ? { fallbackModel } : {}),
    ...(batchApiWanted(flags, config, naming.provider) ? { batchApi: batchApiOptions(config.model.batchApi) } : {}),
    compaction: {
      autoCompactRatio: config.compaction.autoCompactRatio,
      preserveTokens: config.compaction.preserveTokens,
      microcompact: config.compaction.microcompact
        ? { triggerFill: config.compaction.triggerFill }
        : { enabled: false, triggerFill: config.compaction.triggerFill },
      ...(config.compaction.toolResultBudget ? {} : { toolResultBudget: { enabled: false } }),
      ...(config.compaction.snip ? {} : { snip: { enabled: false } }),
      ...(config.compaction.collapse ? {} : { collapse: { enabled: false } }),
      ...(config.compaction.contextWindowTokens !== null
        ? { contextWindowTokens: config.compaction.contextWindowTokens }
        : {}),
    },
    timeouts: {
      modelHeartbeatMs: config.model.heartbeatTimeoutMs,
      modelStartToCloseMs: config.model.requestTimeoutMs,
      modelMaxAttempts: config.model.maxAttempts,
      toolStartToCloseMs: Math.max(config.tools.bashTimeoutMs, 600_000) + 60_000,
    },
  };
}

/**
 * How subagents start, from Claude Code's environment variables: `CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH`
 * (a positive integer; default 3) and `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1` (every agent in the
 * foreground).
 * @throws UsageError for a spawn depth that is not a positive integer
 */
export function subagentSettingsFrom(env: NodeJS.ProcessEnv): SubagentSettings {
  const rawDepth = env['CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH'];
  const maxSpawnDepth = rawDepth === undefined || rawDepth === '' ? undefined : Number(rawDepth);
  if (maxSpawnDepth !== undefined && !(Number.isInteger(maxSpawnDepth) && maxSpawnDepth >= 0)) {
    throw new UsageError(`CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH must be a whole number, got "${rawDepth}"`);
  }
  const disabled = ['1', 'true'].includes((env['CLAUDE_CODE_DISABLE_BACKGROUND_TASKS'] ?? '').toLowerCase());
  return {
    ...(maxSpawnDepth !== undefined ? { maxSpawnDepth } : {}),
    ...(disabled ? { backgroundTasks: false } : {}),
  };
}

/**
 * Whether the turn's calls go through the Message Batches API.
 * @throws UsageError on Bedrock, Vertex or Foundry: their batch APIs are other services (S3 or GCS
 *   jobs), so a batch would fail at its first call; said before anything runs.
 */
function batchApiWanted(flags: TurnFlags, config: Config, provider: string | undefined): boolean {
  const wanted = flags.batchApi === true || config.model.batchApi?.enabled === true;
  if (wanted && provider !== undefined && provider !== 'firstParty') {
    throw new UsageError(
      `--batch-api needs the Anthropic API: the Message Batches API is not served by ${provider} (unset the provider's variable or drop --batch-api / model.batchApi.enabled)`,
    );
  }
  return wanted;
}

/** The turn's batch settings from config `model.batchApi` (defaults where absent). */
function batchApiOptions(c: Partial<Config['model']['batchApi']> | undefined): BatchApiOptions {
  return {
    maxWaitMs: c?.maxWaitMs ?? BATCH_API_DEFAULTS.maxWaitMs,
    windowMs: c?.windowMs ?? BATCH_API_DEFAULTS.windowMs,
    pollIntervalMs: c?.pollIntervalMs ?? BATCH_API_DEFAULTS.pollIntervalMs,
    maxPollIntervalMs: c?.maxPollIntervalMs ?? BATCH_API_DEFAULTS.maxPollIntervalMs,
  };
}

const isCronTool = (name: string): boolean => (CRON_TOOL_NAMES as readonly string[]).includes(name);
