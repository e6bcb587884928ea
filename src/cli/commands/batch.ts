import { closeSync, existsSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Config } from '../../config';
import type { BatchBudget, BatchEvent, BatchResult, TaskSource } from '../../client/batch';
import { defaultBatchId, runBatch } from '../../client/batch';
import { parseTaskFile } from '../../client/batch-tasks';
import { openRuntime } from '../../host/runtime';
import type { Runtime } from '../../host/runtime';
import type { ServerModeFlags } from '../server-mode';
import { serverModeOptions } from '../server-mode';
import { EXIT } from '../output';
import { BatchProgress, summaryTable } from '../progress';
import type { TurnFlags } from '../turn-options';
import { UsageError, positiveInt, positiveNumber, turnOptionsFrom } from '../turn-options';
import { unenforceableBudget } from '../budget-prices';
import type { SettingsFlags } from '../settings-options';
import { settingsOverrides } from '../settings-options';
import type { DefinitionFlags } from '../definition-options';
import { bareOptions, runDefinitions } from '../definition-options';
import type { RunDefinitions } from '../definition-options';
import type { McpFlags } from '../mcp-options';
import { mcpConfigFromFlags } from '../mcp-options';
import { mergeMcpConfigs } from '../../config-files/mcp-config';
import { storeHooksConfig, storeMcpConfig } from '../../client/stored-config';
import { turnHooks } from '../hook-options';
import type { TurnOptions } from '../../common/turn';
import { toolSearchModeOf } from '../../common/session-tools';
import { createBatchBudget } from './batch-budget';

/** Flags of `agent-runner batch` (its own plus the turn flags shared with `-p`). */
export interface BatchFlags extends TurnFlags, SettingsFlags, ServerModeFlags, DefinitionFlags, McpFlags {
  concurrency?: string;
  out?: string;
  batchId?: string;
  cwd?: string;
  taskMaxBudgetUsd?: string;
  worker?: boolean;
  retryFailed?: boolean;
  progress?: string;
  progressInterval?: string;
  verbose?: boolean;
}

/** Where the batch command writes; injectable for tests. */
export interface BatchIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** The stream progress is drawn on (stderr). */
  progressStream: { write(s: string): unknown; isTTY?: boolean; columns?: number };
}

const BATCH_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/**
 * `agent-runner batch TASKS.jsonl`: runs every task of the file as its own session, at most
 * `--concurrency` at once, optionally under one budget (`--max-budget-usd`, a budget pool).
 * Re-running the same command resumes the batch (see docs/batch.md).
 * @returns 0 when every task succeeded, 1 when a task failed or a line was skipped, 130 when
 *   interrupted; throws UsageError (exit 2) for bad flags or an unreadable / empty task file.
 */
export async function runBatchCommand(
  config: Config,
  file: string,
  flags: BatchFlags,
  io: BatchIo,
  /** The command line after `agent-runner` as typed (the suggested re-runs repeat it). @default a minimal one */
  argv: readonly string[] = ['batch', file],
): Promise<number> {
  const path = resolve(file);
  if (!existsSync(path) || !statSync(path).isFile()) throw new UsageError(`batch: task file ${path} not found`);
  const content = readFileSync(path, 'utf8');
  const concurrency = positiveInt('--concurrency', flags.concurrency) ?? 4;
  const batchBudgetUsd = positiveNumber('--max-budget-usd', flags.maxBudgetUsd);
  const taskBudgetUsd = positiveNumber('--task-max-budget-usd', flags.taskMaxBudgetUsd);
  const intervalS = positiveNumber('--progress-interval', flags.progressInterval) ?? 10;
  const progressMode = flags.progress ?? 'auto';
  if (!['auto', 'bar', 'lines', 'none'].includes(progressMode)) {
    throw new UsageError(`--progress must be one of auto, bar, lines, none, got "${progressMode}"`);
  }
  if (flags.batchId !== undefined && !BATCH_ID_RE.test(flags.batchId)) {
    throw new UsageError(
      `--batch-id must be 1-128 characters of letters, digits, _ . : - (starting with a letter or digit), got "${flags.batchId}"`,
    );
  }
  const defaultCwd = resolve(flags.cwd ?? process.cwd());
  if (!existsSync(defaultCwd) || !statSync(defaultCwd).isDirectory()) {
    throw new UsageError(`--cwd: ${defaultCwd} is not a directory`);
  }
  // The batch budget is the pool's, not each turn's: keep it out of the per-turn limits.
  const turnFlags: TurnFlags = { ...flags };
  delete turnFlags.maxBudgetUsd;
  const defaults = turnOptionsFrom(config, turnFlags);
  if (taskBudgetUsd !== undefined) defaults.limits = { ...defaults.limits, maxBudgetUsd: taskBudgetUsd };
  defaults.toolSearch = toolSearchModeOf(process.env['ENABLE_TOOL_SEARCH']);
  const batchId = flags.batchId ?? defaultBatchId(path, content);

  const parsed = parseTaskFile(content, dirname(path), defaultCwd);
  for (const e of parsed.errors) io.stderr(`agent-runner batch: ${path}:${e.line}: skipped: ${e.message}`);
  // Each task's repository has its own settings files: they rank above the batch defaults and
  // below the task's own options.
  for (const task of parsed.tasks) {
    task.options = {
      ...settingsOverrides(defaults, flags, {
        cwd: task.cwd,
        dataDir: config.dataDir,
        warn: (l) => io.stderr(`agent-runner batch: ${l}`),
      }),
      ...task.options,
    };
  }
  // Each task's repository has its own commands and skills (a task prompt may be `/name args`).
  const definitions = new Map<string, RunDefinitions>();
  const flagMcp = mcpConfigFromFlags(flags, defaultCwd);
  for (const task of parsed.tasks) {
    // `--bare`: each task without its repository's context, hooks and definitions.
    if (flags.bare) {
      const bare = bareOptions({ ...defaults, ...task.options } as typeof defaults, task.cwd);
      task.options = {
        ...task.options,
        bare: true,
        tools: bare.tools ?? [],
        appendSystemPrompt: bare.appendSystemPrompt ?? '',
      };
    }
    if (definitions.has(task.cwd)) continue;
    definitions.set(
      task.cwd,
      runDefinitions(flags, { cwd: task.cwd, warn: (l) => io.stderr(`agent-runner batch: ${l}`) }),
    );
  }
  if (parsed.tasks.length === 0) {
    throw new UsageError(
      parsed.errors.length
        ? `batch: no valid task in ${path} (${parsed.errors.length} malformed line${parsed.errors.length === 1 ? '' : 's'})`
        : `batch: ${path} has no tasks (one JSON object per line: {"id": …, "prompt": …})`,
    );
  }

  // Every task under a USD limit (the batch's, --task-max-budget-usd, its own) needs a priced model.
  const unpriced = parsed.tasks.flatMap((t) => {
    const limit =
      batchBudgetUsd !== undefined
        ? `--max-budget-usd ${flags.maxBudgetUsd} (the batch budget)`
        : t.options.limits?.maxBudgetUsd !== undefined
          ? `maxBudgetUsd ${t.options.limits.maxBudgetUsd} (line ${t.line})`
          : taskBudgetUsd !== undefined
            ? `--task-max-budget-usd ${flags.taskMaxBudgetUsd}`
            : undefined;
    const why = limit !== undefined ? unenforceableBudget(config, t.options.model ?? defaults.model, limit) : null;
    return why !== null ? [`task ${JSON.stringify(t.id)} (line ${t.line}): ${why}`] : [];
  });
  if (unpriced.length > 0) throw new UsageError(`batch: ${unpriced.join('\n')}`);

  const outFd = flags.out && flags.out !== '-' ? openSync(resolve(flags.out), 'w') : null;
  const writeResult = (r: BatchResult): void => {
    const line = `${JSON.stringify(r)}\n`;
    if (outFd !== null) writeSync(outFd, line);
    else if (flags.out === '-') io.stdout(line.slice(0, -1));
  };
  const summaryOut = flags.out === '-' ? io.stderr : io.stdout;

  const log = (l: string): void => io.stderr(l);
  const rt: Runtime = await openRuntime({
    config,
    ...(flags.worker ? { worker: true } : serverModeOptions(flags)),
    log: flags.verbose ? log : () => undefined,
    notice: log,
  });
  const abort = new AbortController();
  let interrupts = 0;
  const onSigint = (): void => {
    interrupts++;
    if (interrupts > 1) {
      void rt.close().finally(() => process.exit(130));
      return;
    }
    io.stderr(
      'agent-runner batch: stopping (running tasks keep running; run the same command again to collect them; Ctrl-C again to quit at once)',
    );
    abort.abort();
  };
  process.on('SIGINT', onSigint);
  let progress: BatchProgress | undefined;
  try {
    let budget: BatchBudget | undefined;
    if (batchBudgetUsd !== undefined) {
      budget = await createBatchBudget(rt, batchId, batchBudgetUsd);
    }
    const mode =
      progressMode === 'auto'
        ? io.progressStream.isTTY
          ? 'bar'
          : 'lines'
        : (progressMode as 'bar' | 'lines' | 'none');
    io.stderr(
      `agent-runner batch ${batchId}: ${parsed.tasks.length} tasks, concurrency ${concurrency}` +
        `${budget ? `, budget $${budget.limitUsd}` : ''}` +
        `${rt.mode === 'embedded' ? ' (embedded server and worker)' : ` (Temporal at ${rt.address}, task queue ${rt.taskQueue})`}`,
    );
    progress = new BatchProgress(parsed.tasks.length, {
      mode,
      out: io.progressStream,
      intervalMs: intervalS * 1000,
    });
    const p = progress;
    const sources = new Map<string, TaskSource>();
    const summary = await runBatch({
      client: rt.client,
      store: rt.store,
      taskQueue: rt.taskQueue,
      batchId,
      tasks: parsed.tasks,
      defaults,
      concurrency,
      ...(budget ? { budget } : {}),
      ...(flags.retryFailed ? { retryFailed: true } : {}),
      definitionsFor: (task) => definitions.get(task.cwd)?.definitions,
      // MCP servers (--mcp-config and the plugins') and the plugins' hooks, stored in each session.
      sessionOptions: async (task, sessionId) => {
        const d = definitions.get(task.cwd);
        const servers = d ? mergeMcpConfigs([...(flagMcp ? [flagMcp] : []), d.mcp]) : flagMcp;
        const out: Partial<TurnOptions> = {};
        if (servers && Object.keys(servers.servers).length > 0) {
          out.mcp = { configRef: await storeMcpConfig(rt.store, sessionId, servers, task.cwd) };
        }
        if (d && Object.keys(d.hooks).length > 0) {
          out.hooks = turnHooks(d.hooks, await storeHooksConfig(rt.store, sessionId, d.hooks, task.cwd));
        }
        return out;
      },
      signal: abort.signal,
      onEvent: (e: BatchEvent) => {
        if (e.type === 'task_done') {
          writeResult(e.result);
          sources.set(e.task.id, e.source);
        }
        p.onEvent(e);
      },
    });
    progress.stop();
    const byId = new Map(summary.results.map((r) => [r.task_id, r]));
    summaryOut(
      summaryTable(
        parsed.tasks.map((task) => ({ task, result: byId.get(task.id) ?? null })),
        parsed.errors,
        progress.elapsedMs(),
      ),
    );
    for (const line of rerunNotice(batchId, argv, parsed.tasks.length, sources, summary.results, flags)) {
      io.stderr(line);
    }
    if (budget) {
      const line = await overshootNotice(batchId, budget);
      if (line) io.stderr(line);
    }
    if (summary.interrupted) {
      io.stderr(
        `agent-runner batch: interrupted with ${summary.unfinished.length} task(s) unfinished; ` +
          `run the same command again (batch id ${batchId}) to resume`,
      );
      return 130;
    }
    const allOk = summary.results.every((r) => !r.is_error) && parsed.errors.length === 0;
    return allOk ? EXIT.success : EXIT.error;
  } finally {
    progress?.stop();
    process.off('SIGINT', onSigint);
    if (outFd !== null) closeSync(outFd);
    await rt.close();
  }
}

/**
 * What to say after a run in which some tasks were not run because an earlier run of the same
 * batch had finished them (the batch id comes from the file's path and content): loudly when
 * nothing ran at all (a nightly job re-running an unchanged file), with how to start a new run.
 */
export function rerunNotice(
  batchId: string,
  argv: readonly string[],
  total: number,
  sources: ReadonlyMap<string, TaskSource>,
  results: readonly BatchResult[],
  flags: Pick<BatchFlags, 'batchId' | 'retryFailed'>,
): string[] {
  const earlier = [...sources.values()].filter((s) => s === 'finished-earlier').length;
  if (earlier === 0) return [];
  const failedEarlier = results.filter((r) => r.is_error && sources.get(r.task_id) === 'finished-earlier').length;
  // The suggested commands are the original one (every flag kept) with only the batch id or
  // --retry-failed changed.
  const fresh = commandLine(withoutFlags(argv, ['--batch-id', '--retry-failed']), ['--batch-id', `${batchId}-2`]);
  const retry = commandLine(withoutFlags(argv, ['--retry-failed']), ['--retry-failed']);
  const how = [
    `  to run every task again as a new batch:  ${fresh} (any new id)`,
    ...(failedEarlier > 0 && !flags.retryFailed
      ? [`  to run again only the ${failedEarlier} that failed:  ${retry}`]
      : []),
  ];
  if (earlier === total) {
    return [
      `agent-runner batch ${batchId}: NOTHING RAN. All ${total} tasks had finished in an earlier run of this batch ` +
        `(${flags.batchId ? 'the same --batch-id' : 'same file and content, so the same batch id'}); ` +
        'their results above are the earlier ones.',
      ...how,
    ];
  }
  return [
    `agent-runner batch ${batchId}: ${earlier} of ${total} tasks had finished in an earlier run of this batch and ` +
      'were not run again (their earlier results are reported).',
    ...how,
  ];
}

/** A line saying by how much the batch's spend went over its budget, or null when it did not. */
export async function overshootNotice(batchId: string, budget: BatchBudget): Promise<string | null> {
  let spent: { spentUsd: number; limitUsd: number };
  try {
    spent = await budget.spent();
  } catch {
    return null;
  }
  const over = spent.spentUsd - spent.limitUsd;
  if (over <= 1e-9) return null;
  const pct = spent.limitUsd > 0 ? ` (${((over / spent.limitUsd) * 100).toFixed(1)}%)` : '';
  return (
    `agent-runner batch ${batchId}: the batch spent $${spent.spentUsd.toFixed(4)} of its $${spent.limitUsd} budget: ` +
    `$${over.toFixed(4)}${pct} over. Each task running when the budget ran out finished the model call that ` +
    'crossed it (its tokens were already spent); see docs/limits.md.'
  );
}

/** Flags of `batch` that take a value (a `--flag value` pair is dropped whole). */
const VALUE_FLAGS = new Set(['--batch-id']);

/** `argv` without the given flags (`--flag`, `--flag value` for flags that take one, `--flag=value`). */
export function withoutFlags(argv: readonly string[], flags: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const name = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
    if (!flags.includes(name)) {
      out.push(a);
      continue;
    }
    if (VALUE_FLAGS.has(a)) i++; // its value follows
  }
  return out;
}

/** A shell word: as it is when it is safe, else single-quoted. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** `agent-runner <argv…> <extra…>`, quoted for a POSIX shell. */
function commandLine(argv: readonly string[], extra: readonly string[]): string {
  return ['agent-runner', ...argv, ...extra].map(shellQuote).join(' ');
}
