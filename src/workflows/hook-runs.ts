import { uuid4 } from '@temporalio/workflow';
import type { HookEvent, HookOutcome, RunHooksInput } from '../common/hooks';
import { HOOK_CONFIG_ERROR_PREFIX, hooksApply } from '../common/hooks';
import type { ToolUseSummary } from '../common/tools';
import type { HookPermission } from '../engine/permissions';
import type { TurnInput } from '../common/turn';
import { uninterruptible } from './interrupts';
import type { TurnActivities } from './turn-activities';
import type { TurnState } from './turn-state';
import type { WorkspaceFollower } from './workspace';

/** Why a hook ends the turn (the errors of its result), or null to go on. */
export type HookStop = { terminalReason: 'hook_stopped'; errors: string[] } | null;

/** Stop hooks may make one turn go on at most this many times (a hook that always blocks cannot loop forever). */
export const MAX_STOP_HOOK_BLOCKS = 20;

/**
 * The turn's hooks (Claude Code's contract; see src/activities/hooks/interpret.ts): each event whose
 * matchers apply runs as one `runHooks` activity on a worker, keyed by the event so that a replay
 * or retry never runs its hooks twice. History sees refs and small outcomes; hook input and
 * output (tool input, prompt, context) stay in the store. Events with no hook cost nothing.
 */
export class HookRuns {
  constructor(
    private readonly input: TurnInput,
    private readonly state: TurnState,
    private readonly acts: TurnActivities,
    /** Hooks run on the host that holds the workspace, in its working directory there. */
    private readonly workspace: WorkspaceFollower,
  ) {}

  /** True when the turn has hooks for `event` (and `toolName`). */
  applies(event: HookEvent, toolName?: string): boolean {
    return hooksApply(this.input.options.hooks, event, toolName);
  }

  /**
   * Runs the hooks of one event. With `context`, text the hooks add for the model becomes a meta
   * line at the end of the chain.
   */
  private async run(
    event: HookEvent,
    key: string,
    extra: Partial<RunHooksInput>,
    context: boolean,
  ): Promise<HookOutcome | null> {
    const hooks = this.input.options.hooks;
    if (!hooks) return null;
    const { sessionId, turnId, options } = this.input;
    const contextUuid = context ? uuid4() : undefined;
    const previous = this.state.activity;
    this.state.activity = `hooks ${event}`;
    const outcome = await uninterruptible(() =>
      this.workspace.onWorkspaceHost(
        (acts, cwd) =>
          acts.runHooks({
            sessionId,
            cwd,
            configRef: hooks.configRef,
            event,
            eventKey: `${turnId}/${key}`,
            permissionMode: options.permissionMode,
            ...extra,
            ...(contextUuid ? { contextLine: { uuid: contextUuid, parentUuid: this.state.leaf } } : {}),
          }),
        this.acts,
      ),
    );
    this.state.activity = previous;
    if (contextUuid && outcome.contextWritten) this.state.appendLine(contextUuid, 'user');
    return outcome;
  }

  /** The stop a hook outcome asks for: configuration errors, `continue: false`, or null. */
  stopOf(outcome: HookOutcome | null): HookStop {
    if (outcome?.configErrors?.length) {
      return { terminalReason: 'hook_stopped', errors: outcome.configErrors.map((e) => HOOK_CONFIG_ERROR_PREFIX + e) };
    }
    if (outcome?.stop) return { terminalReason: 'hook_stopped', errors: [outcome.stop.reason] };
    return null;
  }

  /** SessionStart (first turn of a session) and UserPromptSubmit, after the prompt is recorded. */
  async atTurnStart(): Promise<HookStop> {
    if (this.input.turnNumber <= 1 && this.applies('SessionStart')) {
      const stop = this.stopOf(await this.run('SessionStart', 'SessionStart', { source: 'startup' }, true));
      if (stop) return stop;
    }
    if (!this.applies('UserPromptSubmit')) return null;
    const o = await this.run('UserPromptSubmit', 'UserPromptSubmit', { promptUuid: this.input.promptUuid }, true);
    const stop = this.stopOf(o);
    if (stop) return stop;
    if (o?.decision === 'block') {
      return {
        terminalReason: 'hook_stopped',
        errors: [`UserPromptSubmit hook blocked the prompt: ${o.reason ?? ''}`],
      };
    }
    return null;
  }

  /**
   * PreToolUse: the hooks' verdict on one call (deny, ask, allow, or none), its text for the
   * model, the ref of a changed input, and a stop. The turn weighs the verdict against the rules
   * and the mode by the one order of precedence (src/engine/permission-precedence.ts).
   */
  async preToolUse(
    use: ToolUseSummary,
    assistantUuid: string,
  ): Promise<{ hook: HookPermission; inputRef?: string; stop: HookStop }> {
    if (!this.applies('PreToolUse', use.name)) return { hook: { decision: 'none' }, stop: null };
    const o = await this.run(
      'PreToolUse',
      `PreToolUse/${use.id}`,
      { tool: { name: use.name, toolUseId: use.id, assistantUuid } },
      false,
    );
    const stop = this.stopOf(o);
    const inputRef = o?.updatedInput ? { inputRef: o.outcomeRef } : {};
    switch (o?.decision) {
      case 'deny':
      case 'block':
        return {
          hook: {
            decision: 'deny',
            message: `PreToolUse:${use.name} hook error: ${o.reason ?? 'blocked by a hook'}`,
          },
          stop,
        };
      case 'ask':
        return {
          hook: {
            decision: 'ask',
            message: o.reason ?? `A PreToolUse hook asked for approval of ${use.name}, and no one could give it.`,
          },
          ...inputRef,
          stop,
        };
      case 'allow':
        return { hook: { decision: 'allow' }, ...inputRef, stop };
      default:
        return { hook: { decision: 'none' }, ...inputRef, stop };
    }
  }

  /** PostToolUse of one call whose result line is written: may add context for the model. */
  async postToolUse(use: ToolUseSummary, assistantUuid: string, resultUuid: string): Promise<HookStop> {
    if (!this.applies('PostToolUse', use.name)) return null;
    const o = await this.run(
      'PostToolUse',
      `PostToolUse/${use.id}`,
      { tool: { name: use.name, toolUseId: use.id, assistantUuid, resultUuid } },
      true,
    );
    return this.stopOf(o);
  }

  /**
   * Stop: the model is done. A hook that blocks (exit 2 or `decision: "block"`) makes the turn go
   * on: its reason is given to the model and `true` is returned.
   */
  async stop(): Promise<{ goOn: boolean; stop: HookStop }> {
    if (!this.applies('Stop')) return { goOn: false, stop: null };
    const d = this.state.data;
    const blocks = d.stopHookBlocks ?? 0;
    if (blocks >= MAX_STOP_HOOK_BLOCKS) return { goOn: false, stop: null };
    const o = await this.run(
      'Stop',
      `Stop/${d.numTurns}`,
      { stop: { lastAssistantUuid: d.lastAssistantUuid, stopHookActive: blocks > 0 } },
      true,
    );
    const stop = this.stopOf(o);
    if (stop) return { goOn: false, stop };
    if (o?.decision === 'block' && o.contextWritten) {
      d.stopHookBlocks = blocks + 1;
      return { goOn: true, stop: null };
    }
    return { goOn: false, stop: null };
  }

  /** PreCompact, before a compaction (informational here). */
  async preCompact(trigger: 'auto' | 'manual'): Promise<void> {
    if (!this.applies('PreCompact')) return;
    await this.run('PreCompact', `PreCompact/${this.state.data.compactions}`, { source: trigger }, false);
  }
}
