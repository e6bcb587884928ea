/**
 * Batch runs: many independent tasks, each a session of one turn, with bounded concurrency and
 * an optional shared budget. Every id is derived from (batch id, task id), so running the same
 * batch again (after a crash or Ctrl-C) starts nothing twice: finished tasks are reported from
 * their turn workflow's result, running ones are re-attached, missing ones are started.
 * The CLI front door is `agent-runner batch` (src/cli/commands/batch.ts); see docs/batch.md.
 */
import { splitToolList } from '../common/tool-list';
import { resolveModelAlias } from '../config/model-aliases';
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { basename, extname, isAbsolute, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { z } from 'zod';
import type { SDKResultMessage } from '../common/sdk-messages';
import type { ResultSubtype } from '../common/sdk-messages';
import { BUILTIN_TOOL_NAMES } from '../common/tools';
import type { TurnOptions, TurnOutcome } from '../common/turn';
import { emptyUsage } from '../common/usage';
import { PERMISSION_MODES } from '../common/permissions';
import type { TranscriptStore } from '../store/transcript-store';
import { sessionWorkflowId, turnWorkflowId } from '../common/ids';
import { endSessionSignal } from '../workflows/messages';
import { QueryEngine } from './query-engine';
import type { SessionDefinitions } from './slash-commands';
import { assistantText, resultMessage } from './sdk-message';
import { uuidV5 } from '../store/uuid';

// ---------------------------------------------------------------------------------------------
// Task file
// ---------------------------------------------------------------------------------------------

/** Largest accepted task file line (characters). */
export const MAX_TASK_LINE_CHARS = 1_000_000;

const toolList = z.union([z.string(), z.array(z.string())]).transform((v) => splitToolList(Array.isArray(v) ? v : [v]));

/** One line of a task file, as written (validated with zod; unknown fields are errors). */
export const BatchTaskLineSchema = z
  .strictObject({
    /** Unique in the file; with the batch id it names the task's session. */
    id: z
      .union([z.string(), z.number().int()])
      .transform((v) => String(v))
      .pipe(
        z
          .string()
          .min(1, { error: 'must not be empty' })
          .max(256, { error: 'must be at most 256 characters' })
          .regex(/^[^\u0000-\u001f\u007f]+$/, { error: 'must not contain control characters' }),
      ),
    prompt: z.string().refine((s) => s.trim() !== '', { error: 'must be a non-empty string' }),
    /** Working directory of the task (relative paths: against the task file's directory). */
    cwd: z.string().min(1).optional(),
    /** Same as `cwd` (a repository checkout). */
    repo: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    maxTurns: z.int().positive().optional(),
    maxBudgetUsd: z.number().positive().optional(),
    taskBudget: z.int().positive().optional(),
    permissionMode: z.enum(PERMISSION_MODES).optional(),
    allowedTools: toolList.optional(),
    disallowedTools: toolList.optional(),
    tools: toolList.optional(),
    systemPrompt: z.string().optional(),
    appendSystemPrompt: z.string().optional(),
    /** Free-form data copied to the task's result line. */
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((t, ctx) => {
    if (t.cwd !== undefined && t.repo !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['repo'], message: 'give either cwd or repo, not both' });
    }
    const unknown = (t.tools ?? []).filter((n) => !(BUILTIN_TOOL_NAMES as readonly string[]).includes(n));
    if (unknown.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['tools'],
        message: `unknown tool(s) ${unknown.join(', ')}; available: ${BUILTIN_TOOL_NAMES.join(', ')}`,
      });
    }
  });

/** A valid task, with its line number and absolute working directory. */
export interface BatchTask {
  id: string;
  /** 1-based line in the task file. */
  line: number;
  prompt: string;
  cwd: string;
  /** Per-task turn options (override the batch defaults). */
  options: Partial<TurnOptions> & { limits?: TurnOptions['limits'] };
  metadata?: Record<string, unknown>;
}

/** A line that was skipped. */
export interface TaskLineError {
  line: number;
  message: string;
}

/** What {@link parseTaskFile} found. */
export interface ParsedTaskFile {
  tasks: BatchTask[];
  errors: TaskLineError[];
}

function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((i) => {
      if (i.code === 'unrecognized_keys') return i.keys.map((k) => `${k}: unknown field`).join('; ');
      const path = i.path.map(String).join('.');
      return path ? `${path}: ${i.message}` : i.message;
    })
    .join('; ');
}

/**
 * Parses a JSONL task file: one JSON object per line; blank lines and lines starting with `#`
 * are ignored. A bad line (not JSON, fails the schema, duplicate id, missing directory) is
 * reported with its 1-based line number and skipped; the others are returned in file order.
 * @param baseDir directory that relative `cwd`/`repo` paths resolve against (the file's)
 * @param defaultCwd working directory of tasks without `cwd`/`repo`
 */
export function parseTaskFile(text: string, baseDir: string, defaultCwd: string): ParsedTaskFile {
  const tasks: BatchTask[] = [];
  const errors: TaskLineError[] = [];
  const seen = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    if (trimmed.length > MAX_TASK_LINE_CHARS) {
      errors.push({ line, message: `line is longer than ${MAX_TASK_LINE_CHARS} characters` });
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (e) {
      errors.push({ line, message: `not valid JSON (${(e as Error).message})` });
      return;
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      errors.push({ line, message: 'expected a JSON object' });
      return;
    }
    const r = BatchTaskLineSchema.safeParse(json);
    if (!r.success) {
      const id = (json as { id?: unknown }).id;
      errors.push({
        line,
        message: `${typeof id === 'string' || typeof id === 'number' ? `task ${JSON.stringify(id)}: ` : ''}${formatIssues(r.error.issues)}`,
      });
      return;
    }
    const t = r.data;
    const first = seen.get(t.id);
    if (first !== undefined) {
      errors.push({ line, message: `task ${JSON.stringify(t.id)}: duplicate id (first on line ${first})` });
      return;
    }
    const dir = t.cwd ?? t.repo;
    const cwd = dir === undefined ? defaultCwd : isAbsolute(dir) ? dir : resolve(baseDir, dir);
    if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
      errors.push({
        line,
        message: `task ${JSON.stringify(t.id)}: ${t.cwd !== undefined ? 'cwd' : 'repo'} ${cwd} is not a directory`,
      });
      return;
    }
    seen.set(t.id, line);
    const limits = {
      ...(t.maxTurns !== undefined ? { maxTurns: t.maxTurns } : {}),
      ...(t.maxBudgetUsd !== undefined ? { maxBudgetUsd: t.maxBudgetUsd } : {}),
      ...(t.taskBudget !== undefined ? { taskBudget: t.taskBudget } : {}),
    };
    tasks.push({
      id: t.id,
      line,
      prompt: t.prompt,
      cwd,
      options: {
        ...(t.model !== undefined ? { model: resolveModelAlias(t.model) } : {}),
        ...(Object.keys(limits).length ? { limits } : {}),
        ...(t.permissionMode !== undefined ? { permissionMode: t.permissionMode } : {}),
        ...(t.allowedTools !== undefined ? { allowedTools: t.allowedTools } : {}),
        ...(t.disallowedTools !== undefined ? { disallowedTools: t.disallowedTools } : {}),
        ...(t.tools !== undefined ? { tools: t.tools } : {}),
        ...(t.systemPrompt !== undefined ? { systemPrompt: t.systemPrompt } : {}),
        ...(t.appendSystemPrompt !== undefined ? { appendSystemPrompt: t.appendSystemPrompt } : {}),
      },
      ...(t.metadata !== undefined ? { metadata: t.metadata } : {}),
    });
  });
  return { tasks, errors };
}

// ---------------------------------------------------------------------------------------------
// Deterministic ids
// ---------------------------------------------------------------------------------------------

export { uuidV5 };

/**
 * Default batch id: the task file's name plus a hash of its absolute path and content, so
 * running the same command on the same file is the same batch (and an edited file a new one).
 */
export function defaultBatchId(absPath: string, content: string): string {
  const stem =
    basename(absPath, extname(absPath))
      .replace(/[^A-Za-z0-9_.-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'batch';
  const contentHash = createHash('sha256').update(content, 'utf8').digest('hex');
  const h = createHash('sha1').update(`${absPath}\n${contentHash}`).digest('hex').slice(0, 12);
  return `${stem}-${h}`;
}

/** Session id of a task: a name-based UUID of (batch id, task id). */
export function taskSessionId(batchId: string, taskId: string): string {
  return uuidV5(`agent-runner/batch/${batchId}/task/${taskId}`);
}

/**
 * Session id of a task's `attempt`: attempt 0 is {@link taskSessionId}; attempt k ≥ 1 is a retry
 * of a failed task (`--retry-failed`), a fresh session of its own.
 */
export function taskAttemptSessionId(batchId: string, taskId: string, attempt: number): string {
  return attempt === 0
    ? taskSessionId(batchId, taskId)
    : uuidV5(`agent-runner/batch/${batchId}/task/${taskId}/retry/${attempt}`);
}

/** Uuid of a task's prompt line (deterministic: a re-submitted prompt is the same line). */
export function taskPromptUuid(sessionId: string): string {
  return uuidV5(`agent-runner/session/${sessionId}/prompt/1`);
}

/** Update id of a task's submission: the server de-duplicates a second submit with it. */
export function taskSubmitUpdateId(sessionId: string): string {
  return `batch-submit-${sessionId}`;
}

// ---------------------------------------------------------------------------------------------
// Running a batch
// ---------------------------------------------------------------------------------------------

/** A task's result line: the SDK result message plus the task and batch ids. */
export type BatchResult = SDKResultMessage & {
  task_id: string;
  batch_id: string;
  metadata?: Record<string, unknown>;
};

/** How a task's result was obtained in this run. */
export type TaskSource =
  /** Started by this run. */
  | 'started'
  /** Was running (started by an earlier run); this run followed it to its end. */
  | 'attached'
  /** Had finished before this run; reported from its turn workflow's result. */
  | 'finished-earlier'
  /** Not run: the batch budget was spent before it could start. */
  | 'skipped'
  /** Had failed in an earlier run; started again as a new attempt (`retryFailed`). */
  | 'retried';

/** Progress events of {@link runBatch}. */
export type BatchEvent =
  | { type: 'task_running'; task: BatchTask; sessionId: string; source: 'started' | 'attached' | 'retried' }
  | { type: 'task_done'; task: BatchTask; sessionId: string; source: TaskSource; result: BatchResult };

/** The batch's shared budget (a budget pool; see `src/client/budget-pool.ts`). */
export interface BatchBudget {
  /** Workflow id of the pool: turns report their spend to it (`TurnOptions.budgetPoolId`). */
  poolWorkflowId: string;
  /** Limit of the pool (USD), for messages. */
  limitUsd: number;
  /** True once the pool is spent: tasks not started yet are skipped. */
  exhausted(): Promise<boolean>;
  /** What the pool has counted so far (USD). */
  spent(): Promise<{ spentUsd: number; limitUsd: number }>;
}

/** Options of {@link runBatch}. */
export interface RunBatchOptions {
  client: Client;
  store: TranscriptStore;
  taskQueue: string;
  batchId: string;
  tasks: BatchTask[];
  /** Turn defaults (from the CLI flags); a task's own options override them. */
  defaults: TurnOptions;
  /** Tasks running at once. @default 4 */
  concurrency?: number;
  budget?: BatchBudget;
  /** Called for every progress event (synchronously). */
  onEvent?: (e: BatchEvent) => void;
  /** Aborting stops starting tasks and stops waiting for running ones (they keep running). */
  signal?: AbortSignal;
  /** Idle time after which a task's session workflow completes (ms). @default 60000 */
  sessionIdleTimeoutMs?: number;
  /** Start a new attempt of each task whose latest attempt ended in an error result. @default false */
  retryFailed?: boolean;
  /**
   * The custom commands, skills and agents of a task's repository (its prompt may be `/name
   * args`), read where the batch runs. @default none
   */
  definitionsFor?: (task: BatchTask) => SessionDefinitions | undefined;
  /**
   * Options a task's session needs stored in its session before its turn starts (its MCP servers
   * and hooks, whose configs live in the session's store): called with the session id.
   */
  sessionOptions?: (task: BatchTask, sessionId: string) => Promise<Partial<TurnOptions>>;
}

/** What {@link runBatch} returns. */
export interface BatchRunSummary {
  /** Results of the tasks that finished (or were skipped), in task-file order. */
  results: BatchResult[];
  /** Tasks without a result because the run was aborted. */
  unfinished: BatchTask[];
  interrupted: boolean;
}

/** Turn options of a task: batch defaults, then the task's own, then the batch budget pool. */
export function taskTurnOptions(defaults: TurnOptions, task: BatchTask, budget?: BatchBudget): TurnOptions {
  const o = task.options;
  return {
    ...defaults,
    ...o,
    limits: { ...defaults.limits, ...(o.limits ?? {}) },
    ...(budget ? { budgetPoolId: budget.poolWorkflowId } : {}),
  };
}

/**
 * Runs (or resumes) a batch: at most `concurrency` tasks at once, in file order. Each task is the
 * session `taskSessionId(batchId, task.id)` with one turn, `agent-session-<id>-turn-1` (or, after
 * `retryFailed` runs, the latest of its attempts `taskAttemptSessionId(batchId, task.id, k)`):
 * - that turn workflow exists and is closed → its result is reported (`finished-earlier`); with
 *   `retryFailed` and an error result, a new attempt is started instead (`retried`);
 * - it is running → followed to its end (`attached`);
 * - it does not exist → submitted with update-with-start under a fixed update id, so a
 *   concurrent or repeated submit is de-duplicated by the server (`started`).
 * Never throws for a task's failure (it becomes an error result); throws for Temporal
 * connection errors only through the results of the affected tasks.
 */
export async function runBatch(opts: RunBatchOptions): Promise<BatchRunSummary> {
  const concurrency = Math.max(1, opts.concurrency ?? 4);
  const results = new Map<string, BatchResult>();
  const queue = [...opts.tasks];
  const emit = (e: BatchEvent): void => {
    try {
      opts.onEvent?.(e);
    } catch {
      // a progress renderer must not break the batch
    }
  };
  // Every Temporal call of the run listens to the signal: more than Node's default 10 listeners.
  if (opts.signal) setMaxListeners(0, opts.signal);
  const aborted = new Promise<'aborted'>((resolve) => {
    if (opts.signal?.aborted) resolve('aborted');
    opts.signal?.addEventListener('abort', () => resolve('aborted'), { once: true });
  });

  async function lane(): Promise<void> {
    for (;;) {
      if (opts.signal?.aborted) return;
      const task = queue.shift();
      if (!task) return;
      // In-flight Temporal calls of the task are cancelled on abort (so none outlives the connection).
      const run = opts.signal
        ? opts.client.withAbortSignal(opts.signal, () => runTask(opts, task, emit))
        : runTask(opts, task, emit);
      const r = await Promise.race([run.catch(() => 'aborted' as const), aborted]);
      if (r === 'aborted') return;
      results.set(task.id, r.result);
      emit({ type: 'task_done', task, sessionId: r.sessionId, source: r.source, result: r.result });
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, opts.tasks.length) }, () => lane()));
  const ordered: BatchResult[] = [];
  const unfinished: BatchTask[] = [];
  for (const t of opts.tasks) {
    const r = results.get(t.id);
    if (r) ordered.push(r);
    else unfinished.push(t);
  }
  return { results: ordered, unfinished, interrupted: opts.signal?.aborted === true };
}

/** Internal: a task's run was abandoned because the batch was aborted. */
class BatchAbortedError extends Error {
  override readonly name = 'BatchAbortedError';
  constructor() {
    super('the batch run was aborted');
  }
}

interface TaskRun {
  sessionId: string;
  source: TaskSource;
  result: BatchResult;
}

async function runTask(opts: RunBatchOptions, task: BatchTask, emit: (e: BatchEvent) => void): Promise<TaskRun> {
  const { client, batchId } = opts;
  /** After an abort the run has moved on: make no new Temporal calls (none may outlive the connection). */
  const guard = (): void => {
    if (opts.signal?.aborted) throw new BatchAbortedError();
  };
  // The task's latest attempt (attempts after the first exist only after --retry-failed runs).
  let attempt = 0;
  let sessionId = taskSessionId(batchId, task.id);
  let status: string | null = null;
  const tag = (r: SDKResultMessage): BatchResult => ({
    ...r,
    task_id: task.id,
    batch_id: batchId,
    ...(task.metadata ? { metadata: task.metadata } : {}),
  });
  let retrying = false;
  try {
    // 1. Is the task's turn already there (an earlier run of this batch started it)?
    status = await turnStatus(client, turnWorkflowId(sessionId, 1));
    while (status !== null) {
      guard();
      const next = taskAttemptSessionId(batchId, task.id, attempt + 1);
      const nextStatus = await turnStatus(client, turnWorkflowId(next, 1));
      if (nextStatus === null) break;
      attempt++;
      sessionId = next;
      status = nextStatus;
    }
    guard();
    if (status !== null) {
      const turnId = turnWorkflowId(sessionId, 1);
      const source: TaskSource = status === 'RUNNING' ? 'attached' : 'finished-earlier';
      if (source === 'attached') emit({ type: 'task_running', task, sessionId, source });
      const result = tag(await turnResult(opts, sessionId, turnId));
      guard();
      await endSession(client, sessionId);
      if (!(opts.retryFailed && source === 'finished-earlier' && result.is_error)) {
        return { sessionId, source, result };
      }
      attempt++;
      sessionId = taskAttemptSessionId(batchId, task.id, attempt);
      retrying = true;
    }
    // 2. No turn workflow, but a transcript: it ran once and its workflow is gone (retention).
    if (await opts.store.exists(sessionId)) {
      guard();
      const result = tag(
        syntheticResult(sessionId, 'error_during_execution', [
          `task ${task.id} ran before (session ${sessionId} has a transcript) but its turn workflow ${turnWorkflowId(sessionId, 1)} is no longer in Temporal; not running it again`,
        ]),
      );
      return { sessionId, source: 'finished-earlier', result };
    }
    // 3. The batch budget is spent: do not start more.
    guard();
    if (opts.budget && (await opts.budget.exhausted())) {
      const result = tag(
        syntheticResult(
          sessionId,
          'error_max_budget_usd',
          [`not started: the batch budget of $${opts.budget.limitUsd} was spent by other tasks`],
          'budget_exhausted',
        ),
      );
      return { sessionId, source: 'skipped', result };
    }
    // 4. Submit: update-with-start under a fixed update id (idempotent).
    guard();
    const options = {
      ...taskTurnOptions(opts.defaults, task, opts.budget),
      ...(opts.sessionOptions ? await opts.sessionOptions(task, sessionId) : {}),
    };
    const engine = new QueryEngine({
      client,
      store: opts.store,
      taskQueue: opts.taskQueue,
      cwd: task.cwd,
      defaults: options,
      sessionId,
      idleTimeoutMs: opts.sessionIdleTimeoutMs ?? 60_000,
      searchAttributes: { batchId, taskId: task.id },
      ...definitionsOption(opts.definitionsFor?.(task)),
    });
    const started = await engine.start(task.prompt, options, taskPromptUuid(sessionId), {
      updateId: taskSubmitUpdateId(sessionId),
    });
    guard();
    const source = retrying ? 'retried' : 'started';
    emit({ type: 'task_running', task, sessionId, source });
    const result = tag(await turnResult(opts, sessionId, started.turnWorkflowId));
    guard();
    await endSession(client, sessionId);
    return { sessionId, source, result };
  } catch (err) {
    if (err instanceof BatchAbortedError || opts.signal?.aborted) throw new BatchAbortedError();
    const msg = err instanceof Error ? err.message : String(err);
    return {
      sessionId,
      source: 'started',
      result: tag(syntheticResult(sessionId, 'error_during_execution', [`batch: task ${task.id} failed: ${msg}`])),
    };
  }
}

function definitionsOption(d: SessionDefinitions | undefined): { definitions?: SessionDefinitions } {
  return d ? { definitions: d } : {};
}

/** Status name of a workflow (`RUNNING`, `COMPLETED`, …), or null when it does not exist. */
async function turnStatus(client: Client, workflowId: string): Promise<string | null> {
  try {
    const d = await client.workflow.getHandle(workflowId).describe();
    return d.status.name;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}

/** Waits for a turn workflow (following continue-as-new) and builds its result message. */
async function turnResult(opts: RunBatchOptions, sessionId: string, turnId: string): Promise<SDKResultMessage> {
  const handle = opts.client.workflow.getHandle<() => Promise<TurnOutcome>>(turnId);
  let outcome: TurnOutcome;
  try {
    outcome = await handle.result();
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    return syntheticResult(sessionId, 'error_during_execution', [
      `turn workflow ${turnId} did not complete: ${msg}${cause ? ` (${cause})` : ''}`,
    ]);
  }
  let finalText = '';
  if (outcome.lastAssistantUuid) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const e = await opts.store.get(sessionId, outcome.lastAssistantUuid);
      if (e) {
        finalText = assistantText(e);
        break;
      }
      await sleep(50);
    }
  }
  return resultMessage(outcome, { sessionId, uuid: uuidV5(`${turnId}/result`), finalText });
}

/**
 * Ends a task's session and waits (briefly) until it has closed, so its search attributes are
 * final when the task is reported, and an embedded worker is not shut down with the session's
 * last workflow tasks still pending.
 */
async function endSession(client: Client, sessionId: string): Promise<void> {
  const handle = client.workflow.getHandle(sessionWorkflowId(sessionId));
  try {
    await handle.signal(endSessionSignal);
    await client.withDeadline(Date.now() + SESSION_CLOSE_WAIT_MS, () => handle.result());
  } catch {
    // already closed, or slow to close: the task's result does not depend on it
  }
}

/** How long a finished task waits for its session workflow to close (ms). */
const SESSION_CLOSE_WAIT_MS = 10_000;

/** An error result for a task that has no turn outcome (not started, or its workflow failed). */
export function syntheticResult(
  sessionId: string,
  subtype: ResultSubtype,
  errors: string[],
  terminalReason = 'batch',
): SDKResultMessage {
  return {
    type: 'result',
    subtype,
    uuid: uuidV5(`${sessionId}/synthetic-result/${subtype}`),
    session_id: sessionId,
    duration_ms: 0,
    duration_api_ms: 0,
    is_error: true,
    num_turns: 0,
    stop_reason: null,
    total_cost_usd: 0,
    total_cost_usd_known: true,
    usage: emptyUsage(),
    modelUsage: {},
    permission_denials: [],
    terminal_reason: terminalReason,
    errors,
  };
}
