/**
 * Batch runs: many independent tasks, each a session of one turn, with bounded concurrency and
 * an optional shared budget. Every id is derived from (batch id, task id), so running the same
 * batch again (after a crash or Ctrl-C) starts nothing twice: finished tasks are reported from
 * their turn workflow's result, running ones are re-attached, missing ones are started.
 * The CLI front door is `agent-runner batch` (src/cli/commands/batch.ts); see docs/batch.md.
 */
import { ensureRatePool } from './rate-pool';
import { createHash, randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { basename, extname } from 'node:path';
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { SDKResultMessage } from '../common/sdk-messages';
import type { ResultSubtype } from '../common/sdk-messages';
import type { TurnOptions } from '../common/turn';
import { emptyUsage } from '../common/usage';
import type { TranscriptStore } from '../store/transcript-store';
import { sessionWorkflowId, turnWorkflowId } from '../common/ids';
import { endSessionSignal } from '../workflows/messages';
import { cronCommandSignal } from '../workflows/cron-messages';
import type { BatchTask } from './batch-tasks';
import { QueryEngine } from './query-engine';
import type { SessionDefinitions } from './slash-commands';
import { awaitTurnOutcome, turnResultMessage } from './turn-result';
import { uuidV5 } from '../store/uuid';

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

/**
 * What an earlier attempt of a task spent (a failed attempt that `retryFailed` ran again): the
 * fields of its result message that count toward the batch's totals.
 */
export type BatchAttempt = Pick<
  SDKResultMessage,
  'session_id' | 'subtype' | 'num_turns' | 'total_cost_usd' | 'total_cost_usd_known'
>;

/** A task's result line: the SDK result message plus the task and batch ids. */
export type BatchResult = SDKResultMessage & {
  task_id: string;
  batch_id: string;
  metadata?: Record<string, unknown>;
  /**
   * The task's earlier attempts, oldest first (present only when `retryFailed` ran it again):
   * their spend is the task's too, and the batch's totals count it ({@link taskCostUsd}).
   */
  earlier_attempts?: BatchAttempt[];
};

/** USD a task spent: its result's `total_cost_usd` plus that of each earlier attempt. */
export function taskCostUsd(r: BatchResult): number {
  return (r.earlier_attempts ?? []).reduce((sum, a) => sum + a.total_cost_usd, r.total_cost_usd);
}

/** Whether every attempt's cost of a task is known ({@link taskCostUsd} is then exact). */
export function taskCostKnown(r: BatchResult): boolean {
  return r.total_cost_usd_known && (r.earlier_attempts ?? []).every((a) => a.total_cost_usd_known);
}

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
  // A rate pool is started if missing (its limits are learned from the API's headers); the
  // batch is its fairness key unless the defaults name another.
  if (opts.defaults.ratePoolId !== undefined) {
    await ensureRatePool(opts.client, { taskQueue: opts.taskQueue, poolId: opts.defaults.ratePoolId });
    opts = { ...opts, defaults: { rateFairnessKey: opts.batchId, ...opts.defaults } };
  }
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
  // The task's latest attempt (attempts after the first exist only after --retry-failed runs),
  // and what the earlier ones spent.
  let attempt = 0;
  let sessionId = taskSessionId(batchId, task.id);
  let status: string | null = null;
  const earlier: BatchAttempt[] = [];
  /** Whether the task's turn may have run (its spend is unknown when its result cannot be had). */
  let mayHaveRun = false;
  const tag = (r: SDKResultMessage): BatchResult => ({
    ...r,
    task_id: task.id,
    batch_id: batchId,
    ...(task.metadata ? { metadata: task.metadata } : {}),
    ...(earlier.length > 0 ? { earlier_attempts: [...earlier] } : {}),
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
      earlier.push(await attemptSpend(opts, sessionId));
      attempt++;
      sessionId = next;
      status = nextStatus;
    }
    guard();
    if (status !== null) {
      mayHaveRun = true;
      const turnId = turnWorkflowId(sessionId, 1);
      const source: TaskSource = status === 'RUNNING' ? 'attached' : 'finished-earlier';
      if (source === 'attached') emit({ type: 'task_running', task, sessionId, source });
      const result = await taskTurnResult(opts, sessionId, turnId);
      guard();
      await endSession(client, sessionId);
      if (!(opts.retryFailed && source === 'finished-earlier' && result.is_error)) {
        return { sessionId, source, result: tag(result) };
      }
      earlier.push(attemptOf(result));
      attempt++;
      sessionId = taskAttemptSessionId(batchId, task.id, attempt);
      retrying = true;
      mayHaveRun = false;
    }
    // 2. No turn workflow, but a transcript: it ran once and its workflow is gone (retention).
    if (await opts.store.exists(sessionId)) {
      guard();
      const result = tag(
        syntheticResult(
          sessionId,
          'error_during_execution',
          [
            `task ${task.id} ran before (session ${sessionId} has a transcript) but its turn workflow ${turnWorkflowId(sessionId, 1)} is no longer in Temporal; not running it again`,
          ],
          { costKnown: false },
        ),
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
          { terminalReason: 'budget_exhausted' },
        ),
      );
      return { sessionId, source: 'skipped', result };
    }
    // 4. Submit: update-with-start under a fixed update id (idempotent). The task's options are
    // the engine's defaults and go with the submission once.
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
    mayHaveRun = true;
    const started = await engine.start(task.prompt, options, taskPromptUuid(sessionId), {
      updateId: taskSubmitUpdateId(sessionId),
    });
    guard();
    const source = retrying ? 'retried' : 'started';
    emit({ type: 'task_running', task, sessionId, source });
    let result = tag(await taskTurnResult(opts, sessionId, started.turnWorkflowId));
    guard();
    // The turns the task's background work starts (a command's or agent's end) are the task's
    // too: its line is the last one's, with the session's total, as `-p --output-format json`
    // prints (outsider F9: a background command failing after the answer was a `success` line).
    for await (const m of engine.followTasks()) {
      if (m.type === 'result') result = tag(m);
      guard();
    }
    await endSession(client, sessionId);
    return { sessionId, source, result };
  } catch (err) {
    if (err instanceof BatchAbortedError || opts.signal?.aborted) throw new BatchAbortedError();
    const msg = err instanceof Error ? err.message : String(err);
    return {
      sessionId,
      source: 'started',
      result: tag(
        syntheticResult(sessionId, 'error_during_execution', [`batch: task ${task.id} failed: ${msg}`], {
          costKnown: !mayHaveRun,
        }),
      ),
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

/**
 * Waits for a task's turn workflow (following continue-as-new) and builds its result message, as
 * `-p` does (src/client/turn-result.ts): a failed turn workflow reports what it spent.
 */
async function taskTurnResult(opts: RunBatchOptions, sessionId: string, turnId: string): Promise<SDKResultMessage> {
  const outcome = await awaitTurnOutcome(opts.client.workflow.getHandle(turnId));
  return turnResultMessage(opts.store, sessionId, outcome, uuidV5(`${turnId}/result`));
}

/** What an earlier (closed) attempt of a task spent, from its turn's outcome. */
async function attemptSpend(opts: RunBatchOptions, sessionId: string): Promise<BatchAttempt> {
  const outcome = await awaitTurnOutcome(opts.client.workflow.getHandle(turnWorkflowId(sessionId, 1)));
  return {
    session_id: sessionId,
    subtype: outcome.subtype,
    num_turns: outcome.numTurns,
    total_cost_usd: outcome.costUsd,
    total_cost_usd_known: outcome.costKnown,
  };
}

function attemptOf(r: SDKResultMessage): BatchAttempt {
  return {
    session_id: r.session_id,
    subtype: r.subtype,
    num_turns: r.num_turns,
    total_cost_usd: r.total_cost_usd,
    total_cost_usd_known: r.total_cost_usd_known,
  };
}

/**
 * Ends a task's session and waits (briefly) until it has closed, so its search attributes are
 * final when the task is reported, and an embedded worker is not shut down with the session's
 * last workflow tasks still pending.
 */
async function endSession(client: Client, sessionId: string): Promise<void> {
  const handle = client.workflow.getHandle(sessionWorkflowId(sessionId));
  try {
    // Its session-only cron jobs end with it (QueryEngine.end does the same).
    await handle.signal(cronCommandSignal, { requestId: randomUUID(), replyTo: '', kind: 'end-session-only' });
    await handle.signal(endSessionSignal);
    await client.withDeadline(Date.now() + SESSION_CLOSE_WAIT_MS, () => handle.result());
  } catch {
    // already closed, or slow to close: the task's result does not depend on it
  }
}

/** How long a finished task waits for its session workflow to close (ms). */
const SESSION_CLOSE_WAIT_MS = 10_000;

/**
 * An error result for a task that has no turn outcome (not started, or its turn cannot be read).
 * @param opts.costKnown false when the task may have run and what it spent cannot be had
 *   (`total_cost_usd` 0 is then a lower bound). @default true
 */
export function syntheticResult(
  sessionId: string,
  subtype: ResultSubtype,
  errors: string[],
  opts: { terminalReason?: string; costKnown?: boolean } = {},
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
    total_cost_usd_known: opts.costKnown ?? true,
    usage: emptyUsage(),
    modelUsage: {},
    permission_denials: [],
    terminal_reason: opts.terminalReason ?? 'batch',
    errors,
  };
}
