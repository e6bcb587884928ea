/**
 * A subagent's run in the parent's `stream-json` stream, as Claude Code 2.1.328 streams it
 * (recordings agent-foreground, agent-background, agent-custom-flag): `system/task_started`, the
 * agent's own `user` and `assistant` messages marked with `parent_tool_use_id` (its Agent call),
 * `agent_id`, `subagent_type` and `task_description`, a `system/task_progress` before each of its
 * tool calls, then `system/task_updated` and `system/task_notification` once it ended.
 *
 * Read from the store after the run ended: the agent's lines are its child turn's events (the
 * sidechain), the figures its task record's. Claude Code streams them while the agent runs; here
 * they come when its run ends (docs/compatibility.md).
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { SDKMessage } from '../common/sdk-messages';
import type {
  SDKBackgroundTasksChangedMessage,
  SDKTaskNotificationMessage,
  SDKTaskProgressMessage,
  SDKTaskStartedMessage,
  SDKTaskUpdatedMessage,
} from '../common/sdk-task-messages';
import type { TaskRecord } from '../common/tasks';
import type { TranscriptEntry } from '../common/transcript';
import type { TurnOutcome } from '../common/turn';
import { relativeTo } from '../common/summary';
import { resultOfFailure } from '../common/agent-result';
import { entryToSdkMessages } from './sdk-message';

/** What {@link agentRunMessages} reads with. */
export interface SubagentStreamDeps {
  client: Client;
  sessionId: string;
  cwd: string;
  readEntry(uuid: string): Promise<TranscriptEntry | undefined>;
  /** The session's task table now (an agent's own agents are found in it); [] when it cannot answer. */
  tasks?(): Promise<TaskRecord[]>;
}

/** Claude Code's progress text for a tool call (`Reading a.txt`, `Running <description>`). */
export function toolProgressText(name: string, input: unknown, cwd: string): string {
  const i = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  const str = (k: string): string | undefined => (typeof i[k] === 'string' && i[k] !== '' ? i[k] : undefined);
  const path = (k: string): string => relativeTo(cwd, str(k) ?? '');
  switch (name) {
    case 'Bash':
      return `Running ${str('description') ?? str('command') ?? ''}`;
    case 'Read':
      return `Reading ${path('file_path')}`;
    case 'Write':
      return `Writing ${path('file_path')}`;
    case 'Edit':
    case 'NotebookEdit':
      return `Editing ${path(name === 'Edit' ? 'file_path' : 'notebook_path')}`;
    case 'Glob':
      return `Finding ${str('pattern') ?? ''}`;
    case 'Grep':
      return `Searching for ${str('pattern') ?? ''}`;
    case 'Agent':
      return str('description') ?? name;
    default:
      return name;
  }
}

const contextTokens = (e: TranscriptEntry): number => {
  const u = (e.message?.usage ?? {}) as Record<string, unknown>;
  const n = (k: string): number => (typeof u[k] === 'number' ? u[k] : 0);
  return n('input_tokens') + n('cache_creation_input_tokens') + n('cache_read_input_tokens') + n('output_tokens');
};

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content
          .filter((b: { type?: string }) => b.type === 'text')
          .map((b: { text?: string }) => b.text ?? '')
          .join('')
      : '';

/** The tool_use ids a user message answers. */
function resultIds(m: SDKMessage | undefined): string[] {
  if (m?.type !== 'user' || !Array.isArray(m.message.content)) return [];
  return (m.message.content as Array<{ type?: string; tool_use_id?: string }>)
    .filter((b) => b.type === 'tool_result')
    .map((b) => b.tool_use_id ?? '');
}

/**
 * A subagent's message as Claude Code streams it: marked with its Agent call, and a tool's
 * structured result kept only when it is an error's text (recorded: none on a successful call).
 */
function subagentMessage(m: SDKMessage, fields: Record<string, string>): SDKMessage {
  if (m.type !== 'user' || m.tool_use_result === undefined || typeof m.tool_use_result === 'string') {
    return { ...m, ...fields } as SDKMessage;
  }
  const rest: Record<string, unknown> = { ...m, ...fields };
  delete rest['tool_use_result'];
  return rest as unknown as SDKMessage;
}

/** The child turn's outcome (a failed turn carries it too); undefined when it cannot be had. */
async function outcomeOf(client: Client, workflowId: string): Promise<TurnOutcome | undefined> {
  try {
    return await client.workflow.getHandle<() => Promise<TurnOutcome>>(workflowId).result();
  } catch (err) {
    return resultOfFailure<TurnOutcome>(err) ?? undefined;
  }
}

/**
 * The messages of one ended run of an agent task, in Claude Code's order. An agent's own agents
 * (spawn depth 2 and more) show only as their `task_*` messages, between the call that started
 * each and its result (recording agent-depth).
 * @param o.started also send its `task_started` (a background run's went out with its launch)
 * @param o.prompt the Agent call's `prompt` (else the agent's first line's text)
 * @param o.nested an agent's own agent: its `system` messages only
 */
export async function* agentRunMessages(
  d: SubagentStreamDeps,
  task: TaskRecord,
  o: { started: boolean; prompt?: string; nested?: boolean },
): AsyncGenerator<SDKMessage, void, undefined> {
  const outcome = await outcomeOf(d.client, task.workflowId);
  const entries: TranscriptEntry[] = [];
  for (const uuid of outcome?.events ?? []) {
    const e = await d.readEntry(uuid);
    if (e) entries.push(e);
  }
  // The agent's first line (its prompt), when the turn's events name it (a tool-result line is not one).
  const first = entries[0];
  const prompt =
    first?.type === 'user' && !JSON.stringify(first.message?.content ?? '').includes('"tool_result"')
      ? first
      : undefined;
  if (o.started) yield taskStartedMessage(d.sessionId, task, o.prompt ?? textOf(prompt?.message?.content));
  const fields = {
    parent_tool_use_id: task.agentToolUseId ?? task.toolUseId,
    agent_id: task.taskId,
    subagent_type: task.agent?.agentType ?? 'general-purpose',
    task_description: task.description,
  };
  // Recorded: a foreground agent's stream opens with its prompt and has only its tool calls and
  // their results (no text: not its report, the call's result, nor text beside a call); each
  // progress message goes before its call. A background agent's has no prompt, all its messages,
  // and each progress message after its call.
  const background = task.owner === 'session';
  const nested = o.nested === true;
  const own = (ms: readonly SDKMessage[]): SDKMessage[] => (nested ? ms.filter((m) => m.type === 'system') : [...ms]);
  // The agents this one started, by the id of the Agent call that started each.
  const children = new Map<string, TaskRecord>();
  for (const t of (await d.tasks?.()) ?? []) {
    if (t.kind === 'agent' && t.agent?.parentTaskId === task.taskId && t.owner === 'turn') children.set(t.toolUseId, t);
  }
  if (!background && !nested) {
    yield {
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: o.prompt ?? textOf(prompt?.message?.content) }] },
      ...fields,
      session_id: d.sessionId,
      uuid: prompt?.uuid ?? randomUUID(),
      timestamp: prompt?.timestamp ?? new Date(task.startedAtMs).toISOString(),
    } as SDKMessage;
  }
  let toolUses = 0;
  let summary = '';
  /** The agent's tool calls waiting for their results: each goes out as progress, call, result. */
  const calls: Array<{ id: string; progress: SDKTaskProgressMessage; message: SDKMessage }> = [];
  /** The calls answered by `results` (in call order, up to the first not answered yet), each with its result. */
  const flush = async function* (results: SDKMessage[], all = false): AsyncGenerator<SDKMessage> {
    const rest = [...results];
    while (calls.length > 0) {
      const c = calls[0]!;
      const answers = rest.filter((m) => resultIds(m).includes(c.id));
      if (answers.length === 0 && !all) break;
      calls.shift();
      yield* own(background ? [c.message, c.progress] : [c.progress, c.message]);
      const child = children.get(c.id);
      if (child) yield* agentRunMessages(d, child, { started: true, nested: true });
      for (const a of answers) {
        rest.splice(rest.indexOf(a), 1);
        yield* own([a]);
      }
    }
    yield* own(rest);
  };
  for (const e of entries) {
    if (e === prompt) continue;
    const msgs = entryToSdkMessages(e)
      .filter((m) => m.type === 'assistant' || m.type === 'user')
      .map((m) => subagentMessage(m, fields));
    if (e.type === 'user') {
      yield* flush(msgs);
      continue;
    }
    for (const m of msgs) {
      if (m.type !== 'assistant') continue;
      const blocks = (m.message['content'] ?? []) as Array<{
        type: string;
        id?: string;
        name?: string;
        input?: unknown;
        text?: string;
      }>;
      const use = blocks.find((b) => b.type === 'tool_use');
      for (const b of blocks) if (b.type === 'text' && b.text) summary = b.text;
      if (!use) {
        // A foreground agent's messages without a tool call (its text, its report) are not streamed.
        if (background && !nested) yield m;
        continue;
      }
      toolUses++;
      calls.push({
        id: use.id ?? '',
        message: m,
        progress: {
          type: 'system',
          subtype: 'task_progress',
          task_id: task.taskId,
          run_id: task.runId,
          tool_use_id: task.toolUseId,
          description: toolProgressText(use.name ?? '', use.input, d.cwd),
          subagent_type: fields.subagent_type,
          usage: {
            total_tokens: contextTokens(e),
            tool_uses: toolUses,
            duration_ms: Math.max(0, Date.parse(e.timestamp) - task.startedAtMs) || 0,
          },
          last_tool_name: use.name ?? '',
          uuid: randomUUID(),
          session_id: d.sessionId,
        },
      });
    }
  }
  yield* flush([], true);
  const status = task.status === 'running' ? 'completed' : task.status;
  const endedAt = task.endedAtMs ?? Date.now();
  const updated: SDKTaskUpdatedMessage = {
    type: 'system',
    subtype: 'task_updated',
    task_id: task.taskId,
    run_id: task.runId,
    patch: { status, end_time: endedAt },
    uuid: randomUUID(),
    session_id: d.sessionId,
  };
  yield updated;
  // Recorded (agent-task-stop): a stopped agent's notification says `stopped`, its summary is its
  // description, and it has no report and no usage.
  const notification: SDKTaskNotificationMessage = {
    type: 'system',
    subtype: 'task_notification',
    task_id: task.taskId,
    run_id: task.runId,
    tool_use_id: task.toolUseId,
    status: status === 'killed' ? 'stopped' : status,
    output_file: task.refs.outputFile ?? '',
    ...(status === 'killed'
      ? { summary: task.description }
      : {
          summary,
          ...(task.owner === 'session' ? { summary_is_report: true } : {}),
          usage: {
            total_tokens: task.usage?.totalTokens ?? 0,
            tool_uses: task.usage?.toolUses ?? toolUses,
            duration_ms: task.usage?.durationMs ?? endedAt - task.startedAtMs,
          },
        }),
    uuid: randomUUID(),
    session_id: d.sessionId,
  };
  yield notification;
}

/**
 * The message a stopped agent's conversation ends with in the parent's stream, as Claude Code's
 * (recording agent-task-stop: after the TaskStop result).
 */
export function interruptedAgentMessage(sessionId: string, task: TaskRecord): SDKMessage {
  return {
    type: 'user',
    message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] },
    parent_tool_use_id: task.agentToolUseId ?? task.toolUseId,
    agent_id: task.taskId,
    session_id: sessionId,
    uuid: randomUUID(),
    timestamp: new Date(task.endedAtMs ?? Date.now()).toISOString(),
    subagent_type: task.agent?.agentType ?? 'general-purpose',
    task_description: task.description,
  } as SDKMessage;
}

/**
 * `system/background_tasks_changed`: the session's running background agents and commands
 * (background Bash, Monitor), from its task table.
 */
export function backgroundTasksChanged(
  sessionId: string,
  tasks: readonly TaskRecord[],
): SDKBackgroundTasksChangedMessage {
  return {
    type: 'system',
    subtype: 'background_tasks_changed',
    tasks: tasks
      .filter((t) => (t.kind === 'agent' || t.kind === 'shell') && t.owner === 'session' && t.status === 'running')
      .map((t) =>
        t.kind === 'shell'
          ? { task_id: t.taskId, run_id: t.runId, task_type: 'local_bash' as const, description: t.description }
          : {
              task_id: t.taskId,
              run_id: t.runId,
              task_type: 'local_agent' as const,
              subagent_type: t.agent?.agentType ?? 'general-purpose',
              description: t.description,
            },
      ),
    uuid: randomUUID(),
    session_id: sessionId,
  };
}

/** `system/task_started` of a task's run. */
export function taskStartedMessage(sessionId: string, task: TaskRecord, prompt: string): SDKTaskStartedMessage {
  return {
    type: 'system',
    subtype: 'task_started',
    task_id: task.taskId,
    run_id: task.runId,
    tool_use_id: task.toolUseId,
    description: task.description,
    subagent_type: task.agent?.agentType ?? 'general-purpose',
    is_backgrounded: task.owner === 'session',
    spawn_depth: task.agent?.depth ?? 1,
    ...(task.agent?.parentTaskId !== undefined ? { parent_task_id: task.agent.parentTaskId } : {}),
    task_type: 'local_agent',
    prompt,
    uuid: randomUUID(),
    session_id: sessionId,
  };
}
