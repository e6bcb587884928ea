import type { SessionInput, SessionState, StoredSessionSummary, SubmitRequest } from '../common/session';
import { MAX_SETTLED_BATCH_CALLS } from '../common/session';
import type { BatchSpend } from '../common/batch';
import type { TurnInput, TurnOptions, TurnOutcome } from '../common/turn';
import { WORKFLOW_STATE_VERSION } from '../common/turn';
import { addUsage, emptyUsage } from '../common/usage';
import { firstLine } from '../common/summary';
import { turnWorkflowId } from '../common/ids';
import { mergeModelUsage, totalCost } from '../engine/cost';
import { applyLimitPatch } from '../engine/limits';
import { capReadFileState } from '../engine/read-file-state';
import type { LimitPatch, SessionStatusView } from './messages';
import type { TaskFinishedMessage, TaskRecord, TaskStartedMessage } from '../common/tasks';
import { SessionTasks } from './session-tasks';

/** Denials kept in session state (most recent). */
export const MAX_DENIALS = 100;

/** What continue-as-new carries of a session: the turn defaults and the state, whole. */
export type SessionCarry = Required<Pick<SessionInput, 'defaults' | 'state'>>;

/**
 * The state of one session between turns (the seeds' QueryEngine fields), as one object: the
 * leaf of the conversation, usage and cost totals, permission denials, read-file state, where
 * the workspace is, and the defaults the next turn starts with. It is carried whole through
 * continue-as-new ({@link carry}: `SessionInput.defaults` and `.state`) and changed only through
 * its methods, one per event of the session, so that `Session` reads as the loop and this file
 * as its state. A new kind of state (a table of the session's tasks) is a field of
 * `SessionState` with methods here.
 *
 * Deterministic: no I/O, only values the workflow already holds.
 */
export class SessionLedger {
  private s: SessionState;
  private opts: TurnOptions;
  /** The session's task table (kept in `state.tasks` as it changes). */
  readonly tasks: SessionTasks;

  /**
   * A session as its input says: the state carried through continue-as-new, else empty until
   * {@link load}.
   * @throws Error for a state of a newer version (`v` above {@link WORKFLOW_STATE_VERSION}):
   *   this code would drop what it does not know, so the workflow task fails and is retried
   *   until a worker with newer code takes it.
   */
  constructor(input: SessionInput) {
    if (input.state && input.state.v > WORKFLOW_STATE_VERSION) {
      throw new Error(
        `session state version ${input.state.v} is newer than this worker's (${WORKFLOW_STATE_VERSION}): run a newer worker`,
      );
    }
    this.s = input.state ?? emptyState(input);
    this.opts = input.defaults;
    this.tasks = new SessionTasks(this.s.tasks);
  }

  /** The state (for queries and the workflow's result; do not mutate). */
  get state(): SessionState {
    return this.s;
  }

  /** The options the next turn starts with, before its submit's own. */
  get defaults(): TurnOptions {
    return this.opts;
  }

  /** A fresh session: the conversation and totals the store holds (a resumed session's history). */
  load(stored: StoredSessionSummary): void {
    if (!stored.exists) return;
    const cost = totalCost(stored.modelUsage);
    this.s = {
      ...this.s,
      leafUuid: stored.leafUuid,
      turnCount: stored.turnCount,
      usage: stored.usage,
      modelUsage: stored.modelUsage,
      totalCostUsd: cost.usd,
      costKnown: cost.known,
    };
  }

  /** A task run began (signal `taskStarted`). */
  taskStarted(m: TaskStartedMessage): void {
    this.tasks.started(m);
    this.s = { ...this.s, tasks: this.tasks.table };
  }

  /**
   * A task run ended (signal `taskFinished`). A background run's spend joins the session's
   * totals here (a foreground run's is in the outcome of the turn that held it). Returns the
   * record when the run was current and is the session's to notify about.
   */
  taskFinished(m: TaskFinishedMessage): TaskRecord | undefined {
    const done = this.tasks.finished(m);
    if (!done) return undefined;
    let s: SessionState = { ...this.s, tasks: this.tasks.table };
    if (done.owner === 'session') {
      const modelUsage = mergeModelUsage(s.modelUsage, m.modelUsage);
      const cost = totalCost(modelUsage);
      s = { ...s, modelUsage, totalCostUsd: cost.usd, costKnown: cost.known };
    }
    this.s = s;
    return done.owner === 'session' ? done : undefined;
  }

  /**
   * A batch's response no turn counted (signal `batchSpend`): its usage and cost join the
   * session's totals, once per `customId`. Returns false for one already counted.
   */
  settleBatchSpend(m: BatchSpend): boolean {
    const settled = this.s.settledBatchCalls ?? [];
    if (settled.includes(m.customId)) return false;
    const modelUsage = mergeModelUsage(this.s.modelUsage, m.modelUsage);
    const cost = totalCost(modelUsage);
    this.s = {
      ...this.s,
      usage: addUsage(this.s.usage, m.usage),
      modelUsage,
      totalCostUsd: cost.usd,
      costKnown: cost.known,
      settledBatchCalls: [...settled, m.customId].slice(-MAX_SETTLED_BATCH_CALLS),
    };
    return true;
  }

  /** A `setLimits` signal: the limits of later turns (the running turn gets the signal too). */
  setLimits(patch: LimitPatch): void {
    this.opts = { ...this.opts, limits: applyLimitPatch(this.opts.limits, patch) };
  }

  /** Number and workflow id of the next turn. */
  nextTurn(): { number: number; id: string } {
    const number = this.s.turnCount + 1;
    return { number, id: turnWorkflowId(this.s.sessionId, number) };
  }

  /** The input of the next turn: the submit on top of the defaults, from the conversation's leaf. */
  turnInput(
    req: SubmitRequest,
    turn: { number: number; id: string },
    promptUuid: string,
    sessionWorkflowId: string,
  ): TurnInput {
    const s = this.s;
    return {
      v: WORKFLOW_STATE_VERSION,
      sessionId: s.sessionId,
      turnId: turn.id,
      turnNumber: turn.number,
      cwd: s.cwd,
      // Sessions started by versions before prompt refs queued the text itself.
      ...(typeof req.prompt === 'string' ? { prompt: req.prompt } : { promptRef: req.prompt }),
      ...(req.command ? { command: req.command } : {}),
      ...(req.promptLine !== undefined ? { promptLine: firstLine(req.promptLine) } : {}),
      promptUuid,
      parentUuid: s.leafUuid,
      options: mergeOptions(this.opts, req.options),
      readFileState: s.readFileState,
      sessionWorkflowId,
      ...(s.workspace !== undefined ? { workspace: s.workspace } : {}),
    };
  }

  /** A turn that ended with an outcome (any subtype): its leaf, spend, denials and files count. */
  recordTurn(o: TurnOutcome, turnId: string): void {
    const s = this.s;
    const modelUsage = mergeModelUsage(s.modelUsage, o.modelUsage);
    const cost = totalCost(modelUsage);
    this.s = {
      ...s,
      leafUuid: o.leafUuid,
      turnCount: s.turnCount + 1,
      usage: addUsage(s.usage, o.usage),
      modelUsage,
      totalCostUsd: cost.usd,
      costKnown: cost.known,
      permissionDenials: [...s.permissionDenials, ...o.permissionDenials].slice(-MAX_DENIALS),
      readFileState: capReadFileState(o.readFileState),
      lastTurnWorkflowId: turnId,
      ...(o.workspace !== undefined ? { workspace: o.workspace } : {}),
    };
  }

  /**
   * A turn that failed as a workflow (a bug, a termination): the leaf as the store has it and,
   * with `countStored` (patch `failedTurnTotals`), the session's totals re-read from the store,
   * which has the billing of every model call attempt the turn made, so its spend is not lost.
   */
  recordFailedTurn(stored: StoredSessionSummary, turnId: string, countStored: boolean): void {
    const s = this.s;
    this.s = {
      ...s,
      ...(countStored ? storedTotals(s, stored) : {}),
      leafUuid: stored.leafUuid ?? s.leafUuid,
      turnCount: s.turnCount + 1,
      lastTurnWorkflowId: turnId,
    };
  }

  /** What `agent-runner status` shows of the session (the running turn's `progress` has the rest). */
  status(
    live: Pick<SessionStatusView, 'busy' | 'currentTurnWorkflowId' | 'queued' | 'notificationsQueued'>,
  ): SessionStatusView {
    const s = this.s;
    return {
      sessionId: s.sessionId,
      busy: live.busy,
      currentTurnWorkflowId: live.currentTurnWorkflowId,
      lastTurnWorkflowId: s.lastTurnWorkflowId,
      turnCount: s.turnCount,
      usage: s.usage,
      totalCostUsd: s.totalCostUsd,
      costKnown: s.costKnown,
      limits: this.opts.limits,
      budgetPoolId: this.opts.budgetPoolId ?? null,
      queued: live.queued,
      ...(s.workspace ? { workspace: s.workspace } : {}),
      ...(s.tasks ? { tasks: s.tasks.entries, subagentStats: s.tasks.stats } : {}),
      ...(live.notificationsQueued ? { notificationsQueued: live.notificationsQueued } : {}),
    };
  }

  /** What the next run carries through continue-as-new: the defaults and the state, whole. */
  carry(): SessionCarry {
    return { defaults: this.opts, state: this.s };
  }
}

/** The state of a session nothing is known of yet (before its store is read). */
export function emptyState(input: Pick<SessionInput, 'sessionId' | 'cwd'>): SessionState {
  return {
    v: WORKFLOW_STATE_VERSION,
    sessionId: input.sessionId,
    cwd: input.cwd,
    leafUuid: null,
    turnCount: 0,
    usage: emptyUsage(),
    modelUsage: {},
    totalCostUsd: 0,
    costKnown: true,
    permissionDenials: [],
    readFileState: {},
    lastTurnWorkflowId: null,
  };
}

/** A submit's options on top of the defaults (absent fields keep the default; limits merge). */
function mergeOptions(defaults: TurnOptions, patch: Partial<TurnOptions> | undefined): TurnOptions {
  if (!patch) return defaults;
  const merged: TurnOptions = { ...defaults };
  for (const [k, v] of Object.entries(patch)) {
    if (v !== undefined) (merged as unknown as Record<string, unknown>)[k] = v;
  }
  merged.limits = { ...defaults.limits, ...(patch.limits ?? {}) };
  return merged;
}

/**
 * Usage and cost from the store's totals; never below what the session counted (a store that
 * lost lines, or a session whose totals came from elsewhere, keeps its counts).
 */
function storedTotals(
  state: SessionState,
  stored: Pick<StoredSessionSummary, 'usage' | 'modelUsage'>,
): Pick<SessionState, 'usage' | 'modelUsage' | 'totalCostUsd' | 'costKnown'> | Record<string, never> {
  const cost = totalCost(stored.modelUsage);
  if (cost.usd < state.totalCostUsd || stored.usage.output_tokens < state.usage.output_tokens) return {};
  return { usage: stored.usage, modelUsage: stored.modelUsage, totalCostUsd: cost.usd, costKnown: cost.known };
}
