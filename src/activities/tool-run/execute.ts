import { CancelledFailure, Context } from '@temporalio/activity';
import { isMcpToolName } from '../../common/mcp';
import type { RunToolSummary } from '../../common/tools';
import { EXIT_PLAN_MODE_TOOL } from '../../common/tools';
import type { ToolCallPlan } from '../../engine/tool-call-plan';
import { loadJsonSchema, runStructuredOutput } from '../structured-output';
import type { LargeResultRecord } from '../large-result';
import { keepLargeResult, materializeLargeResults } from '../large-result';
import { ALL_BUILTIN_TOOLS } from '../tools/registry';
import type { ToolContext, ToolOutput } from '../tools/types';
import { inputFaultOutput } from '../tools/input-faults';
import { isTransientToolError, toolFaultMessage } from '../tool-faults';
import { heartbeatEvery } from '../heartbeats';
import type { ToolCall, ToolRunInput } from './call';
import type { RunToolDeps } from './deps';
import { UNKNOWN_OUTCOME_TEXT, faultOutput, invalidJsonOutput, truncatedInput } from './outputs';

/** Heartbeat period of a running tool, ms (Temporal sends at most one per `worker.heartbeatThrottleMs`). */
const TOOL_HEARTBEAT_MS = 250;

/** The tool_result a call came to, before it is recorded. */
export interface ToolRun {
  out: ToolOutput & { outcome: RunToolSummary['outcome']; structuredOutput?: unknown };
  /** A denied call's input, as `permission_denials` keep it. */
  deniedInput?: unknown;
  /** A result too large for the line, kept whole as a content blob. */
  largeResult?: LargeResultRecord;
}

/**
 * Carries out a plan (every kind but `ask`): the result of a call that does not run, the check of
 * a StructuredOutput call, or the tool's run.
 */
export async function executeToolCall(
  deps: RunToolDeps,
  input: ToolRunInput,
  call: ToolCall,
  plan: Exclude<ToolCallPlan, { kind: 'ask' }>,
): Promise<ToolRun> {
  switch (plan.kind) {
    case 'skipped':
      return {
        out: {
          content: `<tool_use_error>${plan.reason}</tool_use_error>`,
          isError: true,
          structured: plan.reason,
          outcome: 'error',
        },
      };
    case 'not-found':
      return {
        out: {
          content: `<tool_use_error>Error: the tool call ${input.toolUseId} was not found in the transcript.</tool_use_error>`,
          isError: true,
          outcome: 'error',
        },
      };
    case 'invalid-json':
      return { out: invalidJsonOutput(input.toolName, plan.raw) };
    case 'input-fault':
      return { out: inputFaultOutput(plan.message) };
    case 'fault':
      return { out: faultOutput(plan.message) };
    case 'denied':
      return {
        out: { content: plan.message, isError: true, structured: `Error: ${plan.message}`, outcome: 'denied' },
        deniedInput: truncatedInput(call.toolInput),
      };
    case 'structured-output': {
      const { compiled } = await loadJsonSchema(deps.store, input.sessionId, plan.jsonSchemaKey);
      return { out: runStructuredOutput(compiled, call.toolInput) };
    }
    case 'run':
      return runTool(deps, input, call, plan.marked);
  }
}

/**
 * Runs the tool (heartbeating; cancelled with the activity). With `marked`, the run marker is
 * written first: an attempt that finds one from an earlier attempt does not run the tool again
 * and reports its outcome as unknown. A fault retrying cannot fix becomes the result.
 * @throws CancelledFailure when the activity was cancelled (the turn was interrupted)
 */
async function runTool(deps: RunToolDeps, input: ToolRunInput, call: ToolCall, marked: boolean): Promise<ToolRun> {
  const { store } = deps;
  if (marked && (await store.markToolRunStarted(input.sessionId, input.toolUseId))) {
    return { out: { content: UNKNOWN_OUTCOME_TEXT, isError: true, outcome: 'unknown' } };
  }
  const ctx = Context.current();
  // A local activity cannot heartbeat (the core does not know it): its worker's workflow task
  // is what keeps it alive, and its timeout bounds it.
  const heartbeat = ctx.info.isLocal ? () => undefined : () => ctx.heartbeat();
  const { toolInput } = call;
  const toolCtx = toolContextOf(deps, input, call, heartbeat, ctx.cancellationSignal);
  let run: ToolRun;
  // Often: a cancellation (an interrupt) arrives with a heartbeat's answer.
  const beat = heartbeatEvery(TOOL_HEARTBEAT_MS, heartbeat);
  try {
    // A large result of this session that the call names is written again if this host lacks it.
    await materializeLargeResults(store, input.sessionId, toolInput);
    const out = await dispatch(deps, input, toolInput, toolCtx);
    const kept = await keepLargeResult(out, {
      store,
      sessionId: input.sessionId,
      toolUseId: input.toolUseId,
      toolName: input.toolName,
      ...(deps.settings?.largeResultChars !== undefined ? { thresholdChars: deps.settings.largeResultChars } : {}),
    });
    run = {
      out: kept.out,
      // A session tool may refuse the call itself (a skill that needs an allow rule).
      ...(out.outcome === 'denied' ? { deniedInput: truncatedInput(toolInput) } : {}),
      ...(kept.record ? { largeResult: kept.record } : {}),
    };
  } catch (err) {
    if (ctx.cancellationSignal.aborted || isTransientToolError(err)) throw err;
    run = { out: faultOutput(toolFaultMessage(err)) };
  } finally {
    beat.stop();
  }
  if (ctx.cancellationSignal.aborted) {
    // The turn was interrupted: report the cancellation; the workflow records an interrupt note.
    // A CancelledFailure reports the attempt as cancelled (not failed), so nothing retries it.
    throw new CancelledFailure('tool run cancelled');
  }
  return run;
}

/** Runs the call on the tool that has it: an MCP server's, a session tool (Skill, ToolSearch) or a built-in. */
function dispatch(
  deps: RunToolDeps,
  input: ToolRunInput,
  toolInput: unknown,
  toolCtx: ToolContext,
): Promise<ToolOutput & { outcome: 'ok' | 'error' | 'denied' | 'invalid' }> {
  if (isMcpToolName(input.toolName) && input.mcpToolsRef && deps.executeMcpTool) {
    return deps.executeMcpTool(input.sessionId, input.mcpToolsRef, input.toolName, toolInput, toolCtx);
  }
  if (deps.sessionTools?.handles(input.toolName)) return deps.sessionTools.run(input, toolInput, toolCtx);
  // An opt-in tool (NotebookEdit) runs only in a turn that offers it.
  return input.optInTools?.includes(input.toolName)
    ? deps.executeTool(input.toolName, toolInput, toolCtx, ALL_BUILTIN_TOOLS)
    : deps.executeTool(input.toolName, toolInput, toolCtx);
}

/** What the tool gets besides its input: the session's directories, state, settings and permission's findings. */
function toolContextOf(
  deps: RunToolDeps,
  input: ToolRunInput,
  call: ToolCall,
  heartbeat: () => void,
  signal: AbortSignal,
): ToolContext {
  const { permission } = call;
  return {
    cwd: input.cwd,
    sessionId: input.sessionId,
    ...(call.shellCwd !== undefined ? { shellCwd: call.shellCwd } : {}),
    signal,
    // The workflow passes the state it holds for this call's own `file_path`.
    readState: () => input.readState ?? undefined,
    heartbeat,
    ...(deps.settings ? { settings: deps.settings } : {}),
    ...(permission.behavior === 'allow' && permission.readDenied ? { readDenied: permission.readDenied } : {}),
    ...(permission.behavior === 'allow' && permission.checkedPath !== undefined
      ? { checkedPath: permission.checkedPath }
      : {}),
    env: call.toolEnv,
    ...(call.callingModel ? { callingModel: call.callingModel } : {}),
    ...(deps.modelCalls ? { modelCalls: deps.modelCalls } : {}),
    ...(input.permission.behavior === 'allow' && input.permission.approved ? { approved: true } : {}),
    ...(input.toolName === EXIT_PLAN_MODE_TOOL
      ? { planFile: () => planFileOf(deps.store, input.sessionId, input.assistantUuid) }
      : {}),
  };
}

/** The plan file the session's environment line names (plan mode), or undefined. */
async function planFileOf(
  store: RunToolDeps['store'],
  sessionId: string,
  leafUuid: string,
): Promise<string | undefined> {
  for (const entry of await store.chain(sessionId, leafUuid)) {
    for (const a of entry.attachments ?? []) {
      const planFile = (a as { planFile?: unknown }).planFile;
      if (a.type === 'environment' && typeof planFile === 'string') return planFile;
    }
  }
  return undefined;
}
