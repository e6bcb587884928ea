import type { Config } from '../config';
import { splitToolList as splitList } from '../common/tool-list';
import type { TurnOptions } from '../common/turn';
import { BUILTIN_TOOL_NAMES } from '../common/tools';
import type { PermissionMode } from '../engine/permissions';
import { PERMISSION_MODES } from '../engine/permissions';
import { POOL_ID_PATTERN } from '../client/budget-pool';
import { budgetPoolWorkflowId } from '../workflows/ids';
import { unenforceableBudget } from './budget-prices';

/** Thrown for a bad flag value; the CLI prints it and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Flags of `-p` that shape a turn (as commander parses them). */
export interface TurnFlags {
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
  budgetPool?: string;
  dangerouslySkipPermissions?: boolean;
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

/**
 * Turn options from config defaults and CLI flags.
 * @throws UsageError naming the flag and the bad value
 */
export function turnOptionsFrom(config: Config, flags: TurnFlags): TurnOptions {
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
  // `--tools default` (what the Agent SDK sends for its `claude_code` preset) means every built-in tool.
  const tools = listedTools?.length === 1 && listedTools[0] === 'default' ? undefined : listedTools;
  if (tools) {
    const unknown = tools.filter((t) => !(BUILTIN_TOOL_NAMES as readonly string[]).includes(t));
    if (unknown.length)
      throw new UsageError(
        `--tools: unknown tool(s) ${unknown.join(', ')}; available: ${BUILTIN_TOOL_NAMES.join(', ')}`,
      );
  }
  const maxTurns = positiveInt('--max-turns', flags.maxTurns);
  const maxBudgetUsd = positiveNumber('--max-budget-usd', flags.maxBudgetUsd);
  const taskBudget = positiveInt('--task-budget', flags.taskBudget);
  const allowed = splitToolList(flags.allowedTools);
  const disallowed = splitToolList(flags.disallowedTools);
  const model = flags.model ?? config.model.name;
  // A USD limit needs the model's price: refuse one the runner could not check (exit 2).
  const budget =
    maxBudgetUsd !== undefined
      ? `--max-budget-usd ${flags.maxBudgetUsd}`
      : flags.budgetPool !== undefined
        ? `--budget-pool ${flags.budgetPool}`
        : undefined;
  const refused = budget !== undefined ? unenforceableBudget(config, model, budget) : null;
  if (refused !== null) throw new UsageError(refused);
  return {
    model,
    maxTokens: config.model.maxTokens,
    limits: {
      ...(maxTurns !== undefined ? { maxTurns } : {}),
      ...(maxBudgetUsd !== undefined ? { maxBudgetUsd } : {}),
      ...(taskBudget !== undefined ? { taskBudget } : {}),
    },
    permissionMode: mode,
    ...(allowed ? { allowedTools: allowed } : {}),
    ...(disallowed ? { disallowedTools: disallowed } : {}),
    ...(tools ? { tools } : {}),
    ...(flags.systemPrompt !== undefined ? { systemPrompt: flags.systemPrompt } : {}),
    ...(flags.appendSystemPrompt !== undefined ? { appendSystemPrompt: flags.appendSystemPrompt } : {}),
    ...(flags.budgetPool !== undefined ? { budgetPoolId: poolWorkflowIdFlag(flags.budgetPool) } : {}),
    timeouts: {
      modelHeartbeatMs: config.model.heartbeatTimeoutMs,
      modelStartToCloseMs: config.model.requestTimeoutMs,
      modelMaxAttempts: config.model.maxAttempts,
      toolStartToCloseMs: Math.max(config.tools.bashTimeoutMs, 600_000) + 60_000,
    },
  };
}
