import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/types';
import type { SessionInput, SessionState, SubmitRequest, SubmitResponse } from '../common/session';
import type { TurnInput, TurnOptions, TurnOutcome } from '../common/turn';
import { WORKFLOW_STATE_VERSION } from '../common/turn';
import { isContentRef } from '../common/content-ref';
import { addUsage, emptyUsage } from '../common/usage';
import { mergeModelUsage, totalCost } from '../engine/cost';
import { capReadFileState } from '../engine/read-file-state';
import { applyLimitPatch } from '../engine/limits';
import {
  endSessionSignal,
  interruptSignal,
  sessionStateQuery,
  sessionStatusQuery,
  setLimitsSignal,
  submitMessageUpdate,
} from './messages';
import type { LimitPatch, SessionStatusView } from './messages';
import { turnWorkflowId } from './ids';
import { approvalStatusSignal } from './approval-messages';
import { WAITING_FOR_APPROVAL_STATUS } from '../common/approvals';
import { turnWorkflow } from './turn';
import { AGENT_STATUS_RUNNING, SA } from '../common/search-attributes';
import type { SearchAttributePair } from '@temporalio/common';
import { LABEL_CHARS, firstLine } from '../common/summary';

const { loadSession } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 10 },
});

/** Turns after which a session continues as new even if the server does not suggest it. */
export const TURNS_PER_RUN = 100;
/** Denials kept in session state (most recent). */
export const MAX_DENIALS = 100;
/** Default idle time before a session workflow completes (ms); `--resume` rebuilds it. */
export const DEFAULT_IDLE_TIMEOUT_MS = 15 * 60_000;

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
  const queue: Array<{ id: string; req: SubmitRequest }> = [];
  const started = new Map<string, SubmitResponse>();
  let busy = false;
  let currentTurn: string | null = null;
  let ended = false;
  let defaults = input.defaults;
  let state: SessionState | undefined = input.state;

  setHandler(
    submitMessageUpdate,
    async (req: SubmitRequest): Promise<SubmitResponse> => {
      const id = uuid4();
      queue.push({ id, req });
      await condition(() => started.has(id));
      const resp = started.get(id);
      started.delete(id);
      if (!resp) throw new Error('turn was not started');
      return resp;
    },
    {
      validator: (req: SubmitRequest) => {
        if (!isContentRef(req?.prompt) || req.prompt.bytes === 0) {
          throw new Error('submitMessage: prompt must be a non-empty prompt stored by reference (storePrompt)');
        }
        if (
          req.promptLine !== undefined &&
          (typeof req.promptLine !== 'string' || req.promptLine.length > 4 * LABEL_CHARS)
        ) {
          throw new Error(
            `submitMessage: promptLine is a summary of at most ${LABEL_CHARS} characters, not the prompt`,
          );
        }
        if (ended) throw new Error('submitMessage: the session is ending');
      },
    },
  );
  setHandler(sessionStateQuery, () => ({
    ...(state ?? emptyState(input)),
    busy,
    currentTurnWorkflowId: currentTurn,
  }));
  setHandler(sessionStatusQuery, (): SessionStatusView => {
    const s = state ?? emptyState(input);
    return {
      sessionId: s.sessionId,
      busy,
      currentTurnWorkflowId: currentTurn,
      lastTurnWorkflowId: s.lastTurnWorkflowId,
      turnCount: s.turnCount,
      usage: s.usage,
      totalCostUsd: s.totalCostUsd,
      costKnown: s.costKnown,
      limits: defaults.limits,
      budgetPoolId: defaults.budgetPoolId ?? null,
      queued: queue.length,
      ...(s.workspace ? { workspace: s.workspace } : {}),
    };
  });
  setHandler(endSessionSignal, () => {
    ended = true;
  });
  // The running turn waits for an approval (or no longer does): shown as `AgentStatus`.
  setHandler(approvalStatusSignal, ({ waiting }) => {
    if (busy)
      setStatusAttributes(
        waiting ? WAITING_FOR_APPROVAL_STATUS : AGENT_STATUS_RUNNING,
        (state ?? emptyState(input)).totalCostUsd,
      );
  });
  // Forwarding to the running turn: a turn that ended meanwhile makes the signal fail, which must
  // not fail this handler (and with it the session's workflow task).
  setHandler(setLimitsSignal, async (patch: LimitPatch) => {
    defaults = { ...defaults, limits: applyLimitPatch(defaults.limits, patch) };
    if (currentTurn)
      await getExternalWorkflowHandle(currentTurn)
        .signal(setLimitsSignal, patch)
        .catch(() => undefined);
  });
  setHandler(interruptSignal, async (reason?: string) => {
    if (currentTurn)
      await getExternalWorkflowHandle(currentTurn)
        .signal(interruptSignal, reason)
        .catch(() => undefined);
  });

  if (!state) state = await stateFromStore(input);
  let turnsThisRun = 0;
  const idleTimeoutMs = input.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;

  for (;;) {
    const hasWork = await condition(() => queue.length > 0 || ended, idleTimeoutMs);
    if (!hasWork || queue.length === 0) break;
    const next = queue.shift();
    if (!next) continue;
    const turnNumber = state.turnCount + 1;
    const childId = turnWorkflowId(state.sessionId, turnNumber);
    const promptUuid = next.req.promptUuid ?? uuid4();
    const turnInput: TurnInput = {
      v: WORKFLOW_STATE_VERSION,
      sessionId: state.sessionId,
      turnId: childId,
      turnNumber,
      cwd: state.cwd,
      // Sessions started by versions before prompt refs queued the text itself.
      ...(typeof next.req.prompt === 'string' ? { prompt: next.req.prompt } : { promptRef: next.req.prompt }),
      ...(next.req.command ? { command: next.req.command } : {}),
      ...(next.req.promptLine !== undefined ? { promptLine: firstLine(next.req.promptLine) } : {}),
      promptUuid,
      parentUuid: state.leafUuid,
      options: mergeOptions(defaults, next.req.options),
      readFileState: state.readFileState,
      sessionWorkflowId: workflowInfo().workflowId,
      ...(state.workspace !== undefined ? { workspace: state.workspace } : {}),
    };
    busy = true;
    if (workflowInfo().typedSearchAttributes.get(SA.status) !== AGENT_STATUS_RUNNING) {
      setStatusAttributes(AGENT_STATUS_RUNNING, state.totalCostUsd);
    }
    const handle = await startChild(turnWorkflow, {
      workflowId: childId,
      args: [turnInput],
      ...(patched(TURN_METADATA_PATCH) ? turnMetadata(turnInput) : {}),
    });
    currentTurn = childId;
    started.set(next.id, {
      turnWorkflowId: childId,
      turnNumber,
      promptUuid,
      sessionBefore: { costUsd: state.totalCostUsd, costKnown: state.costKnown, modelUsage: state.modelUsage },
    });
    let outcome: TurnOutcome | null = null;
    try {
      outcome = await handle.result();
    } catch {
      outcome = null;
    }
    state = outcome ? applyOutcome(state, outcome, childId) : await afterFailedTurn(state, childId);
    setStatusAttributes(outcome ? outcome.subtype : 'error_during_execution', state.totalCostUsd);
    busy = false;
    currentTurn = null;
    turnsThisRun++;

    if (queue.length === 0 && !ended && (workflowInfo().continueAsNewSuggested || turnsThisRun >= TURNS_PER_RUN)) {
      await condition(allHandlersFinished);
      if (queue.length === 0) {
        await continueAsNew<typeof sessionWorkflow>({ ...input, defaults, state });
      }
    }
  }
  await condition(allHandlersFinished);
  return state;
}

/** Patch id of the turn workflows' summary, details and search attributes. */
const TURN_METADATA_PATCH = 'turn-metadata';

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

function emptyState(input: SessionInput): SessionState {
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

async function stateFromStore(input: SessionInput): Promise<SessionState> {
  const stored = await loadSession(input.sessionId);
  const base = emptyState(input);
  if (!stored.exists) return base;
  const cost = totalCost(stored.modelUsage);
  return {
    ...base,
    leafUuid: stored.leafUuid,
    turnCount: stored.turnCount,
    usage: stored.usage,
    modelUsage: stored.modelUsage,
    totalCostUsd: cost.usd,
    costKnown: cost.known,
  };
}

function applyOutcome(state: SessionState, o: TurnOutcome, turnId: string): SessionState {
  const modelUsage = mergeModelUsage(state.modelUsage, o.modelUsage);
  const cost = totalCost(modelUsage);
  return {
    ...state,
    leafUuid: o.leafUuid,
    turnCount: state.turnCount + 1,
    usage: addUsage(state.usage, o.usage),
    modelUsage,
    totalCostUsd: cost.usd,
    costKnown: cost.known,
    permissionDenials: [...state.permissionDenials, ...o.permissionDenials].slice(-MAX_DENIALS),
    readFileState: capReadFileState(o.readFileState),
    lastTurnWorkflowId: turnId,
    ...(o.workspace !== undefined ? { workspace: o.workspace } : {}),
  };
}

/** Patch id: a failed turn's spend is counted (the session's totals re-read from the store). */
const FAILED_TURN_TOTALS_PATCH = 'failed-turn-totals';

/**
 * A turn that failed as a workflow (a bug, a termination): re-read the leaf and the session's
 * totals from the store, which has the billing of every model call attempt the turn made (as
 * {@link stateFromStore} rebuilds a session), so its spend is not lost.
 */
async function afterFailedTurn(state: SessionState, turnId: string): Promise<SessionState> {
  const stored = await loadSession(state.sessionId);
  const totals = patched(FAILED_TURN_TOTALS_PATCH) ? storedTotals(state, stored) : {};
  return {
    ...state,
    ...totals,
    leafUuid: stored.leafUuid ?? state.leafUuid,
    turnCount: state.turnCount + 1,
    lastTurnWorkflowId: turnId,
  };
}

/**
 * Usage and cost from the store's totals; never below what the session counted (a store that
 * lost lines, or a session whose totals came from elsewhere, keeps its counts).
 */
function storedTotals(
  state: SessionState,
  stored: { usage: SessionState['usage']; modelUsage: SessionState['modelUsage'] },
): Pick<SessionState, 'usage' | 'modelUsage' | 'totalCostUsd' | 'costKnown'> | Record<string, never> {
  const cost = totalCost(stored.modelUsage);
  if (cost.usd < state.totalCostUsd || stored.usage.output_tokens < state.usage.output_tokens) return {};
  return { usage: stored.usage, modelUsage: stored.modelUsage, totalCostUsd: cost.usd, costKnown: cost.known };
}
