import { allHandlersFinished, condition, continueAsNew, setHandler, uuid4, workflowInfo } from '@temporalio/workflow';
import type { CallModelSummary } from '../common/model';
import { ModelErrorType } from '../common/model';
import type { TranscriptEntry } from '../common/transcript';
import type { TurnInput, TurnOutcome, TurnProgress } from '../common/turn';
import { applyLimitPatch, checkLimits } from '../engine/limits';
import { edeDiagnostic, isResultSuccessful } from '../engine/success';
import { checkTokenBudget } from '../engine/token-budget';
import { failureTerminalReason, failureText, modelFailureOf } from './failures';
import type { ModelFailure } from './failures';
import { Interrupts, uninterruptible } from './interrupts';
import { interruptSignal, poolStatusSignal, setLimitsSignal, turnProgressQuery } from './messages';
import { PoolMember } from './pool-member';
import { ToolRuns } from './tool-runs';
import { turnActivities } from './turn-activities';
import type { TurnActivities } from './turn-activities';
import { TurnState } from './turn-state';

/** Model calls per workflow run before a long turn continues as new. */
const DEFAULT_MAX_STEPS_PER_RUN = 200;

/** What one model call step came to. */
type ModelStep =
  | { kind: 'response'; assistantUuid: string; call: CallModelSummary }
  /** The context was compacted after the API refused it as too long: call again. */
  | { kind: 'compacted' }
  | { kind: 'stop'; outcome: TurnOutcome };

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
  const turn = new Turn(input);
  const outcome = await turn.run();
  // Not reached on continue-as-new (run() throws it): the next run is still a member.
  await turn.member.leave();
  return outcome;
}

/**
 * A running turn: its state (one object, carried through continue-as-new), its budget pool
 * membership, its interrupts, and one method per step of the loop.
 */
class Turn {
  readonly state: TurnState;
  readonly member: PoolMember;
  private readonly interrupts = new Interrupts();
  private readonly acts: TurnActivities;
  private readonly tools: ToolRuns;
  private stepsThisRun = 0;

  constructor(private readonly input: TurnInput) {
    this.state = new TurnState(input);
    this.member = new PoolMember(input.options.budgetPoolId, input.carry);
    this.acts = turnActivities(input.options.timeouts);
    this.tools = new ToolRuns(input, this.state, this.acts, this.interrupts);
    setHandler(turnProgressQuery, () => this.progress());
    setHandler(setLimitsSignal, (patch) => {
      this.state.data.limits = applyLimitPatch(this.state.data.limits, patch);
    });
    setHandler(interruptSignal, (reason) => this.interrupts.interrupt(reason));
    setHandler(poolStatusSignal, (status) => this.member.onStatus(status));
  }

  /** The loop: check limits, call the model, run the tools it asks for, decide whether to go on. */
  async run(): Promise<TurnOutcome> {
    if (!this.input.carry) await this.start();
    for (;;) {
      const stop = await this.beforeModelCall();
      if (stop) return stop;
      const step = await this.callModel();
      if (step.kind === 'stop') return step.outcome;
      if (step.kind === 'compacted') continue;
      if (step.call.toolUses.length > 0) {
        const stopped = await this.runTools(step.assistantUuid, step.call);
        if (stopped) return stopped;
        continue;
      }
      if (await this.continuesAfter(step.call)) continue;
      return this.finalOutcome();
    }
  }

  /** Records the prompt before the first model call (a crash after this loses nothing), then joins the pool. */
  private async start(): Promise<void> {
    const { input } = this;
    this.state.activity = 'recordTranscript';
    await uninterruptible(() =>
      this.acts.recordTranscript([
        {
          v: 1,
          type: 'user',
          uuid: input.promptUuid,
          parentUuid: input.parentUuid,
          sessionId: input.sessionId,
          timestamp: this.now(),
          message: { role: 'user', content: input.prompt },
          turnId: input.turnId,
          cwd: input.cwd,
        },
      ]),
    );
    await this.member.join();
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
      await continueAsNew<typeof turnWorkflow>({ ...this.input, carry: this.state.carry(this.member) });
    }
    this.stepsThisRun++;
    if (this.member.awaitingAck()) this.state.activity = 'waitBudgetPool';
    await this.member.awaitAck((wait) => this.interrupts.run(wait));
    if (this.interrupts.requested()) return this.interrupted('aborted_tools');
    const verdict = checkLimits(this.state.data.limits, this.state.limitState(this.member));
    if (!verdict.stop) return null;
    const reason = verdict.subtype === 'error_max_turns' ? 'max_turns' : 'budget_exhausted';
    return this.state.outcome(verdict.subtype, reason, verdict.errors);
  }

  /** One model call (streamed by the `callModel` activity, which writes the assistant line). */
  private async callModel(): Promise<ModelStep> {
    const { sessionId, cwd, options } = this.input;
    const assistantUuid = uuid4();
    this.state.activity = 'callModel';
    let call: CallModelSummary | undefined;
    try {
      call = await this.interrupts.run(() =>
        this.acts.callModel({
          sessionId,
          cwd,
          assistantUuid,
          parentUuid: this.state.leaf,
          model: options.model,
          maxTokens: options.maxTokens,
          ...(options.tools ? { tools: options.tools } : {}),
          ...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
          ...(options.appendSystemPrompt !== undefined ? { appendSystemPrompt: options.appendSystemPrompt } : {}),
        }),
      );
    } catch (err) {
      return this.afterFailedCall(modelFailureOf(err));
    }
    if (!call) return { kind: 'stop', outcome: this.interrupted('aborted_streaming') };
    this.state.recordModelCall(assistantUuid, call);
    if (call.costUsd !== null) await this.member.reportSpend(call.costUsd);
    return { kind: 'response', assistantUuid, call };
  }

  /** A model call failed after its retries: a prompt the API refused as too long is compacted once. */
  private async afterFailedCall(failure: ModelFailure): Promise<ModelStep> {
    if (failure.type === ModelErrorType.PromptTooLong && this.state.data.compactions === 0) {
      await this.compact('auto');
      return { kind: 'compacted' };
    }
    const outcome = this.state.outcome(
      'error_during_execution',
      failureTerminalReason(failure),
      [edeDiagnostic(this.state.successInput()), failureText(failure)],
      failure.status,
    );
    return { kind: 'stop', outcome };
  }

  /** Summarizes the context into a compact boundary and a summary line; the chain goes on from the summary. */
  private async compact(trigger: 'auto' | 'manual'): Promise<void> {
    const { sessionId, turnId, cwd, options } = this.input;
    this.state.data.compactions++;
    this.state.activity = 'compactContext';
    const boundaryUuid = uuid4();
    const summaryUuid = uuid4();
    const compacted = await uninterruptible(() =>
      this.acts.compactContext({
        sessionId,
        turnId,
        cwd,
        model: options.model,
        leafUuid: this.state.leaf,
        boundaryUuid,
        summaryUuid,
        trigger,
      }),
    );
    if (compacted.costUsd !== null || compacted.usage.input_tokens > 0) {
      this.state.addSpend(compacted.model, compacted.usage, compacted.costUsd, {
        contextWindow: 200_000,
        maxOutputTokens: options.maxTokens,
      });
    }
    this.state.appendLines([boundaryUuid, summaryUuid]);
  }

  /**
   * Runs the tools of one response. The budget is checked again first: the tools of a call that
   * crossed it do not run (each gets a result saying so). Returns the outcome when the turn stops.
   */
  private async runTools(assistantUuid: string, call: CallModelSummary): Promise<TurnOutcome | null> {
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
    const finished = await this.tools.runAll(assistantUuid, call.toolUses);
    return finished ? null : this.interrupted('aborted_tools');
  }

  /** After a response without tool calls: `pause_turn` is resumed, and a token budget may nudge the model on. */
  private async continuesAfter(call: CallModelSummary): Promise<boolean> {
    if (call.stopReason === 'pause_turn') return true;
    const d = this.state.data;
    if (call.stopReason !== 'end_turn' || d.limits.taskBudget === undefined) return false;
    const decision = checkTokenBudget(d.budgetTracker, d.limits.taskBudget, d.usage.output_tokens);
    if (decision.action !== 'continue') return false;
    d.budgetTracker = decision.tracker;
    await this.recordMetaMessage(decision.nudge);
    return true;
  }

  /** Writes a user line the runner adds for the model's benefit (`isMeta`), at the end of the chain. */
  private async recordMetaMessage(text: string): Promise<void> {
    const { sessionId, turnId } = this.input;
    const uuid = uuid4();
    const entry: TranscriptEntry = {
      v: 1,
      type: 'user',
      uuid,
      parentUuid: this.state.leaf,
      sessionId,
      timestamp: this.now(),
      message: { role: 'user', content: text },
      turnId,
      isMeta: true,
    };
    this.state.activity = 'recordTranscript';
    await uninterruptible(() => this.acts.recordTranscript([entry]));
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

  private progress(): TurnProgress {
    const d = this.state.data;
    return {
      events: [...d.events],
      done: this.state.done,
      activity: this.state.activity,
      numTurns: d.numTurns,
      costUsd: this.state.cost().usd,
      usage: d.usage,
      limits: d.limits,
      budgetPoolId: this.input.options.budgetPoolId ?? null,
      pool: this.member.status,
    };
  }

  private now(): string {
    return new Date(Date.now()).toISOString();
  }
}
