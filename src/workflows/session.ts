import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
  uuid4,
} from '@temporalio/workflow';
import type { Activities } from '../activities/types';
import type { SessionInput, SessionState, SubmitRequest } from '../common/session';
import type { TurnInput, TurnOutcome } from '../common/turn';
import { isContentRef } from '../common/content-ref';
import type { ContentRef } from '../common/content-ref';
import type { TaskRecord } from '../common/tasks';
import {
  endSessionSignal,
  interruptSignal,
  reportSpendSignal,
  stopRunSignal,
  sessionStateQuery,
  sessionStatusQuery,
  setLimitsSignal,
  submitMessageUpdate,
} from './messages';
import { approvalStatusSignal } from './approval-messages';
import { batchSpendSignal } from './batch-messages';
import { totalCost } from '../engine/cost';
import { budgetPoolWorkflowId } from '../common/ids';
import { WAITING_FOR_APPROVAL_STATUS } from '../common/approvals';
import { turnWorkflow } from './turn';
import { agentResultFailure, resultOfFailure } from '../common/agent-result';
import { AGENT_STATUS_RUNNING, SA } from '../common/search-attributes';
import type { SearchAttributePair } from '@temporalio/common';
import { LABEL_CHARS, firstLine } from '../common/summary';
import { isPatched } from './patches';
import { SessionInbox, promptSource } from './session-inbox';
import type { QueuedWork } from './session-inbox';
import { SessionLedger } from './session-state';
import { SessionTaskControl } from './session-task-control';
import { SessionWakeups } from './session-wakeups';
import { CRON_SOURCE, SessionCrons } from './session-crons';

export { MAX_DENIALS } from './session-state';

const { loadSession, storeTaskNotification } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 10 },
});

/** Turns after which a session continues as new even if the server does not suggest it. */
export const TURNS_PER_RUN = 100;
/** Default idle time before a session workflow completes (ms); `--resume` rebuilds it. */
export const DEFAULT_IDLE_TIMEOUT_MS = 15 * 60_000;

/**
 * One conversation (the seeds' QueryEngine): holds the leaf of the message chain, usage and cost
 * totals, permission denials and read-file state between turns, and runs each `submitMessage`
 * update as a child `turnWorkflow`, one at a time (later submits wait their turn).
 *
 * Update: `submitMessage` → `{turnWorkflowId, turnNumber, promptUuid}` once the turn has started.
 * Query: `sessionState`. Signals: `endSession`, and `setLimits` / `interrupt`, forwarded to the
 * running turn. Completes after `idleTimeoutMs` without work or on `endSession`; continues as new
 * every `TURNS_PER_RUN` turns or when the server suggests it.
 * @returns the final session state
 */
export async function sessionWorkflow(input: SessionInput): Promise<SessionState> {
  return new Session(input).run();
}

/**
 * A running session: its state (one object, {@link SessionLedger}, carried through
 * continue-as-new), what waits for a turn ({@link SessionInbox}), the running turn, and one
 * method per step of the loop.
 */
class Session {
  private readonly ledger: SessionLedger;
  private readonly inbox = new SessionInbox();
  private readonly control: SessionTaskControl;
  private readonly wakeups: SessionWakeups;
  private readonly crons: SessionCrons;
  /** Workflow id of the running turn (null between turns). */
  private currentTurn: string | null = null;
  private busy = false;
  /** A client ended the session (`endSession`); withdrawn by a later submit (a resuming client). */
  private ended = false;
  /** The loop is done: the workflow completes, no submit is taken. */
  private closing = false;
  private turnsThisRun = 0;
  /**
   * The subtype of this run's last turn when it failed, else null (a run continued as new starts
   * with none: a session continues as new only after a turn, and its next run ends after its own).
   */
  private lastFailure: string | null = null;

  constructor(private readonly input: SessionInput) {
    this.ledger = new SessionLedger(input);
    this.control = new SessionTaskControl(this.ledger, this.inbox);
    this.wakeups = new SessionWakeups(this.ledger, this.inbox);
    this.crons = new SessionCrons(this.ledger, this.inbox);
    this.setHandlers();
  }

  /**
   * The loop: wait for work (a submit) or the end, run one turn for it, continue as new when
   * due. Ends once idle for `idleTimeoutMs`, or on `endSession` with nothing queued.
   */
  async run(): Promise<SessionState> {
    if (!this.input.state) this.ledger.load(await loadSession(this.input.sessionId));
    this.wakeups.resume();
    this.crons.resume();
    for (;;) {
      const next = await this.nextWork();
      if (!next) {
        this.closing = true;
        break;
      }
      await this.runTurn(next);
      await this.continueAsNewIfDue();
    }
    await condition(allHandlersFinished);
    // A session whose last turn failed ends as failed too (the Web UI lists it as Failed).
    if (this.lastFailure !== null && isPatched('errorResultFailsSession')) {
      throw agentResultFailure(
        this.lastFailure,
        [`the session's last turn ended with ${this.lastFailure}`],
        this.ledger.state,
      );
    }
    return this.ledger.state;
  }

  /**
   * Waits for queued work (a submit, a finished task's notification), the end, or the idle
   * timeout; the work to run, if any. While a task of the session runs the session neither times
   * out nor ends: the task's end brings its notification, which starts a turn.
   */
  private async nextWork(): Promise<QueuedWork | undefined> {
    const idleTimeoutMs = this.input.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    const tasks = this.ledger.tasks;
    for (;;) {
      const ready = (): boolean => this.inbox.hasWork() || (this.ended && !tasks.pending());
      if (tasks.pending()) {
        await condition(ready);
        return this.inbox.take();
      }
      const hasWork = await condition(ready, idleTimeoutMs);
      if (hasWork) return this.inbox.take();
      if (!tasks.pending()) return undefined;
    }
  }

  /** Runs one turn as a child workflow and records what it came to (also when it failed as a workflow). */
  private async runTurn(next: QueuedWork): Promise<void> {
    // Busy from the moment the work is taken (a notification is stored first): a client that
    // follows the session's tasks never sees it idle between a task's end and its turn.
    this.busy = true;
    const turn = this.ledger.nextTurn();
    const promptUuid = (next.kind === 'submit' ? next.req.promptUuid : undefined) ?? uuid4();
    const { req, notification } =
      next.kind === 'submit'
        ? { req: next.req, notification: undefined }
        : next.kind === 'event'
          ? eventTurn(next.record, next.ref)
          : await this.notificationTurn(next.record, next.finished);
    const base = this.ledger.turnInput(req, turn, promptUuid, workflowInfo().workflowId);
    const turnInput = {
      ...base,
      // A task's notification is not the user's question: its turn is not held to --json-schema
      // (outsider F6: a later notification turn's schema retries replaced the answer).
      ...(notification ? { notification, options: withoutJsonSchema(base.options) } : {}),
    };
    if (workflowInfo().typedSearchAttributes.get(SA.status) !== AGENT_STATUS_RUNNING) {
      setStatusAttributes(AGENT_STATUS_RUNNING, this.ledger.state.totalCostUsd);
    }
    const handle = await startChild(turnWorkflow, {
      workflowId: turn.id,
      args: [turnInput],
      ...(isPatched('turnMetadata') ? turnMetadata(turnInput) : {}),
    });
    this.currentTurn = turn.id;
    if (next.kind === 'submit') {
      const { totalCostUsd, costKnown, modelUsage } = this.ledger.state;
      this.inbox.answer(next.id, {
        turnWorkflowId: turn.id,
        turnNumber: turn.number,
        promptUuid,
        sessionBefore: { costUsd: totalCostUsd, costKnown, modelUsage },
      });
    }
    // An error result fails the turn workflow and travels in the failure; anything else failed it.
    const outcome = await handle.result().catch((err: unknown) => resultOfFailure<TurnOutcome>(err) ?? null);
    this.lastFailure = outcome === null ? 'error_during_execution' : outcome.isError ? outcome.subtype : null;
    const source = next.kind === 'submit' ? promptSource(next.id) : undefined;
    if (source?.startsWith(CRON_SOURCE))
      this.crons.fireEnded(source.slice(CRON_SOURCE.length), this.lastFailure !== null);
    if (outcome) this.ledger.recordTurn(outcome, turn.id);
    else {
      // Failed as a workflow: the store has what the turn recorded (its leaf, the billing of its calls).
      const stored = await loadSession(this.ledger.state.sessionId);
      this.ledger.recordFailedTurn(stored, turn.id, isPatched('failedTurnTotals'));
    }
    setStatusAttributes(outcome ? outcome.subtype : 'error_during_execution', this.ledger.state.totalCostUsd);
    this.busy = false;
    this.currentTurn = null;
    this.turnsThisRun++;
  }

  /**
   * The submit of a turn a finished task starts: its notification (Claude Code's
   * `<task-notification>` text), stored by an activity; the turn writes it as its first line.
   */
  private async notificationTurn(
    record: Parameters<typeof storeTaskNotification>[0]['record'],
    finished: Parameters<typeof storeTaskNotification>[0]['finished'],
  ): Promise<{ req: SubmitRequest; notification: NonNullable<TurnInput['notification']> }> {
    const sessionId = this.ledger.state.sessionId;
    const ref = await storeTaskNotification({ sessionId, record, finished });
    return {
      req: { prompt: ref, promptLine: firstLine(`task notification: ${record.description}`) },
      notification: {
        taskId: record.taskId,
        runId: record.runId,
        origin: { kind: 'task-notification', producer: 'session-task', runId: record.runId },
      },
    };
  }

  /** Continues as new, idle and not ending, every `TURNS_PER_RUN` turns or when the server suggests it. */
  private async continueAsNewIfDue(): Promise<void> {
    if (this.inbox.hasWork() || this.ended) return;
    if (!workflowInfo().continueAsNewSuggested && this.turnsThisRun < TURNS_PER_RUN) return;
    await condition(allHandlersFinished);
    if (this.inbox.hasWork()) return;
    await continueAsNew<typeof sessionWorkflow>({ ...this.input, ...this.ledger.carry() });
  }

  private setHandlers(): void {
    // A session still running after `endSession` (its tasks are pending: a cron job, a background
    // command) takes a resuming client's turn, and the ending is withdrawn: that client ends it
    // again when it exits. Earlier versions refused such a submit in the validator; a refused
    // update is not in history, so no history replays one and no patch is needed.
    setHandler(
      submitMessageUpdate,
      (req: SubmitRequest) => {
        this.ended = false;
        return this.inbox.submit(req);
      },
      { validator: (req: SubmitRequest) => validateSubmit(req, this.closing) },
    );
    setHandler(sessionStateQuery, () => ({
      ...this.ledger.state,
      busy: this.busy,
      currentTurnWorkflowId: this.currentTurn,
    }));
    setHandler(sessionStatusQuery, () =>
      this.ledger.status({
        busy: this.busy,
        currentTurnWorkflowId: this.currentTurn,
        queued: this.inbox.queued,
        notificationsQueued: this.inbox.notifications,
      }),
    );
    this.control.setHandlers();
    this.wakeups.setHandlers();
    this.crons.setHandlers();
    setHandler(endSessionSignal, () => {
      this.ended = true;
    });
    // The running turn waits for an approval (or no longer does): shown as `AgentStatus`.
    setHandler(approvalStatusSignal, ({ waiting }) => {
      if (this.busy)
        setStatusAttributes(
          waiting ? WAITING_FOR_APPROVAL_STATUS : AGENT_STATUS_RUNNING,
          this.ledger.state.totalCostUsd,
        );
    });
    setHandler(setLimitsSignal, async (patch) => {
      this.ledger.setLimits(patch);
      await this.forward((turn) => turn.signal(setLimitsSignal, patch));
      await this.control.forwardLimits(patch);
    });
    // A batch answered a call no turn counts (its turn was interrupted, or the synchronous
    // fallback answered first): billed all the same, so it counts here and in the budget pool.
    // (A new signal: histories from before it never received one, so no patch is needed.)
    setHandler(batchSpendSignal, async (m) => {
      if (!this.ledger.settleBatchSpend(m)) return;
      const poolId = this.ledger.defaults.budgetPoolId;
      const { usd } = totalCost(m.modelUsage);
      if (poolId === undefined || usd <= 0) return;
      await getExternalWorkflowHandle(budgetPoolWorkflowId(poolId))
        .signal(reportSpendSignal, { memberWorkflowId: m.turnId, usd })
        .catch(() => undefined); // a closed pool takes no more spend
    });
    // An interrupt stops the running turn and every task of the session.
    setHandler(interruptSignal, async (reason?: string) => {
      await this.forward((turn) => turn.signal(interruptSignal, reason));
      await this.control.stopAll('user');
      this.wakeups.stop();
    });
    setHandler(stopRunSignal, async (reason: string) => {
      this.inbox.dropNotifications();
      await this.forward((turn) => turn.signal(interruptSignal, reason));
      await this.control.stopAll('user');
      this.wakeups.stop();
      // What the stopped tasks queued while being stopped starts no turn either.
      this.inbox.dropNotifications();
    });
  }

  /**
   * Sends a signal to the running turn, if any. A turn that ended meanwhile makes the signal
   * fail, which must not fail the handler (and with it the session's workflow task).
   */
  private async forward(send: (turn: ReturnType<typeof getExternalWorkflowHandle>) => Promise<void>): Promise<void> {
    if (this.currentTurn) await send(getExternalWorkflowHandle(this.currentTurn)).catch(() => undefined);
  }
}

/** Turn options without `--json-schema` (a notification turn's). */
function withoutJsonSchema(options: TurnInput['options']): TurnInput['options'] {
  const { jsonSchemaKey: _schema, ...rest } = options;
  void _schema;
  return rest;
}

/**
 * The submit of a turn a monitor's event starts: its notification, stored by the monitor's
 * activity (2.1.328: the result's `origin` has no run id for an event).
 */
function eventTurn(
  record: TaskRecord,
  ref: ContentRef,
): { req: SubmitRequest; notification: NonNullable<TurnInput['notification']> } {
  return {
    req: { prompt: ref, promptLine: firstLine(`monitor event: ${record.description}`) },
    notification: {
      taskId: record.taskId,
      runId: record.runId,
      origin: { kind: 'task-notification', producer: 'session-task' },
    },
  };
}

/** The `submitMessage` validator: a prompt by reference, a short summary line, a session not completing. */
function validateSubmit(req: SubmitRequest, ending: boolean): void {
  if (!isContentRef(req?.prompt) || req.prompt.bytes === 0) {
    throw new Error('submitMessage: prompt must be a non-empty prompt stored by reference (storePrompt)');
  }
  if (req.promptLine !== undefined && (typeof req.promptLine !== 'string' || req.promptLine.length > 4 * LABEL_CHARS)) {
    throw new Error(`submitMessage: promptLine is a summary of at most ${LABEL_CHARS} characters, not the prompt`);
  }
  if (ending) throw new Error('submitMessage: the session is ending');
}

/**
 * What a turn workflow shows in the Web UI and to visibility queries: a summary (`turn 3: first
 * line of the prompt`, with `[batch/task]` for a batch task), details (session, cwd, model), and,
 * on servers that have the runner's search attributes, `AgentSessionId` (plus batch and task) and
 * `AgentStatus: running` (the turn sets its result subtype when it ends).
 */
function turnMetadata(t: TurnInput): {
  staticSummary: string;
  staticDetails: string;
  typedSearchAttributes?: SearchAttributePair[];
} {
  const sa = workflowInfo().typedSearchAttributes;
  const batchId = sa.get(SA.batchId);
  const taskId = sa.get(SA.taskId);
  const tag = batchId !== undefined ? `[${batchId}${taskId !== undefined ? `/${taskId}` : ''}] ` : '';
  const details = [
    `**session** \`${t.sessionId}\``,
    `**cwd** \`${t.cwd}\``,
    `**model** \`${t.options.model}\``,
    ...(batchId !== undefined ? [`**batch** \`${batchId}\``] : []),
    ...(taskId !== undefined ? [`**task** \`${taskId}\``] : []),
  ];
  const pairs: SearchAttributePair[] = [
    { key: SA.sessionId, value: t.sessionId },
    { key: SA.status, value: AGENT_STATUS_RUNNING },
    ...(batchId !== undefined ? [{ key: SA.batchId, value: batchId }] : []),
    ...(taskId !== undefined ? [{ key: SA.taskId, value: taskId }] : []),
  ];
  return {
    staticSummary: firstLine(`${tag}turn ${t.turnNumber}: ${firstLine(t.promptLine ?? t.prompt ?? '')}`),
    staticDetails: details.join('  \n'),
    ...(sa.get(SA.sessionId) !== undefined ? { typedSearchAttributes: pairs } : {}),
  };
}

/**
 * Upserts `AgentStatus` and `AgentCostUsd` (one small history event). Only on sessions a client
 * started with the runner's search attributes: that proves the server has them registered (an
 * upsert of an unregistered attribute would fail the workflow task, again and again).
 */
function setStatusAttributes(status: string, costUsd: number): void {
  if (workflowInfo().typedSearchAttributes.get(SA.sessionId) === undefined) return;
  upsertSearchAttributes([
    { key: SA.status, value: status },
    { key: SA.costUsd, value: Math.round(costUsd * 1e6) / 1e6 },
  ]);
}
