import { uuid4 } from '@temporalio/workflow';
import type { HookEvent, HookOutcome, RunHooksInput } from '../common/hooks';
import {
  DEFAULT_BLOCK_REASON,
  DEFAULT_STOP_HOOK_BLOCK_CAP,
  HOOK_CONFIG_ERROR_PREFIX,
  LEGACY_STOP_HOOK_BLOCKS,
  hooksApply,
} from '../common/hooks';
import type { ToolUseSummary } from '../common/tools';
import type { HookPermission } from '../engine/permissions';
import type { TurnInput } from '../common/turn';
import { uninterruptible } from './interrupts';
import { isPatched } from './patches';
import type { TurnActivities } from './turn-activities';
import type { TurnState } from './turn-state';
import type { WorkspaceFollower } from './workspace';

/**
 * Why a hook ends the turn, or null to go on (`errors`: why, for the calls it leaves unrun). A
 * configuration error ends it with those errors; a hook's own stop (`continue: false`, a blocked prompt) ends it in `success`, as in Claude Code,
 * with `result` as its text (a notice line's uuid; null: empty; absent: the last answer's) and
 * `dropPrompt` when the prompt is not kept in the conversation.
 */
export type HookStop = {
  terminalReason: string;
  errors: string[];
  success?: { result?: string | null; dropPrompt?: boolean };
} | null;

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

  /**
   * True when the turn has hooks for `event` whose matcher selects `subject` (the tool name,
   * SessionStart source or PreCompact trigger). Histories recorded before `hook-matchers` keep
   * the rule they ran with.
   */
  applies(event: HookEvent, subject?: string): boolean {
    const hooks = this.input.options.hooks;
    if (!hooks?.matchers[event]?.length) return false;
    return hooksApply(hooks, event, subject, !isPatched('hookMatchers'));
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
    const agent = this.subagent();
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
            ...(agent ? { agent } : {}),
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

  /**
   * The stop a hook outcome asks for: configuration errors, `continue: false`, or null. Since
   * `hook-stops-succeed` a `continue: false` ends the turn in `success` with `result` as its text
   * (null: empty; absent: the last answer's), and `terminalReason` (Claude Code's).
   */
  stopOf(outcome: HookOutcome | null, success?: { terminalReason: string; result?: string | null }): HookStop {
    if (outcome?.configErrors?.length) {
      return { terminalReason: 'hook_stopped', errors: outcome.configErrors.map((e) => HOOK_CONFIG_ERROR_PREFIX + e) };
    }
    if (!outcome?.stop) return null;
    if (success && isPatched('hookStopsSucceed')) {
      return {
        terminalReason: success.terminalReason,
        errors: [outcome.stop.reason],
        success: success.result !== undefined ? { result: success.result } : {},
      };
    }
    return { terminalReason: 'hook_stopped', errors: [outcome.stop.reason] };
  }

  /**
   * The agent a subagent's turn runs, for its hooks (`agent_id`, `agent_type`), or undefined: the
   * session's own turn, or a subagent's run started before SubagentStart/SubagentStop (it keeps
   * the main agent's events).
   */
  private subagent(): RunHooksInput['agent'] {
    const a = this.input.agent;
    if (!a?.subagentHooks) return undefined;
    return { agentId: a.agentId, agentType: a.agentType, transcriptPath: a.outputFile };
  }

  /**
   * SessionStart (first turn of a session) and UserPromptSubmit, after the prompt is recorded; in
   * a subagent's run, SubagentStart instead (its additional context goes to the agent), as in
   * Claude Code 2.1.328.
   */
  async atTurnStart(): Promise<HookStop> {
    const agent = this.subagent();
    if (agent) {
      if (!this.applies('SubagentStart', agent.agentType)) return null;
      const o = await this.run('SubagentStart', 'SubagentStart', {}, true);
      return o?.configErrors?.length ? this.stopOf(o) : null;
    }
    if (this.input.turnNumber <= 1 && this.applies('SessionStart', 'startup')) {
      const o = await this.run('SessionStart', 'SessionStart', { source: 'startup' }, true);
      // Claude Code does not stop for a SessionStart hook's `continue: false`; configuration errors still do.
      const stop = o?.stop && !o.configErrors?.length && isPatched('hookStopsSucceed') ? null : this.stopOf(o);
      if (stop) return stop;
    }
    if (!this.applies('UserPromptSubmit')) return null;
    if (!isPatched('hookStopsSucceed')) return this.legacyUserPromptSubmit();
    // A block or a stop is told by a notice line (its text is the result): a blocked prompt's
    // notice hangs where the prompt did, since the prompt leaves the conversation.
    const notice = { uuid: uuid4(), parentUuid: this.state.leaf, blockedParentUuid: this.input.parentUuid };
    const o = await this.run(
      'UserPromptSubmit',
      'UserPromptSubmit',
      { promptUuid: this.input.promptUuid, noticeLine: notice },
      true,
    );
    if (o?.configErrors?.length) return this.stopOf(o);
    if (o?.notice === 'blocked') {
      this.state.recordNotice(notice.uuid);
      return { terminalReason: 'hook_stopped', errors: [], success: { result: notice.uuid, dropPrompt: true } };
    }
    if (o?.notice === 'stopped') {
      this.state.appendLine(notice.uuid, 'system');
      return { terminalReason: 'hook_stopped', errors: [], success: { result: notice.uuid } };
    }
    return null;
  }

  /** UserPromptSubmit as versions before `hook-stops-succeed` ran it (an error result). */
  private async legacyUserPromptSubmit(): Promise<HookStop> {
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
    // As in Claude Code, a stop after a tool call ends the turn with an empty result.
    const stop = this.stopOf(o, { terminalReason: 'hook_stopped', result: null });
    const inputRef = o?.updatedInput ? { inputRef: o.outcomeRef } : {};
    switch (o?.decision) {
      case 'deny':
      case 'block':
        return {
          hook: {
            decision: 'deny',
            message: `PreToolUse:${use.name} hook error: ${o.reason ?? DEFAULT_BLOCK_REASON}`,
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
    return this.stopOf(o, { terminalReason: 'hook_stopped', result: null });
  }

  /**
   * Stop (SubagentStop in a subagent's run): the model is done. A hook that blocks (exit 2 or `decision: "block"`) makes the turn go
   * on: its reason is given to the model and `goOn` is true. After `stopBlockCap` blocks in a row
   * (Claude Code's `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`, 8 by default; 0 = no cap) the next block is
   * overridden: its feedback is recorded but no model call follows, `capped` is the count, and
   * the turn ends.
   */
  async stop(): Promise<{ goOn: boolean; stop: HookStop; capped?: number }> {
    // A subagent's end fires SubagentStop (matched by its type), with the same block contract.
    const agent = this.subagent();
    const event = agent ? 'SubagentStop' : 'Stop';
    if (!this.applies(event, agent?.agentType)) return { goOn: false, stop: null };
    const d = this.state.data;
    const blocks = d.stopHookBlocks ?? 0;
    const claudeCap = isPatched('stopHookBlockCap');
    const cap = this.input.options.hooks?.stopBlockCap ?? DEFAULT_STOP_HOOK_BLOCK_CAP;
    if (!claudeCap && blocks >= LEGACY_STOP_HOOK_BLOCKS) return { goOn: false, stop: null };
    // This run's block would be one too many: it runs and its feedback is recorded (as in Claude
    // Code), but it is not obeyed.
    const over = claudeCap && cap > 0 && blocks >= cap;
    const o = await this.run(
      event,
      `${event}/${d.numTurns}`,
      { stop: { lastAssistantUuid: d.lastAssistantUuid, stopHookActive: blocks > 0 } },
      true,
    );
    // A Stop hook's stop keeps the last answer as the result (Claude Code's `stop_hook_prevented`).
    const stop = this.stopOf(o, { terminalReason: 'stop_hook_prevented' });
    if (stop) return { goOn: false, stop };
    if (o?.decision === 'block' && over) return { goOn: false, stop: null, capped: blocks + 1 };
    if (o?.decision === 'block' && o.contextWritten) {
      d.stopHookBlocks = blocks + 1;
      return { goOn: true, stop: null };
    }
    return { goOn: false, stop: null };
  }

  /** PreCompact, before a compaction (informational here). */
  async preCompact(trigger: 'auto' | 'manual'): Promise<void> {
    if (!this.applies('PreCompact', trigger)) return;
    await this.run('PreCompact', `PreCompact/${this.state.data.compactions}`, { source: trigger }, false);
  }
}
