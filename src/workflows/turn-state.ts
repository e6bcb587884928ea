import type { CallModelSummary, CompactSummary } from '../common/model';
import type { ResultSubtype } from '../common/sdk-messages';
import type { FileReadState, RunToolSummary, ToolUseSummary } from '../common/tools';
import { EXIT_PLAN_MODE_TOOL } from '../common/tools';
import type { PermissionMode } from '../common/permissions';
import type { ContextStageTotals, TurnCarry, TurnInput, TurnOutcome, TurnSpend } from '../common/turn';
import type { Usage, UsageDetails } from '../common/usage';
import { addUsage, emptyUsage } from '../common/usage';
import { addModelUsage, mergeModelUsage, totalCost } from '../engine/cost';
import type { ModelUsage } from '../common/usage';
import { contextWindowOf } from '../common/model-limits';
import { maxOutputTokensOf } from '../common/model-capabilities';
import type { ModelLimits } from '../engine/cost';
import type { LimitState } from '../engine/limits';
import { capReadFileState } from '../engine/read-file-state';
import type { SuccessInput } from '../engine/success';
import { newTokenBudgetTracker } from '../engine/token-budget';
import { contextTokensOf } from '../engine/compaction';
import type { StructuredOutputProgress } from '../common/structured-output';
import { newStructuredOutputProgress, recordStructuredOutputCalls } from '../engine/structured-output';
import type { PoolMember } from './pool-member';
import { STRUCTURED_OUTPUT_TOOL } from '../common/structured-output';

/** The carried part of a turn's state: {@link TurnCarry} without the budget pool's fields (the member holds those). */
export type TurnStateData = Omit<TurnCarry, 'pool' | 'poolSync' | 'rateSync'>;

/**
 * The state of one turn (the seeds' `queryLoop` state), as one object: what it has written
 * (`events`, `leaf`), what it has spent (`usage`, `modelUsage`, `numTurns`), what the model last
 * did (`stopReason`, `lastMessageType`, `lastContentTypes`), denials and read-file state. It is
 * carried whole through continue-as-new ({@link carry}) and changed only through its methods,
 * one per kind of event, so that the turn workflow reads as the loop and this file as its state.
 *
 * Deterministic: no I/O, only values the workflow already holds.
 */
export class TurnState {
  readonly data: TurnStateData;
  private current = 'starting';
  /** A one-line label of what the turn is doing now (`Bash: npm test`), or null. */
  activityLabel: string | null = null;
  /** When the current activity started (workflow time, ms). */
  activitySinceMs = Date.now();
  /** Called whenever the current activity changes (the turn updates its Web UI details). */
  onActivity: (() => void) | null = null;

  /** What the turn is doing now (`callModel`, `runTool Bash`, …), for the progress query. */
  get activity(): string {
    return this.current;
  }

  set activity(activity: string) {
    this.startActivity(activity, null);
  }

  /** Starts an activity of the turn, with a label for people watching (`model call 3`, `Bash: npm test`). */
  startActivity(activity: string, label: string | null): void {
    this.current = activity;
    this.activityLabel = label;
    this.activitySinceMs = Date.now();
    this.onActivity?.();
  }
  /** True once the turn has its outcome. */
  done = false;
  /** Assistant uuid of the model call in flight, for the progress query (not carried). */
  modelCall: string | null = null;
  private readonly defaultModel: string;
  /** The line the turn's prompt hangs from (null: the session's first prompt). */
  private readonly parentUuid: string | null;

  constructor(input: TurnInput) {
    this.defaultModel = input.options.model;
    this.parentUuid = input.parentUuid;
    const c = input.carry;
    this.data = c
      ? {
          ...c,
          limits: { ...c.limits },
          events: [...c.events],
          denials: [...c.denials],
          readFileState: { ...c.readFileState },
        }
      : {
          startedAtMs: Date.now(),
          limits: { ...input.options.limits },
          events: [],
          leaf: input.promptUuid,
          numTurns: 0,
          usage: emptyUsage(),
          modelUsage: {},
          durationApiMs: 0,
          stopReason: null,
          lastAssistantUuid: null,
          lastMessageType: 'none',
          lastContentTypes: [],
          denials: [],
          readFileState: { ...input.readFileState },
          budgetTracker: newTokenBudgetTracker(),
          compactions: 0,
          runs: 0,
          ...(input.workspace !== undefined ? { workspace: input.workspace } : {}),
        };
  }

  /** Last line of the conversation: the parent of the next line the turn writes. */
  get leaf(): string {
    return this.data.leaf;
  }

  /** The model the turn calls: its own, or the fallback it switched to. */
  get model(): string {
    return this.data.model ?? this.defaultModel;
  }

  /** Structured output attempts of the turn so far. */
  get structuredOutput(): StructuredOutputProgress {
    return this.data.structuredOutput ?? newStructuredOutputProgress();
  }

  set structuredOutput(p: StructuredOutputProgress) {
    this.data.structuredOutput = p;
  }

  /** USD spent by the turn so far (`known` is false when a model of the turn has no price). */
  cost(): { usd: number; known: boolean } {
    return totalCost(this.data.modelUsage);
  }

  /** What the limit check sees, with the budget pool's last status. */
  limitState(member: PoolMember): LimitState {
    return {
      modelCalls: this.data.numTurns,
      costUsd: this.cost().usd,
      poolExhausted: member.status?.exhausted ?? false,
      ...(member.status ? { poolLimitUsd: member.status.limitUsd } : {}),
      inBudgetPool: member.poolId !== undefined,
      unpricedModels: Object.keys(this.data.modelUsage).filter((m) => this.data.modelUsage[m]?.costUSD === null),
    };
  }

  /** What the success rule and the `[ede_diagnostic]` line see. */
  successInput(): SuccessInput {
    const { lastMessageType, lastContentTypes, stopReason } = this.data;
    return { lastMessageType, lastContentTypes, stopReason };
  }

  /**
   * A completed model call: its assistant line (after the file reminder the call wrote, if any),
   * usage and cost, and the size of its context for auto-compaction.
   */
  recordModelCall(assistantUuid: string, call: CallModelSummary): void {
    const d = this.data;
    // The stages' lines, in their order on the chain (the seeds' order of the stages), before the
    // reminder and the assistant line (the stream's order).
    if (call.toolResultBudget) this.addStageLine('toolResultBudget', call.toolResultBudget);
    if (call.snip) this.addStageLine('snip', call.snip);
    if (call.microcompact) this.addStageLine('microcompact', call.microcompact);
    if (call.collapse) this.addStageLine('collapse', call.collapse);
    if (call.fileReminder) {
      d.events.push(call.fileReminder.uuid);
      // The reminder showed these files whole: the model's view of them is current again.
      for (const f of call.fileReminder.files) this.setReadState(f.path, f.state);
    }
    d.numTurns++;
    d.lastContext = {
      tokens: contextTokensOf(call.usage),
      window: call.contextWindow,
      ...(d.compactedSinceCall ? { afterCompaction: true } : {}),
    };
    d.compactedSinceCall = false;
    if (call.stopReason !== 'max_tokens') d.outputRecoveries = 0;
    d.stopReason = call.stopReason;
    d.lastAssistantUuid = assistantUuid;
    d.lastMessageType = 'assistant';
    d.lastContentTypes = call.contentTypes;
    d.durationApiMs += call.durationMs;
    this.addSpend(
      call.model,
      call.usage,
      call.costUsd,
      { contextWindow: call.contextWindow, maxOutputTokens: call.maxOutputTokens },
      {
        ...(call.thinkingTokens !== undefined ? { thinkingTokens: call.thinkingTokens } : {}),
        ...(call.webSearchRequests !== undefined ? { webSearchRequests: call.webSearchRequests } : {}),
      },
    );
    this.appendLine(assistantUuid, 'assistant');
  }

  /** A context stage's line written before a call: streamed, and added to the turn's totals (runs, and each count). */
  private addStageLine<K extends keyof ContextStageTotals>(
    stage: K,
    line: { uuid: string } & Omit<NonNullable<ContextStageTotals[K]>, 'runs'>,
  ): void {
    const d = this.data;
    d.events.push(line.uuid);
    const prev = (d.contextStages?.[stage] ?? {}) as Record<string, number>;
    const next: Record<string, number> = { runs: (prev['runs'] ?? 0) + 1 };
    for (const [k, v] of Object.entries(line)) if (typeof v === 'number') next[k] = (prev[k] ?? 0) + v;
    d.contextStages = { ...d.contextStages, [stage]: next };
  }

  /** Usage of a call that is not a turn of the conversation (e.g. the summary of a compaction). */
  addSpend(model: string, usage: Usage, costUsd: number | null, limits: ModelLimits, details: UsageDetails = {}): void {
    const d = this.data;
    d.usage = addUsage(d.usage, usage);
    d.modelUsage = addModelUsage(d.modelUsage, model, usage, costUsd, limits, details);
  }

  /**
   * What a foreground subagent spent (its model calls and its own children's): counted in the
   * turn's `modelUsage`, cost and every USD limit, but not in its `usage`, which is the turn's
   * own calls only (as Claude Code reports them).
   */
  addChildSpend(modelUsage: Record<string, ModelUsage>): void {
    this.data.modelUsage = mergeModelUsage(this.data.modelUsage, modelUsage);
  }

  /**
   * A line the turn wrote at the end of the chain (`user` for prompts, nudges, tool results;
   * `system` for notices the model does not see, such as a model fallback).
   */
  appendLine(uuid: string, type: 'assistant' | 'user' | 'system'): void {
    this.data.events.push(uuid);
    this.data.leaf = uuid;
    if (type === 'user') this.data.lastMessageType = 'user';
  }

  /** A notice the caller sees (streamed) that is not part of the conversation. */
  recordNotice(uuid: string): void {
    this.data.events.push(uuid);
  }

  /** A hook blocked the prompt: the conversation goes on from before it. */
  dropPrompt(): void {
    this.data.promptDropped = true;
  }

  /** The turn's result text is `uuid`'s (a hook's notice), or empty (null), not the last answer's. */
  setResultLine(uuid: string | null): void {
    this.data.resultLine = uuid;
  }

  /** The session's context line (written after the first prompt): the chain goes on from it. */
  recordContext(uuid: string): void {
    this.data.events.push(uuid);
    this.data.leaf = uuid;
  }

  /**
   * A compaction: its boundary and summary are streamed, the chain goes on from its new leaf
   * (the last message kept verbatim, or the summary), and a `taskBudget` loses the context that
   * was summarized.
   */
  recordCompaction(c: CompactSummary): void {
    const d = this.data;
    d.compactions++;
    d.events.push(c.boundaryUuid, c.summaryUuid);
    d.leaf = c.leafUuid;
    d.lastMessageType = 'user';
    d.compactedContextTokens = (d.compactedContextTokens ?? 0) + c.preTokens;
    d.compactedSinceCall = true;
    delete d.lastContext;
  }

  /** The turn calls `model` from now on (a fallback after repeated overloaded errors). */
  switchModel(model: string): void {
    this.data.model = model;
  }

  /** A response cut by `max_tokens` that the turn asks the model to resume. */
  recordOutputRecovery(): void {
    this.data.outputRecoveries = (this.data.outputRecoveries ?? 0) + 1;
  }

  /**
   * The tool_result of one call. Its line was planned under the leaf by the caller, so only the
   * event is recorded here; read-file state and denials are updated. `used`: the call counts
   * among the tools used although it failed.
   */
  recordToolResult(result: RunToolSummary, use: ToolUseSummary | undefined, used = false): void {
    const d = this.data;
    d.events.push(result.resultUuid);
    if (use) {
      d.toolUses = (d.toolUses ?? 0) + 1;
      if ((result.outcome === 'ok' || used) && !(d.toolsUsed ?? []).includes(use.name)) {
        d.toolsUsed = [...(d.toolsUsed ?? []), use.name].sort();
      }
    }
    const spent = result.modelSpend;
    if (spent) {
      // A tool's own model calls (WebSearch, WebFetch) count like the conversation's.
      this.addSpend(
        spent.model,
        spent.usage,
        spent.costUsd,
        { contextWindow: contextWindowOf(spent.model), maxOutputTokens: maxOutputTokensOf(spent.model) },
        {
          webSearchRequests: spent.webSearchRequests,
          ...(spent.thinkingTokens !== undefined ? { thinkingTokens: spent.thinkingTokens } : {}),
        },
      );
      d.durationApiMs += spent.durationMs;
    }
    d.lastMessageType = 'user';
    if (result.fileState) this.setReadState(result.fileState.path, result.fileState.state);
    if (result.allowedRules?.length) this.addSkillRules(result.allowedRules);
    // An approved ExitPlanMode ends plan mode for the rest of the turn. It runs only when the turn
    // offers it (an approver, and `tools` or `approverTools` naming it), which no history older
    // than the tool has.
    if (use?.name === EXIT_PLAN_MODE_TOOL && result.outcome === 'ok') d.planExited = true;
    if (result.outcome === 'denied' && use) {
      d.denials.push({ tool_name: use.name, tool_use_id: use.id, tool_input: result.deniedInput ?? {} });
    }
    if (use?.name === STRUCTURED_OUTPUT_TOOL) {
      const valid = result.outcome === 'ok';
      this.structuredOutput = recordStructuredOutputCalls(this.structuredOutput, [
        {
          resultUuid: result.resultUuid,
          valid,
          ...(result.structuredOutputError !== undefined ? { error: result.structuredOutputError } : {}),
        },
      ]);
    }
  }

  private setReadState(path: string, state: FileReadState): void {
    // Delete first so that a re-read path moves to the end (the cap keeps the newest).
    delete this.data.readFileState[path];
    this.data.readFileState[path] = state;
  }

  /** Whether an approved ExitPlanMode took this turn out of plan mode. */
  get planExited(): boolean {
    return this.data.planExited === true;
  }

  /**
   * The turn's options as its permission decisions see them now: `permissionMode` is `default`
   * once an approved ExitPlanMode left plan mode (Claude Code 2.1.328 does so mid-turn).
   */
  permissionOptions<T extends { permissionMode: PermissionMode }>(options: T): T {
    return this.planExited && options.permissionMode === 'plan' ? { ...options, permissionMode: 'default' } : options;
  }

  /** Allow rules the skills loaded in this turn brought (`allowed-tools`); they apply from the load on. */
  get skillRules(): readonly string[] {
    return this.data.skillRules ?? [];
  }

  /** A skill loaded by the Skill tool brought allow rules (kept once each). */
  addSkillRules(rules: readonly string[]): void {
    const have = this.data.skillRules ?? [];
    const added = rules.filter((r) => !have.includes(r));
    if (added.length) this.data.skillRules = [...have, ...added];
  }

  /**
   * A command answered without a model call (its `!` line was refused or failed; a skill under
   * `--bare`): the answer line is the turn's last message and its result text.
   */
  recordCommandAnswer(uuid: string): void {
    const d = this.data;
    d.lastAssistantUuid = uuid;
    d.lastMessageType = 'assistant';
    d.lastContentTypes = ['text'];
    d.stopReason = null;
    this.appendLine(uuid, 'assistant');
  }

  /** Moves the leaf to a line already recorded (the last planned result of an interrupted batch). */
  setLeaf(uuid: string): void {
    this.data.leaf = uuid;
  }

  /** Read-file state of one absolute path, or null. */
  readStateOf(path: string | undefined): FileReadState | null {
    return path === undefined ? null : (this.data.readFileState[path] ?? null);
  }

  /** The turn's outcome; marks the state done. */
  /** What the turn has spent and recorded so far (no side effect: answers the `spend` query). */
  spend(): TurnSpend {
    const d = this.data;
    const cost = this.cost();
    return {
      numTurns: d.numTurns,
      durationApiMs: d.durationApiMs,
      usage: d.usage,
      modelUsage: d.modelUsage,
      costUsd: cost.usd,
      costKnown: cost.known,
      permissionDenials: d.denials,
    };
  }

  outcome(
    subtype: ResultSubtype,
    terminalReason: string,
    errors: string[],
    apiErrorStatus: number | null = null,
  ): TurnOutcome {
    this.done = true;
    this.activity = 'done';
    const d = this.data;
    const cost = this.cost();
    return {
      subtype,
      isError: subtype !== 'success',
      terminalReason,
      numTurns: d.numTurns,
      durationMs: Date.now() - d.startedAtMs,
      durationApiMs: d.durationApiMs,
      usage: d.usage,
      modelUsage: d.modelUsage,
      costUsd: cost.usd,
      costKnown: cost.known,
      stopReason: d.stopReason,
      lastAssistantUuid: d.lastAssistantUuid,
      ...(d.resultLine !== undefined ? { resultTextUuid: d.resultLine } : {}),
      errors,
      permissionDenials: d.denials,
      leafUuid: d.promptDropped ? this.parentUuid : d.leaf,
      events: d.events,
      readFileState: capReadFileState(d.readFileState),
      apiErrorStatus,
      structuredOutputUuid: d.structuredOutput?.resultUuid ?? null,
      ...(d.workspace !== undefined ? { workspace: d.workspace } : {}),
      ...(d.contextStages ? { contextStages: d.contextStages } : {}),
    };
  }

  /** What the next run carries through continue-as-new: refs and counters only. */
  carry(member: PoolMember): TurnCarry {
    return {
      ...this.data,
      readFileState: capReadFileState(this.data.readFileState),
      pool: member.status,
      poolSync: member.sync,
      runs: this.data.runs + 1,
    };
  }
}
