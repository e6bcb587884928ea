import { contextWindowOf } from '../common/model-limits';
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import { SA } from '../common/search-attributes';
import { modelCallLabel } from '../common/summary';
import { summarized } from './activity-summary';
import type { CallModelInput, CallModelSummary } from '../common/model';
import { ModelErrorType } from '../common/model';
import { STRUCTURED_OUTPUT_NUDGE } from '../common/structured-output';
import type { TranscriptEntry } from '../common/transcript';
import type { ContentRef } from '../common/content-ref';
import type { TurnInput, TurnOutcome, TurnProgress } from '../common/turn';
import { TRANSCRIPT_SCHEMA_VERSION } from '../common/version';
import { stopHookCapMessage } from '../common/hooks';
import { applyLimitPatch, checkLimits } from '../engine/limits';
import { edeDiagnostic, isResultSuccessful } from '../engine/success';
import { checkTokenBudget } from '../engine/token-budget';
import type { PromptCommand, RunnerCommand } from '../common/prompt-command';
import { isRunnerCommand, promptCommandOf } from '../common/prompt-command';
import { LOCAL_COMMAND_RESULT } from '../common/commands';
import { decidePermission, turnPolicy } from '../engine/permissions';
import { REFUSAL_NOTE, afterRefusal, refusalNotice, refusedAgainError } from '../engine/refusal';
import { autoCompactThreshold, shouldAutoCompact, taskBudgetTokens } from '../engine/compaction';
import { fallbackFor, fallbackNotice, OVERLOADED_ATTEMPTS_BEFORE_FALLBACK } from '../engine/model-fallback';
import {
  MAX_OUTPUT_TOKENS_RECOVERIES,
  OUTPUT_LIMIT_NUDGE,
  outputLimitError,
  resumesAfterCut,
} from '../engine/output-recovery';
import { afterTextAnswer, exhausted, retriesError } from '../engine/structured-output';
import { failureTerminalReason, failureText, modelFailureOf } from './failures';
import type { ModelFailure } from './failures';
import { Approvals } from './approvals';
import { HookRuns } from './hook-runs';
import type { HookStop } from './hook-runs';
import { Interrupts, uninterruptible } from './interrupts';
import {
  agentMessageSignal,
  interruptSignal,
  poolStatusSignal,
  setLimitsSignal,
  turnProgressQuery,
  turnSpendQuery,
} from './messages';
import { agentResultFailure } from '../common/agent-result';
import { PoolMember } from './pool-member';
import { RateMember, ratePriorityOf } from './rate-member';
import { rateLeaseSignal } from './rate-pool-messages';
import { ToolRuns } from './tool-runs';
import { TaskTools, agentListingInput, modelToolNames } from './task-tools';
import { turnActivities } from './turn-activities';
import type { TurnActivities } from './turn-activities';
import { TurnState } from './turn-state';
import { WorkspaceFollower, WorkspaceStop } from './workspace';
import { isPatched } from './patches';
import { BatchCalls } from './batch-calls';
import type { BatchApiReport } from '../common/batch';
import { tellSessionFinished, withOrigin } from './agent-turn';

/** Model calls per workflow run before a long turn continues as new. */
const DEFAULT_MAX_STEPS_PER_RUN = 200;

/** What one model call step came to. */
type ModelStep =
  | { kind: 'response'; assistantUuid: string; call: CallModelSummary }
  /** Call again: the context was compacted after the API refused it as too long, or the model was switched. */
  | { kind: 'retry' }
  | { kind: 'stop'; outcome: TurnOutcome };

/** `terminal_reason` of a turn whose structured-output attempts ran out. */
const STRUCTURED_OUTPUT_EXHAUSTED = 'structured_output_retry_exhausted';

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
 * @returns a TurnOutcome for a success; an error result (model or tool errors, limits, an
 *   interrupt) fails the workflow with an `AgentResult.<subtype>` failure whose details hold the
 *   TurnOutcome (`resultOfFailure` reads it), so that the Web UI shows the turn as Failed.
 */
export async function turnWorkflow(input: TurnInput): Promise<TurnOutcome> {
  const turn = new Turn(input);
  const ran = await turn.run();
  const outcome = withOrigin(input, turn.batchReport ? { ...ran, batchApi: turn.batchReport } : ran, turn.state);
  // Not reached on continue-as-new (run() throws it): the next run is still a member.
  await turn.member.leave();
  await turn.rate.leave();
  turn.finish(outcome);
  // A background agent tells its session of its end (a foreground one's caller does).
  if (input.agent?.background) await tellSessionFinished(input, outcome);
  // An error result fails the workflow (the Web UI lists it as Failed), carrying the outcome.
  if (outcome.isError && isPatched('errorResultFailsTurn')) {
    throw agentResultFailure(outcome.subtype, outcome.errors, outcome);
  }
  return outcome;
}

/**
 * A running turn: its state (one object, carried through continue-as-new), its budget pool
 * membership, its interrupts, and one method per step of the loop.
 */
class Turn {
  readonly state: TurnState;
  readonly member: PoolMember;
  /** Its rate pool membership (`options.ratePoolId`; inert without). */
  readonly rate: RateMember;
  private readonly interrupts = new Interrupts();
  private readonly acts: TurnActivities;
  private readonly tools: ToolRuns;
  private readonly hooks: HookRuns;
  private readonly approvals: Approvals;
  private readonly workspace: WorkspaceFollower;
  private stepsThisRun = 0;
  /** What the last model call came to (`model call 3 → tool_use Edit`), for the Web UI. */
  private lastCall: string | null = null;
  /** `--batch-api`: model calls go through Message Batches (only inputs with the option: no patch needed). */
  private readonly batches: BatchCalls | undefined;

  /** What `--batch-api` calls came to (absent without the option). */
  get batchReport(): BatchApiReport | undefined {
    return this.batches?.report;
  }

  constructor(private readonly input: TurnInput) {
    this.state = new TurnState(input);
    this.state.onActivity = () => this.updateDetails();
    this.member = new PoolMember(input.options.budgetPoolId, input.carry);
    this.rate = new RateMember(input.options, input.carry?.rateSync);
    this.acts = turnActivities(input.options.timeouts, ratePriorityOf(input.options));
    this.workspace = new WorkspaceFollower(input.sessionId, input.cwd, input.options.timeouts, this.state.data);
    this.hooks = new HookRuns(input, this.state, this.acts, this.workspace);
    this.approvals = new Approvals(input, this.interrupts);
    this.tools = new ToolRuns(
      input,
      this.state,
      this.acts,
      this.interrupts,
      this.workspace,
      this.hooks,
      this.approvals,
      // Subagents: only for inputs that carry `options.subagents` (the client sets it; older
      // histories never have it, so they replay without the task tools and need no patch).
      input.options.subagents ? new TaskTools(input, this.state, this.acts, this.workspace) : undefined,
    );
    this.batches = input.options.batchApi
      ? new BatchCalls(input.options.batchApi, input.options.timeouts?.modelMaxAttempts ?? 3)
      : undefined;
    setHandler(turnProgressQuery, () => this.progress());
    setHandler(turnSpendQuery, () => this.state.spend());
    setHandler(setLimitsSignal, (patch) => {
      this.state.data.limits = applyLimitPatch(this.state.data.limits, patch);
    });
    setHandler(interruptSignal, (reason) => this.interrupts.interrupt(reason));
    setHandler(poolStatusSignal, (status) => this.member.onStatus(status));
    // Only turns of a rate pool (an option older histories never have: no patch needed).
    if (input.options.ratePoolId !== undefined) setHandler(rateLeaseSignal, (grant) => this.rate.onGrant(grant));
    // A subagent's turn takes `SendMessage`s while it runs: each joins its next model call.
    if (input.agent) setHandler(agentMessageSignal, (m) => void this.agentMessages.push(m.ref));
  }

  /** Messages sent to this subagent (SendMessage) not yet written to its conversation. */
  private readonly agentMessages: ContentRef[] = [];

  /** Writes the messages sent to this subagent as user lines at the end of its chain. */
  private async deliverAgentMessages(): Promise<void> {
    const { input } = this;
    for (const ref of this.agentMessages.splice(0)) {
      const uuid = uuid4();
      this.state.activity = 'recordTranscript';
      const line = {
        sessionId: input.sessionId,
        uuid,
        parentUuid: this.state.leaf,
        turnId: input.turnId,
        cwd: input.cwd,
        timestamp: this.now(),
        prompt: ref,
        delivered: true as const,
      };
      await uninterruptible(() => this.acts.recordPrompt(line));
      this.state.appendLine(uuid, 'user');
    }
  }

  /**
   * The loop: prepare the context (limits, compaction), call the model, run the tools it asks
   * for, decide whether to go on. A `/compact` or `/clear` prompt runs its command instead.
   */
  async run(): Promise<TurnOutcome> {
    if (!this.input.carry) {
      const failed = (await this.start()) ?? (await this.connectMcp());
      if (failed) return failed;
      const hookStop = await this.hooks.atTurnStart();
      if (hookStop) return this.hookStopOutcome(hookStop);
    }
    // A prompt by ref comes with its command; a turn of an older version parses its own prompt.
    const command = this.input.promptRef ? (this.input.command ?? null) : promptCommandOf(this.input.prompt ?? '');
    if (command && isRunnerCommand(command)) return this.runCommand(command);
    // A custom command or skill is expanded once, before the first model call.
    if (command && !this.input.carry) {
      const answered = await this.prepareCommand(command);
      if (answered) return answered;
    }
    for (;;) {
      const stop = await this.beforeModelCall();
      if (stop) return stop;
      const step = await this.callModel();
      if (step.kind === 'stop') return step.outcome;
      if (step.kind === 'retry') continue;
      if (step.call.toolUses.length > 0) {
        const stopped = await this.runTools(step.assistantUuid, step.call);
        if (stopped) return stopped;
        continue;
      }
      const end = await this.afterAnswer(step.call);
      if (end) return end;
    }
  }

  /**
   * Records the prompt before the first model call (a crash after this loses nothing), loads a
   * new session's context, then joins the pool. Returns the outcome when the turn cannot start.
   */
  private async start(): Promise<TurnOutcome | null> {
    const { input } = this;
    await this.recordFirstLine();
    let contextLoaded = false;
    if (isPatched('workspace')) {
      // Where the working tree is: recorded (origin, base, first snapshot) on its host, or
      // re-materialized on a live worker when the previous turn's host is gone.
      this.state.activity = 'prepareWorkspace';
      if (
        input.parentUuid === null &&
        !input.options.bare &&
        isPatched('parallelSessionSetup') &&
        isPatched('sessionContext')
      ) {
        const failed = await this.prepareWithContext(input.promptUuid);
        if (failed) return failed;
        contextLoaded = true;
      } else {
        await uninterruptible(() => this.workspace.prepare());
      }
    }
    // Histories from before the session context replay without the step (patched marker).
    // `--bare` sessions have no context (no memory files, git status or environment).
    if (!contextLoaded && input.parentUuid === null && !input.options.bare && isPatched('sessionContext')) {
      const failed = await this.loadContext(input.promptUuid);
      if (failed) return failed;
    }
    await this.member.join();
    return null;
  }

  /** Writes the turn's first line: its prompt, or the task notification that started it. */
  private async recordFirstLine(): Promise<void> {
    const { input } = this;
    this.state.startActivity('recordTranscript', 'record the prompt');
    const { promptRef } = input;
    if (promptRef && input.notification) {
      // A finished task's notification starts this turn: its stored text is the first line.
      const n = input.notification;
      await uninterruptible(() =>
        this.acts.recordNotification({
          sessionId: input.sessionId,
          uuid: input.promptUuid,
          parentUuid: input.parentUuid,
          turnId: input.turnId,
          timestamp: this.now(),
          ref: promptRef,
          taskId: n.taskId,
          runId: n.runId,
          startsTurn: true,
        }),
      );
    } else if (input.agent?.promptWritten) {
      // A fork's first line (the parent's call answered, its directive) was written by planAgent.
    } else if (promptRef) {
      // The prompt travels by reference: history holds its ref, never its text.
      const line = {
        sessionId: input.sessionId,
        uuid: input.promptUuid,
        parentUuid: input.parentUuid,
        turnId: input.turnId,
        cwd: input.cwd,
        timestamp: this.now(),
        prompt: promptRef,
      };
      await uninterruptible(() =>
        this.viaLocal('transcript: prompt', this.acts.local.recordPrompt, this.acts.recordPrompt, line),
      );
    } else {
      // A turn started by a version that passed the prompt itself (replayed as it ran).
      await uninterruptible(() =>
        this.acts.recordTranscript([
          {
            v: TRANSCRIPT_SCHEMA_VERSION,
            type: 'user',
            uuid: input.promptUuid,
            parentUuid: input.parentUuid,
            sessionId: input.sessionId,
            timestamp: this.now(),
            message: { role: 'user', content: input.prompt ?? '' },
            turnId: input.turnId,
            cwd: input.cwd,
          },
        ]),
      );
    }
  }

  /**
   * A new session's first turn: the workspace is prepared and the context loaded at once (each
   * runs about a dozen git commands). The context is read in the client's directory, where the
   * workspace of a first turn is (recorded in place); in the rare case that it is not (the
   * session's origin was recorded by an earlier run and its host is gone, so the tree was
   * re-materialized elsewhere), the context is loaded again there, and the first line stays
   * off the chain.
   */
  private async prepareWithContext(promptUuid: string): Promise<TurnOutcome | null> {
    const cwd = this.workspace.cwd;
    const [, failed] = await Promise.all([
      uninterruptible(() => this.workspace.prepare()),
      this.loadContext(promptUuid),
    ]);
    if (failed || this.workspace.cwd === cwd) return failed;
    return this.loadContext(promptUuid);
  }

  /**
   * A new session's context (memory files, git status, environment), read on the worker and
   * stored as one line after the prompt. A memory import cycle ends the turn with a setup error.
   * A session's first turn loads it after its prompt, and `/clear` at the start of the fresh
   * chain (memory files are read again, as Claude Code does after `/clear`).
   */
  private async loadContext(parentUuid: string): Promise<TurnOutcome | null> {
    const { sessionId, options } = this.input;
    this.state.activity = 'loadContext';
    const uuid = uuid4();
    try {
      const loaded = await uninterruptible(() =>
        summarized(this.acts.loadContext, 'load the session context (memory files, git status)', {
          sessionId,
          cwd: this.workspace.cwd,
          uuid,
          parentUuid,
          model: options.model,
          gitStatus: options.systemPromptKey === undefined,
          ...(options.settingSources ? { settingSources: options.settingSources } : {}),
          ...(options.userMemoryKey !== undefined ? { userMemoryKey: options.userMemoryKey } : {}),
          ...(options.definitionsKey !== undefined ? { definitionsKey: options.definitionsKey } : {}),
          ...(options.permissionMode === 'plan' ? { planMode: true } : {}),
        }),
      );
      this.state.recordContext(loaded.uuid);
      return null;
    } catch (err) {
      const f = modelFailureOf(err);
      return this.state.outcome('error_during_execution', 'turn_setup_failed', [`${f.message} (${f.type})`]);
    }
  }

  /**
   * Starts the turn's MCP servers (`--mcp-config`) on a worker and keeps the ref of their stored
   * tool list. A server that does not start ends the turn before any model call
   * (`turn_setup_failed`), its own stderr in the errors.
   */
  private async connectMcp(): Promise<TurnOutcome | null> {
    const { sessionId, options } = this.input;
    const configRef = options.mcp?.configRef;
    if (configRef === undefined) return null;
    this.state.activity = 'connectMcpServers';
    const mcp = await uninterruptible(() =>
      this.workspace.onWorkspaceHost((acts, cwd) => acts.connectMcpServers({ sessionId, cwd, configRef }), this.acts),
    );
    this.state.data.mcp = { toolsRef: mcp.toolsRef, servers: mcp.servers };
    if (mcp.failures.length === 0) return null;
    return this.state.outcome(
      'error_during_execution',
      'turn_setup_failed',
      mcp.failures.map((f) => f.error),
    );
  }

  /**
   * Before each model call: stop on an interrupt, continue as new when the history is long, wait
   * for the budget pool to count the last call, then check the limits. Returns the outcome when
   * the turn must stop.
   */
  private async beforeModelCall(): Promise<TurnOutcome | null> {
    if (this.interrupts.requested()) return this.interrupted('aborted_tools');
    const maxSteps = this.input.options.maxStepsPerRun ?? DEFAULT_MAX_STEPS_PER_RUN;
    if (this.stepsThisRun >= maxSteps || workflowInfo().continueAsNewSuggested) {
      // Long turn: start a fresh history, carrying refs and counters only (DESIGN.md rule 3).
      await condition(allHandlersFinished);
      const carry = this.state.carry(this.member);
      await continueAsNew<typeof turnWorkflow>({
        ...this.input,
        carry: this.rate.active ? { ...carry, rateSync: this.rate.sync } : carry,
      });
    }
    this.stepsThisRun++;
    if (this.member.awaitingAck()) {
      // Only in a budget pool (no await otherwise: every promise costs the workflow thread a stack trace).
      this.state.activity = 'waitBudgetPool';
      await this.member.awaitAck((wait) => this.interrupts.run(wait));
      if (this.interrupts.requested()) return this.interrupted('aborted_tools');
    }
    const verdict = checkLimits(this.state.data.limits, this.state.limitState(this.member));
    if (verdict.stop) {
      const reason = verdict.subtype === 'error_max_turns' ? 'max_turns' : 'budget_exhausted';
      return this.state.outcome(verdict.subtype, reason, verdict.errors);
    }
    // The seeds' auto-compact: the last call's context has reached the threshold of the window.
    const d = this.state.data;
    const last = d.lastContext;
    if (last && shouldAutoCompact(last.tokens, last.window, this.input.options.compaction)) {
      // A compaction right before this call did not bring it under the threshold: compacting
      // again and again would cost a summary call per step and gain nothing.
      if (last.afterCompaction && isPatched('noRepeatedAutoCompact')) d.autoCompactIneffective = true;
      if (!d.autoCompactIneffective) await this.compact('auto');
    }
    if (this.agentMessages.length > 0) await this.deliverAgentMessages();
    // Last, right before the call: the lease is for this call (Message Batches are not leased).
    if (this.rate.active && !this.batches) {
      this.state.activity = 'waitRatePool';
      await this.rate.lease((wait) => this.interrupts.run(wait));
      if (this.interrupts.requested()) return this.interrupted('aborted_tools');
    }
    return null;
  }

  /** One model call (streamed by the `callModel` activity, which writes the assistant line). */
  private async callModel(): Promise<ModelStep> {
    const { sessionId, options } = this.input;
    const cwd = this.workspace.cwd;
    const assistantUuid = uuid4();
    const n = this.state.data.numTurns + 1;
    this.state.startActivity('callModel', `model call ${n}`);
    this.state.modelCall = assistantUuid;
    const model = this.state.model;
    // With a fallback left, overloaded answers fail the call early so that the turn can switch.
    const canFallBack = fallbackFor(ModelErrorType.Overloaded, model, options) !== null;
    const tools = modelToolNames(options);
    const last = this.state.data.lastContext;
    const thresholdTokens = last ? autoCompactThreshold(last.window, options.compaction) : undefined;
    let call: CallModelSummary | undefined;
    try {
      const callInput: CallModelInput = {
        ...(this.rate.active && !this.batches ? { rateLimited: true as const } : {}),
        sessionId,
        cwd,
        assistantUuid,
        parentUuid: this.state.leaf,
        model,
        maxTokens: options.maxTokens,
        ...(options.thinking ? { thinking: options.thinking } : {}),
        ...(tools ? { tools } : {}),
        ...(options.ownToolList ? { ownToolList: true as const } : {}),
        ...(options.systemPromptKey !== undefined ? { systemPromptKey: options.systemPromptKey } : {}),
        ...(options.appendSystemPromptKey !== undefined
          ? { appendSystemPromptKey: options.appendSystemPromptKey }
          : {}),
        ...(options.includePartialMessages ? { streamEvents: true } : {}),
        ...(options.jsonSchemaKey !== undefined ? { jsonSchemaKey: options.jsonSchemaKey } : {}),
        ...(canFallBack ? { overloadedAttemptsBeforeFallback: OVERLOADED_ATTEMPTS_BEFORE_FALLBACK } : {}),
        ...(this.state.data.mcp ? { mcpToolsRef: this.state.data.mcp.toolsRef } : {}),
        ...(options.definitionsKey !== undefined ? { definitionsKey: options.definitionsKey } : {}),
        ...(options.toolSearch !== undefined ? { toolSearch: options.toolSearch } : {}),
        ...(options.subagents?.backgroundTasks === false ? { backgroundTasks: false as const } : {}),
        ...(options.compaction?.microcompact ? { microcompact: options.compaction.microcompact } : {}),
        ...(options.compaction?.toolResultBudget ? { toolResultBudget: options.compaction.toolResultBudget } : {}),
        ...(options.compaction?.snip ? { snip: options.compaction.snip } : {}),
        ...(options.compaction?.collapse ? { collapse: options.compaction.collapse } : {}),
        ...(last && thresholdTokens !== undefined
          ? { autoCompact: { lastContextTokens: last.tokens, thresholdTokens } }
          : {}),
        ...agentListingInput(options),
        ...this.workspace.forModelCall(),
      };
      call = await this.interrupts.run(async () => {
        // With --batch-api the response is written by the batch; callModel then returns its line's summary.
        const batched = this.batches ? await this.batches.call(callInput) : undefined;
        const summary = await summarized(this.acts.callModel, `model call ${n}`, callInput);
        if (batched?.kind === 'stored') this.batches?.saved(summary.costUsd);
        return summary;
      });
    } catch (err) {
      return this.afterFailedCall(modelFailureOf(err));
    } finally {
      this.state.modelCall = null;
    }
    if (!call) return { kind: 'stop', outcome: this.interrupted('aborted_streaming') };
    this.state.recordModelCall(assistantUuid, call);
    this.rate.called(call);
    this.lastCall = modelCallLabel(
      n,
      call.toolUses.map((u) => u.name),
      call.stopReason,
    );
    this.updateDetails();
    if (call.costUsd !== null && this.member.poolId !== undefined) await this.member.reportSpend(call.costUsd);
    return { kind: 'response', assistantUuid, call };
  }

  /**
   * A model call failed after its retries. Repeated overloaded answers switch to the fallback
   * model; a prompt the API refused as too long is compacted (again and again in a long turn,
   * but not twice in a row: a compaction that did not make the prompt fit ends the turn).
   */
  private async afterFailedCall(failure: ModelFailure): Promise<ModelStep> {
    // Responses that began before the call failed were billed: count them.
    if (failure.billed) {
      const { model, usage, costUsd } = failure.billed;
      this.state.addSpend(model, usage, costUsd, {
        contextWindow: contextWindowOf(model),
        maxOutputTokens: this.input.options.maxTokens,
      });
      if (costUsd !== null) await this.member.reportSpend(costUsd);
    }
    // A 429 of a leased call: the pool hears of it with the next lease request, then the call again.
    if (failure.type === ModelErrorType.RateLimit && this.rate.throttled(failure.rate)) return { kind: 'retry' };
    const fallback = fallbackFor(failure.type, this.state.model, this.input.options);
    if (fallback !== null) {
      await this.switchModel(fallback);
      return { kind: 'retry' };
    }
    // A prompt too long by itself is an error result: compacting the conversation cannot fix it.
    if (
      failure.type === ModelErrorType.PromptTooLong &&
      !failure.promptOverLimit &&
      !this.state.data.compactedSinceCall
    ) {
      await this.compact('auto');
      return { kind: 'retry' };
    }
    const outcome = this.state.outcome(
      'error_during_execution',
      failureTerminalReason(failure),
      [edeDiagnostic(this.state.successInput()), failureText(failure)],
      failure.status,
    );
    return { kind: 'stop', outcome };
  }

  /**
   * Summarizes the context: a summary line, the most recent messages kept verbatim, and the
   * compact boundary (written last). The chain goes on from the last kept message. Uncancellable,
   * and idempotent by its uuids: a crash mid-way neither loses the conversation nor compacts twice.
   */
  private async compact(trigger: 'auto' | 'manual', instructionsUuid?: string): Promise<void> {
    const { sessionId, turnId, options } = this.input;
    const cwd = this.workspace.cwd;
    await this.hooks.preCompact(trigger);
    this.state.startActivity('compactContext', `compact the context (${trigger})`);
    const preserveTokens = options.compaction?.preserveTokens;
    const compacted = await uninterruptible(() =>
      summarized(this.acts.compactContext, `compact the context (${trigger})`, {
        sessionId,
        turnId,
        cwd,
        model: this.state.model,
        leafUuid: this.state.leaf,
        boundaryUuid: uuid4(),
        summaryUuid: uuid4(),
        trigger,
        ...(instructionsUuid !== undefined ? { instructionsUuid } : {}),
        ...(preserveTokens !== undefined ? { preserveTokens } : {}),
      }),
    );
    if (compacted.costUsd !== null || compacted.usage.input_tokens > 0) {
      this.state.addSpend(compacted.model, compacted.usage, compacted.costUsd, {
        contextWindow: contextWindowOf(compacted.model),
        maxOutputTokens: options.maxTokens,
      });
    }
    this.state.recordCompaction(compacted);
  }

  /**
   * `/compact [instructions]` summarizes the conversation before the command now; `/clear` starts
   * a fresh one. Neither asks the model anything else (the seeds' `shouldQuery: false`).
   */
  private async runCommand(command: RunnerCommand): Promise<TurnOutcome> {
    const { parentUuid, promptUuid } = this.input;
    if (command.name === 'clear') {
      await this.recordSystemLine(
        { subtype: 'compact_boundary', compactMetadata: { trigger: 'manual', pre_tokens: 0 }, clearedContext: true },
        false,
      );
      // The fresh chain starts with the session's context (memory, git status, environment).
      const failed = this.input.options.bare ? null : await this.loadContext(this.state.leaf);
      return failed ?? this.state.outcome('success', 'completed', []);
    }
    if (parentUuid === null)
      return this.state.outcome('error_during_execution', 'completed', ['Not enough messages to compact.']);
    this.state.setLeaf(parentUuid);
    await this.compact('manual', command.withInstructions ? promptUuid : undefined);
    return this.state.outcome('success', 'completed', []);
  }

  /**
   * A typed custom command or skill (`/fix-ci src/math.js`), or a `/name` the session has none
   * of: the `prepareCommand` activity writes what the model gets instead of the prompt's text (the
   * expanded body, after its `!` shell lines ran under the permission rules and its `@` files
   * were read) on the workspace's host. A `!` line that is refused or fails ends the turn before
   * any model call, with its error as the answer (Claude Code's `local_command` result).
   * Returns that outcome, or null when the model is to be called.
   */
  private async prepareCommand(command: Exclude<PromptCommand, RunnerCommand>): Promise<TurnOutcome | null> {
    const { sessionId, options, promptUuid } = this.input;
    const label = `/${command.command}`;
    this.state.startActivity('prepareCommand', label);
    const input = {
      sessionId,
      promptUuid,
      parentUuid: this.state.leaf,
      uuid: uuid4(),
      answerUuid: uuid4(),
      kind: command.name,
      ...(options.definitionsKey !== undefined ? { definitionsKey: options.definitionsKey } : {}),
      // `!` lines are decided as Bash calls of this turn (the command's allowed-tools are among its rules).
      shellPermission: decidePermission(
        turnPolicy(this.state.permissionOptions(options), this.state.skillRules),
        'Bash',
      ),
      ...(options.settingsEnv ? { settingsEnv: options.settingsEnv } : {}),
    };
    const summary = await uninterruptible(() =>
      this.workspace.onWorkspaceHost(
        (acts, cwd) => summarized(acts.prepareCommand, `expand ${label}`, { ...input, cwd }),
        this.acts,
      ),
    );
    // What the model gets for the command is not streamed (Claude Code shows only the answer).
    if (summary.uuid !== undefined) this.state.setLeaf(summary.uuid);
    if (summary.outcome !== 'answered' || summary.answerUuid === undefined) return null;
    this.state.recordCommandAnswer(summary.answerUuid);
    return {
      ...this.state.outcome('success', 'completed', []),
      answeredWithoutModel: true,
      ...(summary.localCommand ? { localCommand: LOCAL_COMMAND_RESULT } : {}),
    };
  }

  /** Repeated overloaded answers: the turn goes on with the fallback model, and the stream says so. */
  private async switchModel(to: string): Promise<void> {
    const from = this.state.model;
    this.state.switchModel(to);
    await this.recordSystemLine({
      subtype: 'model_fallback',
      trigger: 'overloaded',
      originalModel: from,
      fallbackModel: to,
      content: fallbackNotice(from, to),
    });
  }

  /**
   * Writes a `system` line at the end of the chain (the model does not see it). Streamed unless
   * `stream` is false (the boundary of a `/clear`, which the caller learns of from the result).
   */
  private async recordSystemLine(fields: Record<string, unknown>, stream = true): Promise<void> {
    const { sessionId, turnId } = this.input;
    const uuid = uuid4();
    const entry = {
      v: TRANSCRIPT_SCHEMA_VERSION,
      type: 'system',
      uuid,
      parentUuid: this.state.leaf,
      sessionId,
      timestamp: this.now(),
      turnId,
      ...fields,
    } as TranscriptEntry;
    this.state.activity = 'recordTranscript';
    await uninterruptible(() => this.record(`transcript: ${String(fields['subtype'] ?? 'system')} line`, [entry]));
    if (stream) this.state.appendLine(uuid, 'system');
    else this.state.setLeaf(uuid);
  }

  /**
   * Runs the tools of one response. The budget is checked again first: the tools of a call that
   * crossed it do not run (each gets a result saying so). Returns the outcome when the turn stops.
   */
  private async runTools(assistantUuid: string, call: CallModelSummary): Promise<TurnOutcome | null> {
    if (call.toolUses.length > 0 && this.member.awaitingAck() && isPatched('poolAckBeforeTools')) {
      // The pool learns of this call's spend first: if it crossed the pool's limit, the pool
      // answers "exhausted" and the tools below do not run (docs/limits.md). Milliseconds, once per step.
      this.state.activity = 'waitBudgetPool';
      await this.member.awaitAck((wait) => this.interrupts.run(wait));
      if (this.interrupts.requested()) {
        await this.tools.skipAll(assistantUuid, call.toolUses, `Interrupted: ${this.interrupts.reason}`);
        return this.interrupted('aborted_tools');
      }
    }
    const { maxBudgetUsd } = this.state.data.limits;
    const afterCall = checkLimits(
      maxBudgetUsd !== undefined ? { maxBudgetUsd } : {},
      this.state.limitState(this.member),
    );
    if (afterCall.stop) {
      await this.tools.skipAll(
        assistantUuid,
        call.toolUses,
        'Not run: the turn stopped because its budget was reached.',
      );
      return this.state.outcome(afterCall.subtype, 'budget_exhausted', afterCall.errors);
    }
    let finished: boolean;
    const spentBefore = this.state.cost().usd;
    try {
      finished = await this.tools.runAll(assistantUuid, call.toolUses);
    } catch (err) {
      if (!(err instanceof WorkspaceStop)) throw err;
      // The working tree could not be recorded: stop before anything else changes it.
      return this.state.outcome('error_during_execution', err.terminalReason, [err.message]);
    }
    // Tools that called the model (WebSearch, WebFetch) spent from the pool too. (Histories
    // recorded before such tools have no tool spend: nothing is sent, so they replay unchanged.)
    const toolSpend = this.state.cost().usd - spentBefore;
    if (toolSpend > 0 && this.member.poolId !== undefined) await this.member.reportSpend(toolSpend);
    const hookStop = this.tools.hookStop;
    if (hookStop) return this.hookStopOutcome(hookStop);
    if (!finished) return this.interrupted('aborted_tools');
    return this.structuredOutputOutcome();
  }

  /** With a JSON Schema: the turn ends once a StructuredOutput call was valid, or once the attempts ran out. */
  private structuredOutputOutcome(): TurnOutcome | null {
    const { options } = this.input;
    if (options.jsonSchemaKey === undefined) return null;
    const so = this.state.structuredOutput;
    if (so.resultUuid !== null) return this.state.outcome('success', 'completed', []);
    if (exhausted(so, options.maxStructuredOutputRetries)) {
      return this.state.outcome('error_max_structured_output_retries', STRUCTURED_OUTPUT_EXHAUSTED, [retriesError(so)]);
    }
    return null;
  }

  /**
   * After a response without tool calls, what the seeds' loop does before it lets the turn end:
   * `pause_turn` is resumed; a response cut by `max_tokens` is resumed a few times; a turn that
   * must return structured output nudges the model to call the tool; a token budget may nudge
   * the model on. Returns the outcome when the turn ends, null to call the model again.
   */
  private async afterAnswer(call: CallModelSummary): Promise<TurnOutcome | null> {
    const { options } = this.input;
    const d = this.state.data;
    if (call.stopReason === 'pause_turn') return null;
    if (call.stopReason === 'refusal' && isPatched('refusalNoted')) {
      // As Claude Code: the first refusal of a turn is noted to the model, which goes on once.
      const model = this.state.model;
      if (afterRefusal(d.refusalNoted === true) === 'stop') {
        return this.state.outcome('error_during_execution', 'api_error', [refusedAgainError(model)]);
      }
      d.refusalNoted = true;
      await this.recordSystemLine({ subtype: 'informational', level: 'notice', content: refusalNotice(model) });
      await this.recordMetaMessage(
        REFUSAL_NOTE,
        call.refusedMessageId !== undefined ? { refusedMessageId: call.refusedMessageId } : {},
      );
      return null;
    }
    if (call.stopReason === 'max_tokens') {
      if (
        !resumesAfterCut(d.outputRecoveries ?? 0, options.maxOutputTokensRecoveries ?? MAX_OUTPUT_TOKENS_RECOVERIES)
      ) {
        const errors = [edeDiagnostic(this.state.successInput()), outputLimitError(options.maxTokens)];
        return this.state.outcome('error_during_execution', 'api_error', errors);
      }
      this.state.recordOutputRecovery();
      await this.recordMetaMessage(OUTPUT_LIMIT_NUDGE);
      return null;
    }
    if (options.jsonSchemaKey !== undefined) {
      // Beyond Claude Code: a turn given a schema never succeeds without structured output.
      const end = afterTextAnswer(this.state.structuredOutput, options.maxStructuredOutputRetries);
      if (end.action === 'exhausted') {
        return this.state.outcome('error_max_structured_output_retries', STRUCTURED_OUTPUT_EXHAUSTED, [end.error]);
      }
      this.state.structuredOutput = end.progress;
      await this.recordMetaMessage(STRUCTURED_OUTPUT_NUDGE);
      return null;
    }
    if (call.stopReason === 'end_turn' && d.limits.taskBudget !== undefined) {
      const used = taskBudgetTokens(d.usage.output_tokens, d.compactedContextTokens ?? 0);
      const decision = checkTokenBudget(d.budgetTracker, d.limits.taskBudget, used);
      if (decision.action === 'continue') {
        d.budgetTracker = decision.tracker;
        await this.recordMetaMessage(decision.nudge);
        return null;
      }
    }
    // Stop hooks may make the model go on, with their reason as a new message.
    const stopHooks = await this.hooks.stop();
    if (stopHooks.stop) return this.hookStopOutcome(stopHooks.stop);
    if (stopHooks.goOn) return null;
    if (stopHooks.capped !== undefined) {
      // As Claude Code: a warning (and a notification), then a success with an empty result.
      const content = stopHookCapMessage(stopHooks.capped);
      await this.recordSystemLine({
        subtype: 'informational',
        level: 'warning',
        content,
        notification: { key: 'stop-hook-block-cap', text: content, priority: 'high', color: 'warning' },
      });
      this.state.setResultLine(null);
      return this.state.outcome('success', 'completed', []);
    }
    return this.finalOutcome();
  }

  /**
   * The outcome of a turn a hook ended: `success` for the hook's own stop (its result text, and a
   * blocked prompt left out of the conversation), an error for a hook configuration error.
   */
  private hookStopOutcome(stop: NonNullable<HookStop>): TurnOutcome {
    if (!stop.success) return this.state.outcome('error_during_execution', stop.terminalReason, stop.errors);
    if (stop.success.result !== undefined) this.state.setResultLine(stop.success.result);
    if (stop.success.dropPrompt) this.state.dropPrompt();
    return this.state.outcome('success', stop.terminalReason, []);
  }

  /** Writes a user line the runner adds for the model's benefit (`isMeta`), at the end of the chain. */
  private async recordMetaMessage(text: string, fields: Partial<TranscriptEntry> = {}): Promise<void> {
    const { sessionId, turnId } = this.input;
    const uuid = uuid4();
    const entry: TranscriptEntry = {
      v: TRANSCRIPT_SCHEMA_VERSION,
      type: 'user',
      uuid,
      parentUuid: this.state.leaf,
      sessionId,
      timestamp: this.now(),
      // Text blocks, as Claude Code writes its own messages to the model.
      message: { role: 'user', content: [{ type: 'text', text }] },
      turnId,
      isMeta: true,
      ...fields,
    };
    this.state.activity = 'recordTranscript';
    await uninterruptible(() => this.record('transcript: note to the model', [entry]));
    this.state.appendLine(uuid, 'user');
  }

  /** The model stopped on its own: `success`, or an error result with a diagnostic (the seeds' `isResultSuccessful`). */
  private finalOutcome(): TurnOutcome {
    const seen = this.state.successInput();
    if (isResultSuccessful(seen)) return this.state.outcome('success', 'completed', []);
    return this.state.outcome('error_during_execution', 'model_error', [edeDiagnostic(seen)]);
  }

  private interrupted(terminalReason: string): TurnOutcome {
    const reason = this.interrupts.reason ?? 'Interrupted';
    return this.state.outcome('error_during_execution', terminalReason, [`[interrupted] ${reason}`]);
  }

  /**
   * Writes transcript lines: as a local activity (short, idempotent by uuid), falling back to the
   * normal activity when the local attempts fail; histories from before local activities replay
   * with the normal one.
   */
  private record(summary: string, entries: TranscriptEntry[]): Promise<void> {
    return this.viaLocal(summary, this.acts.local.recordTranscript, this.acts.recordTranscript, entries);
  }

  /** A short idempotent write as a local activity first, then as the normal activity. */
  private async viaLocal<A, R>(
    summary: string,
    local: (arg: A) => Promise<R>,
    normal: (arg: A) => Promise<R>,
    arg: A,
  ): Promise<void> {
    if (isPatched('localActivities')) {
      try {
        await summarized(local, summary, arg);
        return;
      } catch (err) {
        if (isCancellation(err)) throw err;
      }
    }
    await summarized(normal, summary, arg);
  }

  /** The Web UI's current details of the turn: what it does now, since when, what it has spent. */
  private updateDetails(): void {
    const s = this.state;
    const d = s.data;
    const since = new Date(s.activitySinceMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const now = s.done ? `**done**` : `**now** ${s.activityLabel ?? s.activity} (since ${since})`;
    const cost = s.cost();
    const lines = [
      now,
      `**model calls** ${d.numTurns} · **cost** ${cost.known ? `$${cost.usd.toFixed(4)}` : 'unknown'}`,
    ];
    if (this.lastCall) lines.push(`**last** ${this.lastCall}`);
    setCurrentDetails(lines.join('  \n'));
  }

  /**
   * At the end: the turn's own `AgentStatus` (its result subtype) and `AgentCostUsd`, so that a
   * turn that ended in an error result can be found as such (the workflow itself completes: its
   * result is the outcome). Only on turns started with the runner's search attributes, which
   * proves the server has them registered.
   */
  finish(outcome: TurnOutcome): void {
    this.updateDetails();
    if (workflowInfo().typedSearchAttributes.get(SA.sessionId) === undefined) return;
    if (!isPatched('turnStatusAttributes')) return;
    upsertSearchAttributes([
      { key: SA.status, value: outcome.subtype },
      { key: SA.costUsd, value: Math.round(outcome.costUsd * 1e6) / 1e6 },
    ]);
  }

  private progress(): TurnProgress {
    const d = this.state.data;
    // While the host of a tool call is gone and the workspace moves, that is what the turn does
    // (not the call: it is not running anywhere).
    const label = this.workspace.moving
      ? `move the workspace to a live worker (the host of ${this.state.activityLabel ?? this.state.activity} is gone)`
      : this.state.activityLabel;
    return {
      events: [...d.events],
      done: this.state.done,
      activity: this.workspace.moving ? 'prepareWorkspace' : this.state.activity,
      ...(label !== null ? { activityLabel: label } : {}),
      activitySince: new Date(this.state.activitySinceMs).toISOString(),
      modelCall: this.state.modelCall,
      numTurns: d.numTurns,
      costUsd: this.state.cost().usd,
      usage: d.usage,
      limits: d.limits,
      budgetPoolId: this.input.options.budgetPoolId ?? null,
      pool: this.member.status,
      ...(d.mcp ? { mcp: d.mcp } : {}),
      ...(this.approvals.list().length ? { approvals: this.approvals.list() } : {}),
      ...(this.workspace.ref ? { workspace: this.workspace.ref } : {}),
    };
  }

  private now(): string {
    return new Date(Date.now()).toISOString();
  }
}
