import {
  CancellationScope,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  setHandler,
  startChild,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentPlan, AgentRunInfo, AgentToolResult, PlanAgentInput } from '../common/agent-run';
import type { AgentWorktree, AgentWorktreeInput, AgentWorktreeResult } from '../common/agent-worktree';
import { agentWorktreeRef } from '../common/workspace';
import { DEFAULT_MAX_SPAWN_DEPTH } from '../common/agents';
import type { SubagentSettings } from '../common/agents';
import { deniedAgentTypes } from '../engine/agent-rules';
import { subagentPermissionMode } from '../engine/permissions';
import { agentIdFromUuid, agentTurnWorkflowId, taskRunIdFromUuid } from '../common/ids';
import type { AgentProfile, TaskCommand, TaskFinishedMessage, TaskRecord, TaskReply } from '../common/tasks';
import type { SignalDefinition } from '@temporalio/workflow';
import type { RunToolInput, RunToolSummary } from '../common/tools';
import type { CallModelInput } from '../common/model';
import { DEFAULT_TOOL_NAMES, TASK_TOOL_NAMES } from '../common/tools';
import { SKILL_TOOL, TOOL_SEARCH_TOOL } from '../common/session-tools';
import type { TurnInput, TurnOptions, TurnOutcome } from '../common/turn';
import { WORKFLOW_STATE_VERSION } from '../common/turn';
import { LABEL_CHARS } from '../common/summary';
import { resultOfFailure } from '../common/agent-result';
import { taskFinishedSignal, taskCommandSignal, taskReplySignal, taskStartedSignal } from './messages';
import type { TurnActivities } from './turn-activities';
import type { TurnState } from './turn-state';
import { WORKTREE_HOST_LOST, type WorkspaceFollower } from './workspace';
import type { turnWorkflow } from './turn';

/**
 * The tools a turn offers the model: `options.tools`, else every tool the runner has (the task
 * tools only with `options.subagents`) and `options.approverTools`. An agent at the spawn-depth limit is not offered `Agent`,
 * as in Claude Code (CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH).
 */
export function offeredTools(o: TurnOptions): string[] {
  const all = o.tools ?? [
    ...(o.subagents ? DEFAULT_TOOL_NAMES : DEFAULT_TOOL_NAMES.filter((n) => !isTaskTool(n))),
    ...(o.approverTools ?? []),
  ];
  return all.filter((n) => !(isTaskTool(n) && !o.subagents) && !(n === 'Agent' && atSpawnDepthLimit(o)));
}

/** An agent at the spawn-depth limit: it is not offered `Agent` (CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH). */
export function atSpawnDepthLimit(o: TurnOptions): boolean {
  return (
    o.subagents !== undefined && (o.subagents.depth ?? 0) >= (o.subagents.maxSpawnDepth ?? DEFAULT_MAX_SPAWN_DEPTH)
  );
}

/**
 * The tool names `callModel` and a ToolSearch call get: absent for the default set without
 * subagents (the activity's default), else {@link offeredTools}, with Skill and ToolSearch when
 * `options.tools` is not given, so that the default set keeps them (skills, deferral) as an
 * absent list does.
 */
export function modelToolNames(o: TurnOptions): string[] | undefined {
  if (!o.tools && !o.subagents && !o.approverTools) return undefined;
  const names = offeredTools(o);
  return o.tools ? names : [...names, SKILL_TOOL, TOOL_SEARCH_TOOL];
}

/**
 * What `callModel` needs to list the session's agent types to the model, as Claude Code 2.1.328
 * does to an agent offered `Agent`: the session's own agent (depth 0) and a fork (its parent's
 * conversation) in the environment message, a subagent in a system message after its first tool
 * results. The list is the stored one (`agentsRef`), else the built-in types.
 */
export function agentListingInput(o: TurnOptions): Pick<CallModelInput, 'agentTypes'> {
  if (!o.subagents || !offeredTools(o).includes('Agent')) return {};
  const own = (o.subagents.depth ?? 0) === 0 || o.subagents.fork === true;
  const denied = deniedAgentTypes(o.disallowedTools);
  return {
    agentTypes: {
      ...(o.agentsRef ? { ref: o.agentsRef } : {}),
      ...(denied.length > 0 ? { denied } : {}),
      ...(own ? {} : { afterFirstResults: true as const }),
    },
  };
}

/** The turn's subagent settings without what holds for its own agent only (a fork's mark). */
function subagentsOf(o: TurnOptions): Omit<SubagentSettings, 'fork'> {
  const { fork: _fork, ...rest } = o.subagents ?? {};
  void _fork;
  return rest;
}

/** The `Agent(<type>)` deny rules of a turn, for `planAgent` (nothing when there are none). */
function agentTypeRules(o: TurnOptions): Pick<PlanAgentInput, 'deniedAgentTypes' | 'agentRuleSources'> {
  const denied = deniedAgentTypes(o.disallowedTools);
  if (denied.length === 0) return {};
  return { deniedAgentTypes: denied, ...(o.agentRuleSources ? { agentRuleSources: o.agentRuleSources } : {}) };
}

function isTaskTool(name: string): boolean {
  return (TASK_TOOL_NAMES as readonly string[]).includes(name);
}

/** How long a turn waits for its session to answer a question about the task table (ms). */
const REPLY_TIMEOUT_MS = 60_000;

/**
 * The task tools of a turn: `Agent` (a subagent as a child `turnWorkflow`), `SendMessage`,
 * `TaskStop` and `ListAgents`. The workflow answers them itself; activities only read their input
 * and write their results. A foreground agent is a child the call waits for (cancelled with the
 * turn); a background one is started to outlive the turn (parent close policy ABANDON) and held
 * by the session, which it tells of its end. The session keeps the task table: this turn tells it
 * of the runs it starts, and asks it (`taskCommand`, answered by `taskReply`) for the rest.
 */
export class TaskTools {
  private readonly replies = new Map<string, TaskReply>();

  constructor(
    private readonly input: TurnInput,
    private readonly state: TurnState,
    private readonly acts: TurnActivities,
    private readonly workspace: WorkspaceFollower,
  ) {
    setHandler(taskReplySignal, (r) => {
      this.replies.set(r.requestId, r);
    });
  }

  /** True for a call this class answers: a task tool the turn offers. */
  handles(name: string): boolean {
    return (TASK_TOOL_NAMES as readonly string[]).includes(name) && this.offered().includes(name);
  }

  private offered(): readonly string[] {
    return offeredTools(this.input.options);
  }

  /** Runs one call; its tool_result line is written under `call.resultUuid`. */
  async run(call: RunToolInput): Promise<RunToolSummary> {
    if (call.toolName === 'Agent') return this.agent(call);
    const read = await this.acts.readTaskCall({
      sessionId: call.sessionId,
      assistantUuid: call.assistantUuid,
      toolUseId: call.toolUseId,
      toolName: call.toolName as 'SendMessage' | 'TaskStop' | 'ListAgents',
      resultUuid: call.resultUuid,
      parentUuid: call.parentUuid ?? call.assistantUuid,
      permission: call.permission,
    });
    if (read.kind === 'invalid') return read.result;
    if (read.kind === 'stop' && read.taskId === null) return this.result(call, { kind: 'missing-task-id' });
    if (!this.input.sessionWorkflowId) {
      return this.result(call, { kind: 'unavailable', message: 'Tasks need a session: this turn runs alone.' });
    }
    const command: TaskCommand =
      read.kind === 'list'
        ? { kind: 'list' }
        : read.kind === 'stop'
          ? { kind: 'stop', taskId: read.taskId ?? '', killedBy: 'parent' }
          : { kind: 'send', to: read.to, messageRef: read.messageRef, toolUseId: call.toolUseId };
    const reply = await this.ask(command);
    return this.result(call, await this.answerOf(call, command, reply));
  }

  /** What the session's answer means for the call (a finished agent a message goes to runs again). */
  private async answerOf(call: RunToolInput, command: TaskCommand, reply: TaskReply | null): Promise<AgentToolResult> {
    if (!reply) return { kind: 'unavailable', message: 'The session did not answer: try again.' };
    switch (reply.kind) {
      case 'list':
        return {
          kind: 'list',
          rows: reply.rows.map((r) => ({
            taskId: r.taskId,
            agentType: r.agentType,
            status: r.status,
            ageSeconds: Math.max(0, Math.round((reply.nowMs - r.startedAtMs) / 1000)),
          })),
        };
      case 'stopped':
        return { kind: 'stopped', taskId: reply.taskId, description: reply.description, taskType: reply.taskType };
      case 'queued':
        return { kind: 'queued', agentId: reply.taskId };
      case 'resume':
        if (command.kind !== 'send') return { kind: 'unavailable', message: 'unexpected answer' };
        await this.resume(call, reply.record, command);
        return { kind: 'resumed', agentId: reply.record.taskId };
      case 'unknown':
        return command.kind === 'stop'
          ? { kind: 'no-task', taskId: command.taskId }
          : { kind: 'unreachable', to: command.kind === 'send' ? command.to : '' };
    }
  }

  /** Asks the session; null when it does not answer in time. */
  private async ask(command: TaskCommand): Promise<TaskReply | null> {
    const requestId = uuid4();
    const sent = await this.tellSession(taskCommandSignal, {
      requestId,
      replyTo: workflowInfo().workflowId,
      command,
    });
    if (!sent) return null;
    await condition(() => this.replies.has(requestId), REPLY_TIMEOUT_MS);
    const reply = this.replies.get(requestId) ?? null;
    this.replies.delete(requestId);
    return reply;
  }

  /** Writes the call's tool_result. */
  private result(call: RunToolInput, result: AgentToolResult): Promise<RunToolSummary> {
    return this.acts.recordAgentResult({
      sessionId: call.sessionId,
      toolUseId: call.toolUseId,
      toolName: call.toolName,
      resultUuid: call.resultUuid,
      parentUuid: call.parentUuid ?? call.assistantUuid,
      result,
    });
  }

  /** An `Agent` call: plan it, start the child, wait for it (foreground) or hand it to the session. */
  private async agent(call: RunToolInput): Promise<RunToolSummary> {
    const o = this.input.options;
    const depth = (o.subagents?.depth ?? 0) + 1;
    const agentId = agentIdFromUuid(uuid4());
    const promptUuid = uuid4();
    const plan = await this.acts.planAgent({
      sessionId: call.sessionId,
      cwd: call.cwd,
      assistantUuid: call.assistantUuid,
      toolUseId: call.toolUseId,
      resultUuid: call.resultUuid,
      parentUuid: call.parentUuid ?? call.assistantUuid,
      ...(o.agentsRef ? { agentsRef: o.agentsRef } : {}),
      parentTools: [...this.offered()],
      parentModel: this.state.model,
      ...(o.systemPromptKey !== undefined ? { parentSystemPromptKey: o.systemPromptKey } : {}),
      depth,
      maxSpawnDepth: o.subagents?.maxSpawnDepth ?? DEFAULT_MAX_SPAWN_DEPTH,
      backgroundTasks: o.subagents?.backgroundTasks !== false && this.input.sessionWorkflowId !== undefined,
      agentId,
      promptUuid,
      permission: call.permission,
      ...agentTypeRules(o),
      worktrees: true,
    });
    if (!plan.ok) return plan.result;
    // `isolation: "worktree"`: the agent's own git worktree on the workspace's host, before it starts.
    const made = plan.isolation === 'worktree' ? await this.worktree({ op: 'create', cwd: call.cwd, agentId }) : null;
    if (made?.op === 'create' && !made.ok) return this.result(call, { kind: 'unavailable', message: made.message });
    const worktree = made?.op === 'create' && made.ok ? made.worktree : null;
    if (worktree) plan.worktree = { path: worktree.path, branch: worktree.branch };
    const run: AgentRunInfo = {
      agentId,
      agentType: plan.agentType,
      runId: taskRunIdFromUuid(uuid4()),
      run: 1,
      depth,
      toolUseId: call.toolUseId,
      background: plan.background,
      description: plan.description,
      ...(this.input.agent ? { parentTaskId: this.input.agent.agentId } : {}),
      ...(plan.fork ? { promptWritten: true } : {}),
      outputFile: plan.outputFile,
      ...(plan.caps ? { caps: plan.caps } : {}),
      subagentHooks: true,
    };
    const child = this.childInput(run, plan, promptUuid, plan.fork ? call.assistantUuid : null);
    await this.tellSession(taskStartedSignal, { record: this.recordOf(run, plan, child), requested: plan.requested });
    return this.launch(call, run, child, plan.model, worktree);
  }

  /** Runs `agentWorktree` where the workspace is (its cwd there for `create`). */
  private worktree(input: AgentWorktreeInput): Promise<AgentWorktreeResult> {
    return this.workspace.onWorkspaceHost(
      (acts, cwd) => acts.agentWorktree(input.op === 'create' ? { ...input, cwd } : input),
      this.acts,
    );
  }

  /** A foreground agent's worktree at its end: removed when unchanged, else reported (path, branch). */
  private async endWorktree(
    worktree: AgentWorktree | null,
  ): Promise<Pick<AgentToolResult & { kind: 'handback' }, 'worktree'>> {
    if (!worktree) return {};
    const done = await this.worktree({ op: 'finish', worktree });
    return done.op === 'finish' && done.kept ? { worktree: { path: worktree.path, branch: worktree.branch } } : {};
  }

  /** Starts a run: in the background (the session holds it) or in the foreground (this call waits for it). */
  private async launch(
    call: RunToolInput,
    run: AgentRunInfo,
    child: TurnInput,
    model: string,
    worktree: AgentWorktree | null = null,
  ): Promise<RunToolSummary> {
    const workflowId = child.turnId;
    const meta = {
      workflowId,
      args: [child] as [TurnInput],
      staticSummary: `agent ${run.agentId} (${run.agentType}): ${run.description}`.slice(0, 4 * LABEL_CHARS),
      staticDetails: `**session** \`${this.input.sessionId}\`  \n**model** \`${model}\`  \n**depth** ${run.depth}`,
    };
    if (run.background) {
      await startChild<typeof turnWorkflow>('turnWorkflow', {
        ...meta,
        parentClosePolicy: ParentClosePolicy.ABANDON,
        cancellationType: ChildWorkflowCancellationType.ABANDON,
      });
      return this.result(call, { kind: 'launched', agentId: run.agentId, outputFile: run.outputFile });
    }
    const handle = await startChild<typeof turnWorkflow>('turnWorkflow', meta);
    let outcome: TurnOutcome;
    try {
      outcome = await handle.result();
    } catch (err) {
      // The turn was interrupted: the child is cancelled with it and ends as killed.
      if (isCancellation(err)) {
        await this.tellFinished(run, null, 'killed');
        throw err;
      }
      // An error result fails the child workflow and travels in the failure.
      const failed = resultOfFailure<TurnOutcome>(err);
      if (!failed) throw err;
      outcome = failed;
    }
    this.state.addChildSpend(outcome.modelUsage);
    const report = outcome.agent ?? {
      usage: { totalTokens: 0, toolUses: 0, durationMs: 0, costUsd: 0 },
      toolsUsed: [],
    };
    // A background agent's worktree stays (its run ends without this turn): docs/agents.md, "Worktrees".
    const kept = await this.endWorktree(worktree);
    const summary = await this.result(call, {
      kind: 'handback',
      agentId: run.agentId,
      lastAssistantUuid: outcome.lastAssistantUuid,
      report,
      outputFile: run.outputFile,
      // No line recorded (a run that failed at its start): the hand-back reads no sidechain.
      leafUuid: outcome.leafUuid ?? '',
      agentTurnId: workflowId,
      ...kept,
      // A worktree lost with its host: the report is why the agent stopped (docs/agents.md, "Worktrees").
      ...(outcome.subtype !== 'success' &&
      outcome.errors.length > 0 &&
      (outcome.lastAssistantUuid === null || outcome.terminalReason === WORKTREE_HOST_LOST)
        ? { error: outcome.errors.join('\n') }
        : {}),
    });
    await this.tellFinished(
      run,
      outcome,
      report.killedBy !== undefined ? 'killed' : outcome.isError ? 'failed' : 'completed',
    );
    return summary;
  }

  /**
   * SendMessage to a finished agent: its next run, in the background, from its leaf, with the
   * message as its prompt (written by the run as its first line).
   */
  private async resume(
    call: RunToolInput,
    record: TaskRecord,
    command: Extract<TaskCommand, { kind: 'send' }>,
  ): Promise<void> {
    const agent = record.agent;
    const runNumber = record.run + 1;
    const run: AgentRunInfo = {
      agentId: record.taskId,
      agentType: agent?.agentType ?? 'general-purpose',
      runId: taskRunIdFromUuid(uuid4()),
      run: runNumber,
      depth: agent?.depth ?? 1,
      toolUseId: call.toolUseId,
      background: true,
      description: record.description,
      ...(agent?.parentTaskId !== undefined ? { parentTaskId: agent.parentTaskId } : {}),
      outputFile: record.refs.outputFile ?? '',
      subagentHooks: true,
    };
    const child: TurnInput = {
      // Its type's restrictions as at its first run (outsider F2: a resumed agent had the parent's tools).
      ...this.childInput(run, null, uuid4(), record.refs.leafUuid ?? null, agent?.profile ?? null),
      promptRef: command.messageRef,
    };
    const resumed: TaskRecord = {
      ...record,
      agentToolUseId: record.agentToolUseId ?? record.toolUseId,
      runId: run.runId,
      run: runNumber,
      status: 'running',
      owner: 'session',
      toolUseId: call.toolUseId,
      startedBy: workflowInfo().workflowId,
      startedAtMs: Date.now(),
      workflowId: child.turnId,
    };
    delete resumed.endedAtMs;
    delete resumed.usage;
    delete resumed.killedBy;
    await this.tellSession(taskStartedSignal, { record: resumed });
    await startChild<typeof turnWorkflow>('turnWorkflow', {
      workflowId: child.turnId,
      args: [child],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      cancellationType: ChildWorkflowCancellationType.ABANDON,
    });
  }

  /**
   * The input of a run's child turn: this turn's options with the agent's model, tools, system
   * prompt and limits, in the same session (its lines are the agent's sidechain).
   */
  private childInput(
    run: AgentRunInfo,
    plan: AgentPlan | null,
    promptUuid: string,
    parentUuid: string | null,
    profile: AgentProfile | null = plan ? profileOf(plan) : null,
  ): TurnInput {
    const o = this.input.options;
    const {
      jsonSchemaKey: _schema,
      includePartialMessages: _partial,
      appendSystemPromptKey,
      systemPromptKey,
      ...rest
    } = o;
    void _schema;
    void _partial;
    const fork = profile?.fork === true;
    // One budget: the child may spend what is left of this turn's USD limit (or its own cap, if lower).
    const parentLimit = this.state.data.limits.maxBudgetUsd;
    const left = parentLimit !== undefined ? Math.max(0, parentLimit - this.state.cost().usd) : undefined;
    const cap = run.caps?.maxBudgetUsd;
    const maxBudgetUsd = left === undefined ? cap : cap === undefined ? left : Math.min(left, cap);
    const maxTurns = narrowest(profile?.maxTurns, o.limits.maxTurns);
    const limits = {
      // The type's `maxTurns` narrows the session's, never widens it (outsider F8).
      ...(maxTurns !== undefined ? { maxTurns } : {}),
      ...(maxBudgetUsd !== undefined ? { maxBudgetUsd } : {}),
    };
    const options: TurnOptions = {
      ...rest,
      model: plan?.model ?? o.model,
      ...(profile ? { tools: profile.tools } : {}),
      ...(profile?.ownToolList ? { ownToolList: true as const } : {}),
      limits,
      // The type's mode (frontmatter `permissionMode`) when it narrows the parent's, never wider.
      ...(profile?.permissionMode &&
      subagentPermissionMode(o.permissionMode, profile.permissionMode) !== o.permissionMode
        ? { permissionMode: profile.permissionMode }
        : {}),
      ...(profile?.effort ? { thinking: { ...o.thinking, effort: profile.effort } } : {}),
      ...(fork && systemPromptKey !== undefined ? { systemPromptKey } : {}),
      ...(fork && appendSystemPromptKey !== undefined ? { appendSystemPromptKey } : {}),
      ...(!fork && profile?.systemPromptKey !== undefined ? { systemPromptKey: profile.systemPromptKey } : {}),
      subagents: { ...subagentsOf(o), depth: run.depth, ...(fork ? { fork: true as const } : {}) },
    };
    return {
      v: WORKFLOW_STATE_VERSION,
      sessionId: this.input.sessionId,
      turnId: agentTurnWorkflowId(this.input.sessionId, run.agentId, run.run),
      turnNumber: this.input.turnNumber,
      cwd: plan?.worktree?.path ?? this.workspace.cwd,
      ...(plan ? { promptRef: plan.promptRef } : {}),
      promptLine: plan?.promptLine ?? run.description.slice(0, LABEL_CHARS),
      promptUuid,
      parentUuid,
      options,
      readFileState: {},
      ...(this.input.sessionWorkflowId ? { sessionWorkflowId: this.input.sessionWorkflowId } : {}),
      ...this.childWorkspace(run, plan),
      agent: run,
    };
  }

  /** Where the child's tree is: this turn's workspace, or the agent's worktree on its host. */
  private childWorkspace(run: AgentRunInfo, plan: AgentPlan | null): Pick<TurnInput, 'workspace'> {
    const ref = this.workspace.ref;
    if (!ref) return {};
    return { workspace: plan?.worktree ? agentWorktreeRef(ref, run.agentId, plan.worktree.path) : ref };
  }

  private recordOf(run: AgentRunInfo, plan: AgentPlan, child: TurnInput): TaskRecord {
    return {
      kind: 'agent',
      taskId: run.agentId,
      runId: run.runId,
      run: run.run,
      status: 'running',
      owner: run.background ? 'session' : 'turn',
      description: run.description,
      toolUseId: run.toolUseId,
      startedBy: workflowInfo().workflowId,
      startedAtMs: Date.now(),
      workflowId: child.turnId,
      refs: { outputFile: run.outputFile },
      agent: {
        agentType: plan.agentType,
        depth: run.depth,
        ...(run.parentTaskId !== undefined ? { parentTaskId: run.parentTaskId } : {}),
        model: plan.model,
        ...(plan.worktree ? { worktree: plan.worktree } : {}),
        profile: profileOf(plan),
      },
    };
  }

  /** Tells the session that a foreground run it held ended (a background run tells it itself). */
  private async tellFinished(
    run: AgentRunInfo,
    outcome: TurnOutcome | null,
    status: TaskFinishedMessage['status'],
  ): Promise<void> {
    const report = outcome?.agent;
    await this.tellSession(taskFinishedSignal, {
      taskId: run.agentId,
      runId: run.runId,
      status,
      endedAtMs: Date.now(),
      usage: report?.usage ?? { totalTokens: 0, toolUses: 0, durationMs: 0, costUsd: outcome?.costUsd ?? 0 },
      modelUsage: outcome?.modelUsage ?? {},
      refs: {
        ...(outcome?.leafUuid ? { leafUuid: outcome.leafUuid } : {}),
        ...(outcome?.lastAssistantUuid ? { resultUuid: outcome.lastAssistantUuid } : {}),
        outputFile: run.outputFile,
      },
      ...(report?.toolsUsed ? { toolsUsed: report.toolsUsed } : {}),
      ...(status === 'killed' ? { killedBy: report?.killedBy ?? 'parent' } : {}),
    });
  }

  /** Signals the session (not cancellable: the table must hear of every run); false without one. */
  private async tellSession<A>(signal: SignalDefinition<[A]>, arg: A): Promise<boolean> {
    const id = this.input.sessionWorkflowId;
    if (!id) return false;
    return CancellationScope.nonCancellable(() =>
      getExternalWorkflowHandle(id)
        .signal(signal, arg)
        .then(
          () => true,
          () => false,
        ),
    );
  }
}

/** The restrictions of a plan's runs, kept on its task record for a resumed run. */
function profileOf(plan: AgentPlan): AgentProfile {
  return {
    tools: plan.tools,
    ...(plan.ownToolList ? { ownToolList: true as const } : {}),
    ...(plan.maxTurns !== undefined ? { maxTurns: plan.maxTurns } : {}),
    ...(plan.permissionMode ? { permissionMode: plan.permissionMode } : {}),
    ...(plan.effort ? { effort: plan.effort } : {}),
    ...(plan.systemPromptKey !== undefined ? { systemPromptKey: plan.systemPromptKey } : {}),
    ...(plan.fork ? { fork: true as const } : {}),
  };
}

/** The lower of two optional limits (absent: no limit). */
function narrowest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}
