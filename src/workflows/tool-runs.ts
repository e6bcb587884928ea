import { uuid4 } from '@temporalio/workflow';
import { isMcpToolName } from '../common/mcp';
import type { RunToolInput, RunToolSummary, ToolPermission, ToolUseSummary } from '../common/tools';
import {
  CLAUDE_CODE_ONLY_TOOLS,
  HEADLESS_DISABLED_TOOL_NAMES,
  LISTABLE_TOOL_NAMES,
  noSuchToolText,
  optInToolsOf,
} from '../common/tools';
import { STRUCTURED_OUTPUT_TOOL } from '../common/structured-output';
import type { TurnInput } from '../common/turn';
import type { HookPermission } from '../engine/permissions';
import { decidePermission, turnPolicy } from '../engine/permissions';
import { SKILL_TOOL, TOOL_SEARCH_TOOL } from '../common/session-tools';
import { partitionToolUses } from '../engine/tool-batches';
import type { Approvals } from './approvals';
import type { HookRuns, HookStop } from './hook-runs';
import type { Interrupts } from './interrupts';
import { uninterruptible } from './interrupts';
import type { TurnActivities } from './turn-activities';
import { LOCAL_TOOLS } from './turn-activities';
import { isPatched } from './patches';
import type { TurnState } from './turn-state';
import type { WorkspaceFollower } from './workspace';
import { toolFaultOf } from './failures';
import type { TaskTools } from './task-tools';
import { atSpawnDepthLimit, modelToolNames } from './task-tools';
import { launchShellTask } from './shell-launch';
import { WakeupTool } from './wakeup-tool';
import { CronTool } from './cron-tool';
import { READ_ONLY_TOOLS, TASK_TOOL_NAMES } from '../common/tools';

/** Calls that run beside each other in one batch once subagents exist: read-only tools, `Agent` and `ListAgents`. */
const CONCURRENT_TOOLS: ReadonlySet<string> = new Set([...READ_ONLY_TOOLS, 'Agent', 'ListAgents']);

/**
 * How a hook's verdict was combined with the rules before the `hookPrecedence` patch, kept so
 * that histories recorded then replay with the same commands. Its `allow` skipped the activity's
 * checks (the fault of issue 18); it runs only for those histories.
 */
function legacyHookPermission(base: ToolPermission, hook: HookPermission): ToolPermission {
  switch (hook.decision) {
    case 'deny':
      return { behavior: 'deny', message: hook.message, reason: 'hook' };
    case 'ask':
      return { behavior: 'deny', message: hook.message, reason: 'hook_ask' };
    case 'allow':
      if (base.behavior === 'deny' && base.reason === 'rule') return base;
      if (base.behavior === 'checkCommand') return { ...base, allow: null };
      return { behavior: 'allow' };
    default:
      return base;
  }
}

/** A tool call with the transcript position of its result, planned before it runs. */
interface PlannedRun {
  use: ToolUseSummary;
  resultUuid: string;
  parentUuid: string;
}

/**
 * Runs the tool calls of one assistant message (the seeds' `runTools`): consecutive read-only
 * calls in parallel, every other call alone, in order; every tool_use gets exactly one
 * tool_result line, also when the turn is interrupted mid-batch or stops before running them.
 */
export class ToolRuns {
  constructor(
    private readonly input: TurnInput,
    private readonly state: TurnState,
    private readonly acts: TurnActivities,
    private readonly interrupts: Interrupts,
    private readonly workspace: WorkspaceFollower,
    private readonly hooks: HookRuns,
    private readonly approvals: Approvals,
    private readonly taskTools?: TaskTools,
  ) {}

  /** Set when a hook ends the turn (a configuration error, or `continue: false`). */
  hookStop: HookStop = null;

  private wakeupTool: WakeupTool | undefined;

  /** The turn's ScheduleWakeup calls (made on first use: its signal handler is set then). */
  private get wakeup(): WakeupTool {
    return (this.wakeupTool ??= new WakeupTool(this.input));
  }

  private cronTool: CronTool | undefined;

  /** The turn's CronCreate/CronList/CronDelete calls (made on first use: its signal handler is set then). */
  private get cron(): CronTool {
    return (this.cronTool ??= new CronTool(this.input));
  }

  /**
   * Runs one call where its workspace is (the shared queue when the workspace is not followed);
   * a read-only bounded call (Read, Glob, Grep) as a local activity first.
   */
  private async run(input: RunToolInput, use?: ToolUseSummary): Promise<RunToolSummary> {
    try {
      return await this.runWhereTheWorkspaceIs(input, use);
    } catch (err) {
      // A fault (`Tool.Fault`: invalid input the system rejects, a broken repository, a bug) was
      // not retried: the model gets it as the call's is_error result and the turn goes on.
      const fault = toolFaultOf(err);
      if (fault === undefined || input.skipReason !== undefined || !isPatched('toolFaultResults')) throw err;
      const { sessionId, cwd, assistantUuid, toolUseId, toolName, resultUuid, parentUuid } = input;
      const skipped: RunToolInput = {
        sessionId,
        cwd,
        assistantUuid,
        toolUseId,
        toolName,
        resultUuid,
        ...(parentUuid !== undefined ? { parentUuid } : {}),
        permission: { behavior: 'allow' },
        skipReason: fault,
      };
      return this.runWhereTheWorkspaceIs(skipped, use);
    }
  }

  private async runWhereTheWorkspaceIs(input: RunToolInput, use?: ToolUseSummary): Promise<RunToolSummary> {
    const summary = await this.runOnce(input, use);
    // Bash with `run_in_background`: the tool wrote the launch text; the command runs as a task.
    if (summary.background) {
      await launchShellTask(this.input, input, summary.background, this.workspace.ref?.hostQueue);
    }
    return summary;
  }

  private runOnce(input: RunToolInput, use?: ToolUseSummary): Promise<RunToolSummary> {
    // ScheduleWakeup is answered by the workflow (the timer is the session's).
    if (input.skipReason === undefined && this.wakeup.handles(input.toolName)) return this.wakeup.run(input);
    // So are the Cron tools (the jobs are the session's tasks, their fires its timers).
    if (input.skipReason === undefined && this.cron.handles(input.toolName)) return this.cron.run(input);
    const label = use?.label ?? input.toolName;
    // The task tools (Agent, SendMessage, TaskStop, ListAgents) are answered by the workflow. Only
    // a turn whose input has `options.subagents` has them (older inputs never carry the field, so
    // their histories replay their calls as runs of an unknown tool: no patch needed).
    if (input.skipReason === undefined && this.taskTools?.handles(input.toolName)) {
      return this.taskTools.run(input);
    }
    if (input.skipReason === undefined && LOCAL_TOOLS.has(input.toolName) && isPatched('localActivities')) {
      return this.workspace.runToolLocal(input, this.acts.local.runTool, this.acts.runTool, label);
    }
    return this.workspace.runTool(
      input,
      this.acts.runTool,
      input.skipReason === undefined ? label : `${label} (not run)`,
    );
  }

  /**
   * The permission of one call, decided in the workflow as far as the tool name allows; anything
   * that depends on the input or the files is a `check` with only the rules that matter for this
   * tool, decided by the activity (src/activities/permissions/decide.ts).
   */
  permissionOf(use: ToolUseSummary): ToolPermission {
    return inPlanModeWords(
      decidePermission(turnPolicy(this.state.permissionOptions(this.input.options), this.state.skillRules), use.name),
      use,
    );
  }

  /** True when a call's input may change before it runs: a PreToolUse hook, or approvals that may ask. */
  private needsPreparing(use: ToolUseSummary): boolean {
    return this.hooks.applies('PreToolUse', use.name) || this.input.options.approvals !== undefined;
  }

  /**
   * The `runTool` input of one call: its permission and the read-file state of its file (read
   * when the call's batch starts, so an Edit sees the Read before it), or, with `skipReason`,
   * why it does not run.
   */
  /**
   * The `runTool` input of one call after its PreToolUse hooks (which may deny it, allow it, ask,
   * or change its input).
   */
  private async prepare(run: PlannedRun, assistantUuid: string): Promise<RunToolInput> {
    const plain = this.runInput(run, assistantUuid);
    if (plain.skipReason !== undefined) return plain;
    let prepared = plain;
    if (this.hooks.applies('PreToolUse', run.use.name)) {
      const hooked = await this.hooks.preToolUse(run.use, assistantUuid);
      if (hooked.stop) {
        this.hookStop ??= hooked.stop;
        return this.runInput(run, assistantUuid, `Not run: ${hooked.stop.errors.join('; ')}`);
      }
      // The hook's verdict yields to deny and ask rules and safety checks (one order of
      // precedence); histories recorded before it replay with the earlier combination.
      const permission = isPatched('hookPrecedence')
        ? inPlanModeWords(
            decidePermission(
              turnPolicy(this.state.permissionOptions(this.input.options), this.state.skillRules),
              run.use.name,
              hooked.hook,
            ),
            run.use,
          )
        : legacyHookPermission(plain.permission, hooked.hook);
      prepared = {
        ...plain,
        permission,
        ...(hooked.inputRef !== undefined ? { inputRef: hooked.inputRef } : {}),
      };
    }
    return this.askIfNeeded(prepared, run, assistantUuid);
  }

  /**
   * A call the rules or a hook would ask about waits for an answer when the turn has approvals
   * (`options.approvals`); the answer (or the timeout's default) decides its permission.
   */
  private async askIfNeeded(prepared: RunToolInput, run: PlannedRun, assistantUuid: string): Promise<RunToolInput> {
    const p = prepared.permission;
    if (!this.input.options.approvals || p.behavior !== 'deny' || !(p.ask === true || p.reason === 'hook_ask')) {
      return prepared;
    }
    return this.decideByApproval(prepared, run, assistantUuid, p.message);
  }

  /** Waits for the approval of one call and returns its `runTool` input with the decision. */
  private async decideByApproval(
    prepared: RunToolInput,
    run: PlannedRun,
    assistantUuid: string,
    reason: string,
  ): Promise<RunToolInput> {
    const settings = this.input.options.approvals;
    if (!settings) return prepared;
    const previous = this.state.activity;
    this.state.activity = `waitApproval ${run.use.name} (${run.use.id})`;
    const answer = await this.approvals.request(run.use, assistantUuid, reason, settings);
    this.state.activity = previous;
    if (!answer) {
      return this.runInput(run, assistantUuid, `Interrupted: ${this.interrupts.reason ?? 'the turn was interrupted'}`);
    }
    const { inputRef: hookInputRef, askable: _askable, ...rest } = prepared;
    void _askable;
    if (answer.behavior === 'allow') {
      const inputRef = answer.inputRef ?? hookInputRef;
      return {
        ...rest,
        permission: { behavior: 'allow', approved: true },
        ...(inputRef !== undefined ? { inputRef } : {}),
      };
    }
    return {
      ...rest,
      ...(hookInputRef !== undefined ? { inputRef: hookInputRef } : {}),
      permission: {
        behavior: 'deny',
        message: answer.message ?? `The user doesn't want to proceed with this tool use (${run.use.name}).`,
        reason: 'approval',
      },
    };
  }

  private runInput(run: PlannedRun, assistantUuid: string, skipReason?: string): RunToolInput {
    const { sessionId, options } = this.input;
    const cwd = this.workspace.cwd;
    const base = {
      sessionId,
      cwd,
      assistantUuid,
      toolUseId: run.use.id,
      toolName: run.use.name,
      resultUuid: run.resultUuid,
      // Left out when it is the assistant line (the activity reads it so): fewer history bytes per step.
      ...(run.parentUuid !== assistantUuid ? { parentUuid: run.parentUuid } : {}),
    };
    if (skipReason !== undefined) return { ...base, permission: { behavior: 'allow' }, skipReason };
    // With a JSON Schema the turn offers the StructuredOutput tool too; its calls are checked against the schema.
    const structured = run.use.name === STRUCTURED_OUTPUT_TOOL && options.jsonSchemaKey !== undefined;
    return {
      ...base,
      permission: this.permissionOf(run.use),
      ...readStateOf(
        // Keyed by the path as it is now (a path from an earlier host maps to this one).
        this.state.readStateOf(
          run.use.filePath === undefined ? undefined : this.workspace.currentPath(run.use.filePath),
        ),
      ),
      ...(structured ? { jsonSchemaKey: options.jsonSchemaKey } : {}),
      ...(this.state.data.mcp ? { mcpToolsRef: this.state.data.mcp.toolsRef } : {}),
      ...(run.use.name === SKILL_TOOL && options.definitionsKey !== undefined
        ? { definitionsKey: options.definitionsKey }
        : {}),
      ...(run.use.name === TOOL_SEARCH_TOOL
        ? {
            toolSearch: {
              model: this.state.model,
              ...(modelToolNames(options) ? { tools: modelToolNames(options) as string[] } : {}),
              ...(options.toolSearch !== undefined ? { mode: options.toolSearch } : {}),
              ...(this.state.data.mcp ? { mcpToolsRef: this.state.data.mcp.toolsRef } : {}),
            },
          }
        : {}),
      ...(options.approvals ? { askable: true } : {}),
      ...(optInToolsOf(options).length ? { optInTools: optInToolsOf(options) } : {}),
      // Bash re-reads the settings files' `env` (paths only travel: values stay out of history).
      ...(run.use.name === 'Bash' && options.settingsEnv ? { settingsEnv: options.settingsEnv } : {}),
      // A tool the turn did not offer (`--tools`, built-in tools only) does not run, as in Claude Code.
      ...(options.tools && !structured && !isMcpToolName(run.use.name) && !options.tools.includes(run.use.name)
        ? { skipReason: noSuchTool(run.use.name) }
        : {}),
    };
  }

  /** Plans the result line of one call at the end of the chain. */
  private plan(use: ToolUseSummary): PlannedRun {
    const run = { use, resultUuid: uuid4(), parentUuid: this.state.leaf };
    this.state.setLeaf(run.resultUuid);
    return run;
  }

  /**
   * Runs every call of one assistant message. Returns false when the turn was interrupted: the
   * calls that did not finish then have an is_error result saying so.
   */
  async runAll(assistantUuid: string, uses: readonly ToolUseSummary[]): Promise<boolean> {
    const pending = [...uses];
    const taskCalls = uses.some((u) => (TASK_TOOL_NAMES as readonly string[]).includes(u.name));
    const concurrent = taskCalls && this.taskTools ? (n: string) => CONCURRENT_TOOLS.has(n) : undefined;
    for (const batch of partitionToolUses(uses, concurrent)) {
      if (this.interrupts.requested()) break;
      this.state.startActivity(
        `runTool ${batch.map((u) => u.name).join(',')}`,
        batch.map((u) => u.label ?? u.name).join(' · '),
      );
      const planned = batch.map((use) => this.plan(use));
      const inputs: RunToolInput[] = [];
      for (const run of planned) {
        // Without hooks or approvals the input is known at once (no await, no promise per call).
        inputs.push(
          this.needsPreparing(run.use) ? await this.prepare(run, assistantUuid) : this.runInput(run, assistantUuid),
        );
      }
      const results = await this.interrupts.run(() =>
        Promise.all(inputs.map((input, i) => this.run(input, planned[i]?.use))),
      );
      if (!results) {
        // Interrupted mid-batch. Calls of the batch that finished wrote their results with the
        // planned uuid and parent; each other one gets an interrupt note under *its* planned uuid
        // and parent, so the chain prompt → … → last planned result stays whole whatever order the
        // calls finished in. (A cancelled call that still finishes later finds its uuid taken.)
        const note = `Interrupted: ${this.interrupts.reason ?? 'the turn was interrupted'}. The tool may not have finished.`;
        for (const run of planned) {
          const r = await uninterruptible(() => this.run(this.runInput(run, assistantUuid, note), run.use));
          this.recordResult(r, pending);
        }
        break;
      }
      // Calls whose check said `ask` wrote nothing: each waits for its decision and runs again.
      for (const [i, r] of results.entries()) {
        const run = planned[i];
        const input = inputs[i];
        if (r.outcome !== 'ask' || !run || !input) continue;
        const decided = await this.decideByApproval(input, run, assistantUuid, r.askReason ?? '');
        results[i] = await uninterruptible(() => this.run(decided));
      }
      for (const r of results) this.recordResult(r, pending);
      for (const [i, r] of results.entries()) {
        const run = planned[i];
        if (!run || r.outcome !== 'ok' || this.hookStop || !this.hooks.applies('PostToolUse', run.use.name)) continue;
        this.hookStop ??= await this.hooks.postToolUse(run.use, assistantUuid, r.resultUuid);
      }
      if (this.hookStop) break;
    }
    if (this.hookStop) {
      // A hook ended the turn: the calls after it get a result saying why they did not run.
      if (pending.length) await this.skipAll(assistantUuid, pending, `Not run: ${this.hookStop.errors.join('; ')}`);
      return true;
    }
    if (!this.interrupts.requested()) return true;
    if (pending.length) await this.skipAll(assistantUuid, pending, `Interrupted: ${this.interrupts.reason}`);
    return false;
  }

  /** Gives every call an is_error result saying why it did not run (one at a time, uncancellable). */
  async skipAll(assistantUuid: string, uses: readonly ToolUseSummary[], reason: string): Promise<void> {
    for (const use of uses) {
      const run = this.plan(use);
      const r = await uninterruptible(() => this.run(this.runInput(run, assistantUuid, reason), use));
      this.state.recordToolResult(r, use);
      this.state.setLeaf(r.resultUuid);
    }
  }

  private recordResult(r: RunToolSummary, pending: ToolUseSummary[]): void {
    const idx = pending.findIndex((u) => u.id === r.toolUseId);
    const use = idx >= 0 ? pending.splice(idx, 1)[0] : undefined;
    // Claude Code 2.1.328 lists an Agent call the spawn-depth limit refused among the agent's
    // tools used (recordings agent-depth, agent-depth-env): the tool is the agent's, only withheld.
    this.state.recordToolResult(r, use, use?.name === 'Agent' && atSpawnDepthLimit(this.input.options));
  }
}

/**
 * Plan mode's refusal of a call that writes a file, in Claude Code 2.1.328's words
 * (`Cannot write to <path> while in plan mode.`); other refusals keep theirs. Only the text the
 * activity gets changes (no command), so histories recorded before replay as they ran.
 */
function inPlanModeWords(p: ToolPermission, use: ToolUseSummary): ToolPermission {
  if (p.behavior !== 'deny' || p.reason !== 'mode' || use.filePath === undefined) return p;
  if (p.message !== `${use.name} is not allowed in plan mode.`) return p;
  return { ...p, message: `Cannot write to ${use.filePath} while in plan mode.` };
}

/** Claude Code 2.1.328's words for a call of a tool the agent is not offered (without the `<tool_use_error>` frame `runTool` adds). */
function noSuchTool(name: string): string {
  // A name that is no tool at all gets the plain text (as Claude Code's), a headless-disabled one says so.
  const known = LISTABLE_TOOL_NAMES.includes(name) || CLAUDE_CODE_ONLY_TOOLS.has(name);
  if (!known || HEADLESS_DISABLED_TOOL_NAMES.includes(name)) return noSuchToolText(name);
  return `Error: No such tool available: ${name}. ${name} is not among the tools available here. Continue with the tools you have.`;
}

/** The `readState` field of a run's input: absent when there is none (fewer history bytes). */
function readStateOf(state: RunToolInput['readState']): { readState?: NonNullable<RunToolInput['readState']> } {
  return state ? { readState: state } : {};
}
