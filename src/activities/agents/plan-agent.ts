/**
 * `planAgent`: checks one `Agent` call and prepares its run. It reads the call's input from the
 * stored assistant line, resolves the agent type from the session's list, picks the model and
 * tools, stores the agent's prompt and system prompt as content, and for a fork writes the fork's
 * first line (the parent's call answered, then the directive). A call it refuses gets its
 * is_error tool_result here, in Claude Code 2.1.328's words. Idempotent: content is
 * content-addressed and lines are first-writer-wins by the uuids the workflow passed.
 */
import { z } from 'zod';
import type { AgentDefinition } from '../../common/agents';
import { loadAgentList } from './agent-list';
import {
  AGENT_MODEL_ALIASES,
  DEFAULT_AGENT_TYPE,
  FORK_AGENT_TYPE,
  agentTools,
  hasOwnToolList,
  compareAgentNames,
  findAgent,
} from '../../common/agents';
import type { AgentPlan, AgentRefusal, PlanAgentInput } from '../../common/agent-run';
import type { AgentRequest } from '../../common/tasks';
import { EFFORT_LEVELS, type EffortLevel } from '../../common/thinking';
import { TASK_DESCRIPTION_CHARS } from '../../common/tasks';
import type { ContentBlock, TranscriptEntry } from '../../common/transcript';
import { TRANSCRIPT_SCHEMA_VERSION } from '../../common/transcript';
import { agentTurnWorkflowId } from '../../common/ids';
import { firstLine } from '../../common/summary';
import { resolveModelAlias } from '../../config/model-aliases';
import { putContextContent } from '../../store/context-content';
import { storePrompt } from '../../store/prompt-content';
import { uuidV5 } from '../../store/uuid';
import type { TranscriptStore } from '../../store/transcript-store';
import { validationErrorDetail, validationErrorText } from '../tools/execute';
import { toolUseError } from '../tools/format';
import { agentSystemPrompt } from './system-prompt';
import { decideAgentType } from '../permissions/agent-type';
import { FORK_STARTED, forkDirectiveText, unknownAgentType } from './texts';
import { agentOutputFile } from './output-file';
import { writeDenialIfDenied, writeToolResult } from './tool-result-line';

/** The Agent tool's input, as 2.1.328's schema (no other keys). */
export const AgentInputSchema = z.strictObject({
  description: z.string(),
  prompt: z.string(),
  subagent_type: z.string().optional(),
  model: z.enum(AGENT_MODEL_ALIASES).optional(),
  effort: z.enum(['low', 'medium', 'high', 'xhigh', 'max']).optional(),
  run_in_background: z.boolean().optional(),
  isolation: z.enum(['worktree', 'remote']).optional(),
});
export type AgentInput = z.infer<typeof AgentInputSchema>;

/** The nesting refusal (Claude Code's words; normally the tool is withdrawn first). */
export function depthLimitText(depth: number, max: number): string {
  return `Subagent nesting limit reached (depth ${depth} of ${max}). Complete this task directly using your tools instead of spawning another agent. If the user explicitly requested deeper nesting, ask them to raise CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH.`;
}

/** The `tool_use` input of a call, from its stored assistant line. */
async function callInput(store: TranscriptStore, i: PlanAgentInput): Promise<unknown> {
  const line = await store.get(i.sessionId, i.assistantUuid);
  const content = (Array.isArray(line?.message?.content) ? line.message.content : []) as ContentBlock[];
  return content.find((b) => b.type === 'tool_use' && b['id'] === i.toolUseId)?.['input'];
}

/**
 * The tool_result text of an Agent call with `isolation` the runner does not build (`remote`; and
 * `worktree` from a workflow built before worktrees, docs/agents.md): the call is refused so that
 * the model does not take the agent for isolated.
 */
export function isolationUnavailableText(isolation: 'worktree' | 'remote'): string {
  return (
    `isolation: "${isolation}" is not available in agent-runner yet. ` +
    "Call Agent again without isolation: the agent then works in this session's working directory, on the same files."
  );
}

/** Creates `planAgent`. */
export function createPlanAgent(store: TranscriptStore): (input: PlanAgentInput) => Promise<AgentPlan | AgentRefusal> {
  return async (i) => {
    const raw = await callInput(store, i);
    const refuse = async (content: string, structured: unknown, refused?: 'depth_limit'): Promise<AgentRefusal> => ({
      ok: false,
      result: await writeToolResult(store, {
        sessionId: i.sessionId,
        toolUseId: i.toolUseId,
        toolName: 'Agent',
        resultUuid: i.resultUuid,
        parentUuid: i.parentUuid,
        content,
        isError: true,
        structured,
        outcome: 'invalid',
      }),
      ...(refused ? { refused } : {}),
    });
    const parsed = AgentInputSchema.safeParse(raw ?? {});
    if (!parsed.success) {
      return refuse(validationErrorText('Agent', parsed.error.issues, raw), validationErrorDetail(parsed.error.issues));
    }
    const call = {
      sessionId: i.sessionId,
      toolUseId: i.toolUseId,
      toolName: 'Agent',
      resultUuid: i.resultUuid,
      parentUuid: i.parentUuid,
    };
    const refusal = await writeDenialIfDenied(store, call, i.permission, raw);
    if (refusal) return { ok: false, result: refusal };
    const input = parsed.data;
    // Refused, not ignored: an agent the model believes isolated would write the session's tree.
    if (input.isolation !== undefined && !(input.isolation === 'worktree' && i.worktrees)) {
      const text = isolationUnavailableText(input.isolation);
      return refuse(toolUseError(text), text);
    }
    if (i.depth > i.maxSpawnDepth) {
      const text = depthLimitText(i.depth - 1, i.maxSpawnDepth);
      return refuse(toolUseError(text), text, 'depth_limit');
    }
    const type = input.subagent_type ?? DEFAULT_AGENT_TYPE;
    const fork = type === FORK_AGENT_TYPE;
    const denied = i.deniedAgentTypes ?? [];
    const deniedType = fork ? undefined : decideAgentType(type, denied, i.agentRuleSources);
    if (deniedType !== undefined) return refuse(deniedType, deniedType);
    const agents = (await loadAgentList(store, i.sessionId, i.agentsRef)).filter((a) => !denied.includes(a.agentType));
    const def = fork ? undefined : findAgent(agents, type);
    if (!fork && !def) {
      const names = agents.map((a) => a.agentType).sort(compareAgentNames);
      const text = unknownAgentType(type, names);
      return refuse(text, text);
    }
    const model = fork ? i.parentModel : modelOf(input, def, i.parentModel);
    const background = i.backgroundTasks && (input.run_in_background ?? def?.background ?? true);
    const requested: AgentRequest =
      input.run_in_background === undefined ? 'unset' : input.run_in_background ? 'background' : 'foreground';
    const outputFile = agentOutputFile(i.sessionId, i.cwd, i.agentId);
    const promptRef = await storePrompt(store, i.sessionId, fork ? forkDirectiveText(input.prompt) : input.prompt);
    const plan: AgentPlan = {
      ok: true,
      agentType: fork ? FORK_AGENT_TYPE : type,
      model,
      tools: fork ? [...i.parentTools] : agentTools(def ?? {}, i.parentTools, i.depth, i.maxSpawnDepth),
      ...(!fork && def && hasOwnToolList(def) ? { ownToolList: true as const } : {}),
      background,
      requested,
      description: input.description.slice(0, TASK_DESCRIPTION_CHARS),
      promptRef,
      promptLine: firstLine(input.prompt),
      fork,
      ...(input.isolation === 'worktree' ? { isolation: 'worktree' as const } : {}),
      outputFile,
      ...(def?.caps ? { caps: def.caps } : {}),
      ...(def?.maxTurns !== undefined ? { maxTurns: def.maxTurns } : {}),
      ...(def?.permissionMode !== undefined ? { permissionMode: def.permissionMode } : {}),
      ...effortOf(input, def),
    };
    if (fork) {
      await writeForkStart(store, i, input.prompt);
      return plan;
    }
    const system = await agentSystemPrompt(def!, model, async (ref) => {
      const body = await store.getContent(i.sessionId, ref.key);
      if (!body) throw new Error(`session ${i.sessionId}: the agent prompt ${ref.key} is not in the store`);
      return body.toString('utf8');
    });
    return { ...plan, systemPromptKey: await putContextContent(store, i.sessionId, 'agent-system-prompt', system) };
  };
}

/** The agent's effort: the call's `effort`, else its type's (a level the schema knows), else none (the parent's). */
function effortOf(input: AgentInput, def: AgentDefinition | undefined): Pick<AgentPlan, 'effort'> {
  if (input.effort !== undefined) return { effort: input.effort };
  const own = def?.effort;
  return own !== undefined && (EFFORT_LEVELS as readonly string[]).includes(own) ? { effort: own as EffortLevel } : {};
}

/** The agent's model: the call's alias, else its type's (unless `inherit`), else the parent's. */
function modelOf(input: AgentInput, def: AgentDefinition | undefined, parentModel: string): string {
  if (input.model !== undefined) return resolveModelAlias(input.model);
  if (def?.model !== undefined && def.model !== 'inherit') return resolveModelAlias(def.model);
  return parentModel;
}

/**
 * A fork's first line: the parent's Agent call answered ("Fork started — that fork is you.") and
 * the directive, hanging from the parent's assistant line, written as the fork's own turn's line.
 */
async function writeForkStart(store: TranscriptStore, i: PlanAgentInput, directive: string): Promise<void> {
  const turnId = agentTurnWorkflowId(i.sessionId, i.agentId, 1);
  const entry: TranscriptEntry = {
    v: TRANSCRIPT_SCHEMA_VERSION,
    type: 'user',
    uuid: i.promptUuid,
    parentUuid: await forkCallLine(store, i, turnId),
    sessionId: i.sessionId,
    timestamp: new Date().toISOString(),
    message: {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: i.toolUseId, content: [{ type: 'text', text: FORK_STARTED }] },
        { type: 'text', text: forkDirectiveText(directive) },
      ],
    },
    turnId,
    cwd: i.cwd,
  };
  await store.append(entry);
}

/**
 * The line a fork's conversation continues from: the parent's call, as Claude Code 2.1.328 gives
 * it to the fork (recorded in agent-fork): that response's Agent tool_use block only, without the
 * text or other calls beside it. A copy with just that block (a line of the fork, no usage) when
 * the response has more; the parent's line itself otherwise.
 * @returns its uuid (derived from the fork's first line: the same on a retry)
 */
async function forkCallLine(store: TranscriptStore, i: PlanAgentInput, turnId: string): Promise<string> {
  const call = await store.get(i.sessionId, i.assistantUuid);
  const content = call?.message?.content;
  if (!call?.message || !Array.isArray(content)) return i.assistantUuid;
  const own = content.filter((b) => b.type === 'tool_use' && b.id === i.toolUseId);
  if (own.length === 0 || own.length === content.length) return i.assistantUuid;
  const uuid = uuidV5(`${i.promptUuid}/fork-call`);
  await store.append({
    v: TRANSCRIPT_SCHEMA_VERSION,
    type: 'assistant',
    uuid,
    parentUuid: call.parentUuid,
    sessionId: i.sessionId,
    timestamp: call.timestamp,
    message: {
      role: 'assistant',
      content: own,
      ...(call.message.model !== undefined ? { model: call.message.model } : {}),
    },
    turnId,
    cwd: i.cwd,
  } as TranscriptEntry);
  return uuid;
}
