import type { CallModelSummary } from '../common/model';
import type { ResultSubtype } from '../common/sdk-messages';
import type { FileReadState, RunToolSummary, ToolUseSummary } from '../common/tools';
import type { TurnCarry, TurnInput, TurnOutcome } from '../common/turn';
import type { Usage } from '../common/usage';
import { addUsage, emptyUsage } from '../common/usage';
import { addModelUsage, totalCost } from '../engine/cost';
import type { ModelLimits } from '../engine/cost';
import type { LimitState } from '../engine/limits';
import { capReadFileState } from '../engine/read-file-state';
import type { SuccessInput } from '../engine/success';
import { newTokenBudgetTracker } from '../engine/token-budget';
import type { PoolMember } from './pool-member';

/** The carried part of a turn's state: {@link TurnCarry} without the budget pool's fields (the member holds those). */
export type TurnStateData = Omit<TurnCarry, 'pool' | 'poolSync'>;

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
  /** What the turn is doing now (`callModel`, `runTool Bash`, …), for the progress query. */
  activity = 'starting';
  /** True once the turn has its outcome. */
  done = false;

  constructor(input: TurnInput) {
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
        };
  }

  /** Last line of the conversation: the parent of the next line the turn writes. */
  get leaf(): string {
    return this.data.leaf;
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
    };
  }

  /** What the success rule and the `[ede_diagnostic]` line see. */
  successInput(): SuccessInput {
    const { lastMessageType, lastContentTypes, stopReason } = this.data;
    return { lastMessageType, lastContentTypes, stopReason };
  }

  /** A completed model call: its assistant line, usage and cost. */
  recordModelCall(assistantUuid: string, call: CallModelSummary): void {
    const d = this.data;
    d.numTurns++;
    d.stopReason = call.stopReason;
    d.lastAssistantUuid = assistantUuid;
    d.lastMessageType = 'assistant';
    d.lastContentTypes = call.contentTypes;
    d.durationApiMs += call.durationMs;
    this.addSpend(call.model, call.usage, call.costUsd, {
      contextWindow: call.contextWindow,
      maxOutputTokens: call.maxOutputTokens,
    });
    this.appendLine(assistantUuid, 'assistant');
  }

  /** Usage of a call that is not a turn of the conversation (e.g. the summary of a compaction). */
  addSpend(model: string, usage: Usage, costUsd: number | null, limits: ModelLimits): void {
    const d = this.data;
    d.usage = addUsage(d.usage, usage);
    d.modelUsage = addModelUsage(d.modelUsage, model, usage, costUsd, limits);
  }

  /** A line the turn wrote at the end of the chain (`user` for prompts, nudges, summaries, tool results). */
  appendLine(uuid: string, type: 'assistant' | 'user'): void {
    this.data.events.push(uuid);
    this.data.leaf = uuid;
    if (type === 'user') this.data.lastMessageType = 'user';
  }

  /** Lines written before the leaf moved past them (a compaction writes a boundary and a summary). */
  appendLines(uuids: readonly string[]): void {
    for (const uuid of uuids) this.appendLine(uuid, 'user');
  }

  /**
   * The tool_result of one call. Its line was planned under the leaf by the caller, so only the
   * event is recorded here; read-file state and denials are updated.
   */
  recordToolResult(result: RunToolSummary, use: ToolUseSummary | undefined): void {
    const d = this.data;
    d.events.push(result.resultUuid);
    d.lastMessageType = 'user';
    if (result.fileState) {
      // Delete first so that a re-read path moves to the end (the cap keeps the newest).
      delete d.readFileState[result.fileState.path];
      d.readFileState[result.fileState.path] = result.fileState.state;
    }
    if (result.outcome === 'denied' && use) {
      d.denials.push({ tool_name: use.name, tool_use_id: use.id, tool_input: result.deniedInput ?? {} });
    }
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
      errors,
      permissionDenials: d.denials,
      leafUuid: d.leaf,
      events: d.events,
      readFileState: capReadFileState(d.readFileState),
      apiErrorStatus,
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
