import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/types';
import type { CallModelSummary } from '../common/model';
import { ModelErrorType } from '../common/model';
import type { ResultSubtype } from '../common/sdk-messages';
import type { FileReadState, RunToolInput, RunToolSummary, ToolUseSummary } from '../common/tools';
import type { TranscriptEntry } from '../common/transcript';
import type { DenialRecord, TurnCarry, TurnInput, TurnOutcome, TurnProgress } from '../common/turn';
import { addUsage, emptyUsage } from '../common/usage';
import type { Usage } from '../common/usage';
import { addModelUsage, totalCost } from '../engine/cost';
import { applyLimitPatch, checkLimits } from '../engine/limits';
import type { TurnLimits } from '../engine/limits';
import { decidePermission } from '../engine/permissions';
import { edeDiagnostic, isResultSuccessful } from '../engine/success';
import { checkTokenBudget, newTokenBudgetTracker } from '../engine/token-budget';
import { partitionToolUses } from '../engine/tool-batches';
import { capReadFileState } from '../engine/read-file-state';
import { failureTerminalReason, failureText, modelFailureOf } from './failures';
import { interruptSignal, poolStatusSignal, setLimitsSignal, turnProgressQuery } from './messages';
import { PoolMember } from './pool-member';
import { activityTimeouts } from './timeouts';

/** Reason recorded when the turn workflow itself is cancelled. */
const CANCELLED_REASON = 'Interrupted: the turn workflow was cancelled';

/**
 * One `submitMessage` turn: the seeds' `queryLoop`, made durable. Records the prompt, then
 * calls the model and runs the tools it asks for until it stops, a limit is reached, or the turn
 * is interrupted (signal `interrupt` or workflow cancellation, which end the same way: a clean
 * `error_during_execution` result in which every tool_use has a tool_result). History holds only
 * uuids and small summaries; content is in the transcript store.
 *
 * With `options.budgetPoolId` the turn is a member of that budget pool: it joins at start,
 * reports the cost of every model call, waits for the pool's acknowledgement before its next
 * call, stops (`error_max_budget_usd`) once the pool is exhausted, and leaves at the end.
 *
 * Signals: `setLimits`, `interrupt`, `poolStatus`. Query: `progress`.
 * @returns a TurnOutcome; never throws for model or tool errors (they become error results).
 */
export async function turnWorkflow(input: TurnInput): Promise<TurnOutcome> {
  const member = new PoolMember(input.options.budgetPoolId, input.carry);
  const outcome = await runTurn(input, member);
  // Not reached on continue-as-new (runTurn throws): the next run is still a member.
  await member.leave();
  return outcome;
}

async function runTurn(input: TurnInput, member: PoolMember): Promise<TurnOutcome> {
  const { sessionId, turnId, cwd, options } = input;
  const t = activityTimeouts(options.timeouts);
  const { callModel, compactContext } = proxyActivities<Activities>({
    startToCloseTimeout: t.modelStartToCloseMs,
    heartbeatTimeout: t.modelHeartbeatMs,
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '60s',
      maximumAttempts: t.modelMaxAttempts,
      // Non-retryable failures are marked so by the activity (NON_RETRYABLE_MODEL_ERRORS).
    },
  });
  const { runTool, recordTranscript } = proxyActivities<Activities>({
    startToCloseTimeout: t.toolStartToCloseMs,
    heartbeatTimeout: t.toolHeartbeatMs,
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 20 },
  });

  const c = input.carry;
  const startedAt = c?.startedAtMs ?? Date.now();
  let limits: TurnLimits = { ...(c?.limits ?? options.limits) };
  const events: string[] = [...(c?.events ?? [])];
  let leaf: string = c?.leaf ?? input.promptUuid;
  let numTurns = c?.numTurns ?? 0;
  let usage: Usage = c?.usage ?? emptyUsage();
  let modelUsage: TurnOutcome['modelUsage'] = c?.modelUsage ?? {};
  let durationApiMs = c?.durationApiMs ?? 0;
  let stopReason: string | null = c?.stopReason ?? null;
  let lastAssistantUuid: string | null = c?.lastAssistantUuid ?? null;
  let lastMessageType: 'assistant' | 'user' | 'none' = c?.lastMessageType ?? 'none';
  let lastContentTypes: string[] = c?.lastContentTypes ?? [];
  const denials: DenialRecord[] = [...(c?.denials ?? [])];
  const readFileState: Record<string, FileReadState> = { ...(c?.readFileState ?? input.readFileState) };
  let activity = 'starting';
  let interruptReason = null as string | null;
  let budgetTracker = c?.budgetTracker ?? newTokenBudgetTracker();
  let compactions = c?.compactions ?? 0;
  let done = false;
  let stepsThisRun = 0;
  const maxStepsPerRun = options.maxStepsPerRun ?? 200;
  /** Scope of the current step, cancelled by an interrupt. */
  let stepScope: CancellationScope | null = null;

  const cost = (): { usd: number; known: boolean } => totalCost(modelUsage);

  setHandler(turnProgressQuery, (): TurnProgress => ({
    events: [...events],
    done,
    activity,
    numTurns,
    costUsd: cost().usd,
    usage,
    limits,
    budgetPoolId: options.budgetPoolId ?? null,
    pool: member.status,
  }));
  setHandler(setLimitsSignal, (patch) => {
    limits = applyLimitPatch(limits, patch);
  });
  setHandler(interruptSignal, (reason) => {
    interruptReason ??= reason ?? 'Interrupted by user';
    stepScope?.cancel();
  });
  setHandler(poolStatusSignal, (status) => member.onStatus(status));

  const now = (): string => new Date(Date.now()).toISOString();

  /** Runs `fn` in a scope that an interrupt cancels; returns undefined when it was cancelled. */
  async function interruptible<T>(fn: () => Promise<T>): Promise<T | undefined> {
    noteCancellation();
    if (interruptReason) return undefined;
    const scope = new CancellationScope();
    stepScope = scope;
    try {
      return await scope.run(fn);
    } catch (err) {
      if (isCancellation(err)) {
        interruptReason ??= CANCELLED_REASON;
        return undefined;
      }
      throw err;
    } finally {
      stepScope = null;
    }
  }

  /** A cancellation of the workflow seen outside a step counts as an interrupt. */
  function noteCancellation(): void {
    if (!interruptReason && CancellationScope.current().consideredCancelled) interruptReason = CANCELLED_REASON;
  }

  /**
   * The `runTool` input of one call: the permission decided here (scoped Bash rules are decided
   * by the activity), the read-file state of its file, or, with `skipReason`, why it does not run.
   */
  function toolRun(
    use: ToolUseSummary,
    assistantUuid: string,
    resultUuid: string,
    parentUuid: string,
    skipReason?: string,
  ): RunToolInput {
    const base = { sessionId, cwd, assistantUuid, toolUseId: use.id, toolName: use.name, resultUuid, parentUuid };
    if (skipReason !== undefined) return { ...base, permission: { behavior: 'allow' }, readState: null, skipReason };
    return {
      ...base,
      permission: decidePermission(
        {
          mode: options.permissionMode,
          ...(options.allowedTools ? { allowedTools: options.allowedTools } : {}),
          ...(options.disallowedTools ? { disallowedTools: options.disallowedTools } : {}),
        },
        use.name,
        { cwd, ...(use.filePath !== undefined ? { filePath: use.filePath } : {}) },
      ),
      readState: use.filePath !== undefined ? (readFileState[use.filePath] ?? null) : null,
      // A tool the turn did not offer (`--tools`) does not run, as in Claude Code.
      ...(options.tools && !options.tools.includes(use.name)
        ? { skipReason: `Error: No such tool available: ${use.name}` }
        : {}),
    };
  }

  /** Gives every tool_use without a result an is_error result saying why it did not run. */
  async function skipTools(uses: ToolUseSummary[], assistantUuid: string, reason: string): Promise<void> {
    for (const use of uses) {
      const resultUuid = uuid4();
      const summary = await CancellationScope.nonCancellable(() =>
        runTool(toolRun(use, assistantUuid, resultUuid, leaf, reason)),
      );
      events.push(summary.resultUuid);
      leaf = summary.resultUuid;
      lastMessageType = 'user';
    }
  }

  function finish(
    subtype: ResultSubtype,
    terminalReason: string,
    errors: string[],
    apiErrorStatus: number | null = null,
  ): TurnOutcome {
    done = true;
    activity = 'done';
    const c = cost();
    return {
      subtype,
      isError: subtype !== 'success',
      terminalReason,
      numTurns,
      durationMs: Date.now() - startedAt,
      durationApiMs,
      usage,
      modelUsage,
      costUsd: c.usd,
      costKnown: c.known,
      stopReason,
      lastAssistantUuid,
      errors,
      permissionDenials: denials,
      leafUuid: leaf,
      events,
      readFileState: capReadFileState(readFileState),
      apiErrorStatus,
    };
  }

  function interruptedOutcome(terminalReason: string): TurnOutcome {
    return finish('error_during_execution', terminalReason, [`[interrupted] ${interruptReason ?? 'Interrupted'}`]);
  }

  function carry(): TurnCarry {
    return {
      startedAtMs: startedAt,
      limits,
      events,
      leaf,
      numTurns,
      usage,
      modelUsage,
      durationApiMs,
      stopReason,
      lastAssistantUuid,
      lastMessageType,
      lastContentTypes,
      denials,
      readFileState: capReadFileState(readFileState),
      pool: member.status,
      poolSync: member.sync,
      budgetTracker,
      compactions,
      runs: (c?.runs ?? 0) + 1,
    };
  }

  // 1. Record the prompt before the first model call (a crash after this point loses nothing).
  activity = 'recordTranscript';
  const promptEntry: TranscriptEntry = {
    v: 1,
    type: 'user',
    uuid: input.promptUuid,
    parentUuid: input.parentUuid,
    sessionId,
    timestamp: now(),
    message: { role: 'user', content: input.prompt },
    turnId,
    cwd,
  };
  if (!c) await CancellationScope.nonCancellable(() => recordTranscript([promptEntry]));
  if (!c) await member.join();

  // 2. The loop.
  for (;;) {
    noteCancellation();
    if (interruptReason) return interruptedOutcome('aborted_tools');
    if (stepsThisRun >= maxStepsPerRun || workflowInfo().continueAsNewSuggested) {
      // Long turn: start a fresh history, carrying refs and counters only (DESIGN.md rule 3).
      await condition(allHandlersFinished);
      await continueAsNew<typeof turnWorkflow>({ ...input, carry: carry() });
    }
    stepsThisRun++;
    if (member.awaitingAck()) activity = 'waitBudgetPool';
    await member.awaitAck((wait) => interruptible(wait));
    if (interruptReason) return interruptedOutcome('aborted_tools');
    const verdict = checkLimits(limits, {
      modelCalls: numTurns,
      costUsd: cost().usd,
      poolExhausted: member.status?.exhausted ?? false,
      ...(member.status ? { poolLimitUsd: member.status.limitUsd } : {}),
    });
    if (verdict.stop) {
      return finish(
        verdict.subtype,
        verdict.subtype === 'error_max_turns' ? 'max_turns' : 'budget_exhausted',
        verdict.errors,
      );
    }

    const assistantUuid = uuid4();
    activity = 'callModel';
    let summary: CallModelSummary | undefined;
    try {
      summary = await interruptible(() =>
        callModel({
          sessionId,
          cwd,
          assistantUuid,
          parentUuid: leaf,
          model: options.model,
          maxTokens: options.maxTokens,
          ...(options.tools ? { tools: options.tools } : {}),
          ...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
          ...(options.appendSystemPrompt !== undefined ? { appendSystemPrompt: options.appendSystemPrompt } : {}),
        }),
      );
    } catch (err) {
      const failure = modelFailureOf(err);
      if (failure.type === ModelErrorType.PromptTooLong && compactions === 0) {
        compactions++;
        activity = 'compactContext';
        const boundaryUuid = uuid4();
        const summaryUuid = uuid4();
        const compacted = await CancellationScope.nonCancellable(() =>
          compactContext({
            sessionId,
            turnId,
            cwd,
            model: options.model,
            leafUuid: leaf,
            boundaryUuid,
            summaryUuid,
            trigger: 'auto',
          }),
        );
        if (compacted.costUsd !== null || compacted.usage.input_tokens > 0) {
          modelUsage = addModelUsage(modelUsage, compacted.model, compacted.usage, compacted.costUsd, {
            contextWindow: 200_000,
            maxOutputTokens: options.maxTokens,
          });
          usage = addUsage(usage, compacted.usage);
        }
        events.push(boundaryUuid, summaryUuid);
        leaf = summaryUuid;
        lastMessageType = 'user';
        continue;
      }
      const diag = edeDiagnostic({ lastMessageType, lastContentTypes, stopReason });
      return finish(
        'error_during_execution',
        failureTerminalReason(failure),
        [diag, failureText(failure)],
        failure.status,
      );
    }
    if (!summary) return interruptedOutcome('aborted_streaming');

    numTurns++;
    usage = addUsage(usage, summary.usage);
    modelUsage = addModelUsage(modelUsage, summary.model, summary.usage, summary.costUsd, {
      contextWindow: summary.contextWindow,
      maxOutputTokens: summary.maxOutputTokens,
    });
    durationApiMs += summary.durationMs;
    stopReason = summary.stopReason;
    lastAssistantUuid = assistantUuid;
    lastMessageType = 'assistant';
    lastContentTypes = summary.contentTypes;
    events.push(assistantUuid);
    leaf = assistantUuid;
    if (summary.costUsd !== null) await member.reportSpend(summary.costUsd);

    if (summary.toolUses.length > 0) {
      // Budget and pool are checked right after the call: tools of a call past the budget do not run.
      const afterCall = checkLimits(
        { ...(limits.maxBudgetUsd !== undefined ? { maxBudgetUsd: limits.maxBudgetUsd } : {}) },
        {
          modelCalls: numTurns,
          costUsd: cost().usd,
          poolExhausted: member.status?.exhausted ?? false,
          ...(member.status ? { poolLimitUsd: member.status.limitUsd } : {}),
        },
      );
      if (afterCall.stop) {
        await skipTools(summary.toolUses, assistantUuid, 'Not run: the turn stopped because its budget was reached.');
        return finish(afterCall.subtype, 'budget_exhausted', afterCall.errors);
      }
      const pendingUses = [...summary.toolUses];
      for (const batch of partitionToolUses(summary.toolUses)) {
        if (interruptReason) break;
        activity = `runTool ${batch.map((u) => u.name).join(',')}`;
        const planned = batch.map((use) => {
          const resultUuid = uuid4();
          const parentUuid = leaf;
          leaf = resultUuid;
          return { use, resultUuid, parentUuid };
        });
        const assistant = assistantUuid;
        const results = await interruptible(() =>
          Promise.all(
            planned.map(({ use, resultUuid, parentUuid }) => runTool(toolRun(use, assistant, resultUuid, parentUuid))),
          ),
        );
        if (!results) {
          // Interrupted mid-batch. Calls of the batch that finished wrote their results with the
          // planned uuid and parent; each other one gets an interrupt note under *its* planned uuid
          // and parent, so the chain prompt → … → last planned result stays whole whatever order the
          // calls finished in. (A cancelled call that still finishes later finds its uuid taken.)
          const note = `Interrupted: ${interruptReason ?? 'the turn was interrupted'}. The tool may not have finished.`;
          for (const { use, resultUuid, parentUuid } of planned) {
            const r = await CancellationScope.nonCancellable(() =>
              runTool(toolRun(use, assistant, resultUuid, parentUuid, note)),
            );
            applyToolResult(r, pendingUses);
          }
          leaf = planned[planned.length - 1]?.resultUuid ?? leaf;
          break;
        }
        for (const r of results) applyToolResult(r, pendingUses);
      }
      if (interruptReason) {
        if (pendingUses.length) await skipTools(pendingUses, assistantUuid, `Interrupted: ${interruptReason}`);
        return interruptedOutcome('aborted_tools');
      }
      continue;
    }

    if (summary.stopReason === 'pause_turn') continue;
    if (summary.stopReason === 'end_turn' && limits.taskBudget !== undefined) {
      const decision = checkTokenBudget(budgetTracker, limits.taskBudget, usage.output_tokens);
      if (decision.action === 'continue') {
        budgetTracker = decision.tracker;
        const nudgeUuid = uuid4();
        activity = 'recordTranscript';
        await CancellationScope.nonCancellable(() =>
          recordTranscript([
            {
              v: 1,
              type: 'user',
              uuid: nudgeUuid,
              parentUuid: leaf,
              sessionId,
              timestamp: now(),
              message: { role: 'user', content: decision.nudge },
              turnId,
              isMeta: true,
            },
          ]),
        );
        events.push(nudgeUuid);
        leaf = nudgeUuid;
        lastMessageType = 'user';
        continue;
      }
    }
    break;
  }

  const success = { lastMessageType, lastContentTypes, stopReason };
  if (isResultSuccessful(success)) return finish('success', 'completed', []);
  return finish('error_during_execution', 'model_error', [edeDiagnostic(success)]);

  function applyToolResult(r: RunToolSummary, pending: ToolUseSummary[]): void {
    events.push(r.resultUuid);
    lastMessageType = 'user';
    const idx = pending.findIndex((u) => u.id === r.toolUseId);
    const use = idx >= 0 ? pending.splice(idx, 1)[0] : undefined;
    if (r.fileState) {
      delete readFileState[r.fileState.path];
      readFileState[r.fileState.path] = r.fileState.state;
    }
    if (r.outcome === 'denied' && use) {
      denials.push({ tool_name: use.name, tool_use_id: use.id, tool_input: r.deniedInput ?? {} });
    }
  }
}
