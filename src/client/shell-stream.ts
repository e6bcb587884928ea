/**
 * A session's commands in its `stream-json` stream, as Claude Code 2.1.328 streams them
 * (recordings bash-background*, monitor-*, bash-sleep-blocked): a background command or monitor
 * gets `background_tasks_changed` and `task_started` before its launch's tool_result, and
 * `task_updated`, `task_notification` and `background_tasks_changed` when it ends; a foreground
 * command that ran for a few seconds gets `task_started` (`is_backgrounded: false`) and
 * `task_notification` (no output file) before its tool_result.
 *
 * The same task table as the agents' (`subagent-stream.ts` builds `background_tasks_changed`):
 * {@link ShellStream} reads the session's table and says which messages are due; the engine
 * decides when to ask (before each line, and while it waits).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SDKMessage } from '../common/sdk-messages';
import type {
  SDKShellTaskNotificationMessage,
  SDKShellTaskStartedMessage,
  SDKTaskUpdatedMessage,
} from '../common/sdk-task-messages';
import { shellStreamEnd } from '../common/shell-summary';
import { shellTaskId } from '../common/shell-tasks';
import type { TaskRecord } from '../common/tasks';
import { taskRunIdFromUuid } from '../common/ids';
import type { TranscriptEntry } from '../common/transcript';
import { backgroundTasksChanged } from './subagent-stream';

/**
 * How long a foreground command runs before 2.1.328 registers it as a task (recorded: `sleep 1`
 * is not one, `sleep 5` is; docs/reference/claude-code-async-tools.md says about 3 s), ms.
 */
export const FOREGROUND_TASK_AFTER_MS = 3_000;

/** `system/task_started` of a command. */
export function shellStartedMessage(
  sessionId: string,
  t: { taskId: string; runId: string; toolUseId: string; description: string },
  backgrounded: boolean,
): SDKShellTaskStartedMessage {
  return {
    type: 'system',
    subtype: 'task_started',
    task_id: t.taskId,
    run_id: t.runId,
    tool_use_id: t.toolUseId,
    description: t.description,
    is_backgrounded: backgrounded,
    task_type: 'local_bash',
    uuid: randomUUID(),
    session_id: sessionId,
  };
}

/** The messages of an ended background command or monitor: `task_updated`, `task_notification`, the running set. */
export function shellEndMessages(sessionId: string, task: TaskRecord, all: readonly TaskRecord[]): SDKMessage[] {
  const status = task.status === 'running' ? 'completed' : task.status;
  const updated: SDKTaskUpdatedMessage = {
    type: 'system',
    subtype: 'task_updated',
    task_id: task.taskId,
    run_id: task.runId,
    patch: { status, end_time: task.endedAtMs ?? Date.now() },
    uuid: randomUUID(),
    session_id: sessionId,
  };
  const end = shellStreamEnd(task.description, {
    monitor: task.shell?.monitor === true,
    end: task.shell?.end ?? (task.killedBy !== undefined ? { kind: 'stopped' } : undefined),
    ...(task.shell?.monitorEnd ? { monitorEnd: task.shell.monitorEnd } : {}),
  });
  const notification: SDKShellTaskNotificationMessage = {
    type: 'system',
    subtype: 'task_notification',
    task_id: task.taskId,
    run_id: task.runId,
    tool_use_id: task.toolUseId,
    status: end.status,
    output_file: task.refs.outputFile ?? '',
    summary: end.summary,
    uuid: randomUUID(),
    session_id: sessionId,
  };
  return [updated, notification, backgroundTasksChanged(sessionId, all)];
}

/** A call of the turn that may become a task: a Bash call (background or not), a Monitor, a TaskStop. */
interface ShellCall {
  tool: 'Bash' | 'Monitor' | 'TaskStop';
  background: boolean;
  description: string;
  /** TaskStop's `task_id`. */
  target?: string;
  /** When the call's assistant line was written, ms since the epoch. */
  calledAtMs: number;
}

/** Reads the session's task table (undefined when the session cannot answer). */
export type TaskTableReader = () => Promise<readonly TaskRecord[] | undefined>;

/**
 * The command tasks of one client's stream: the calls it has seen, the tasks it announced, and
 * the end messages still due. One per engine (a notification turn's lines are followed by the
 * same one), so a task's start and end go out once each.
 */
export class ShellStream {
  private readonly calls = new Map<string, ShellCall>();
  /** Announced background runs not yet reported ended (run id → task id). */
  private readonly running = new Map<string, string>();
  private readonly ended = new Set<string>();

  constructor(
    private readonly sessionId: string,
    private readonly readTasks: TaskTableReader,
    private readonly waitMs = 5_000,
  ) {}

  /** True while a background command this stream announced has not been reported ended. */
  get watching(): boolean {
    return this.running.size > 0;
  }

  /**
   * The messages due before `entry`'s own: the ends of announced commands that ended; for a line
   * with the result of a background launch, the running set and its `task_started`; for the
   * result of TaskStop of an announced command, its end (waited for); for a foreground command
   * that ran {@link FOREGROUND_TASK_AFTER_MS} or longer, its task's start and end.
   */
  async *before(entry: TranscriptEntry): AsyncGenerator<SDKMessage, void, undefined> {
    const blocks = (Array.isArray(entry.message?.content) ? entry.message.content : []) as Array<
      Record<string, unknown>
    >;
    if (entry.type === 'assistant') {
      for (const b of blocks) if (b['type'] === 'tool_use') this.noteCall(b, entry.timestamp);
      if (this.watching) yield* this.endsIn(await this.readTasks());
      return;
    }
    const results = blocks.filter((b) => b['type'] === 'tool_result' && this.calls.has(String(b['tool_use_id'])));
    if (results.length === 0) {
      if (this.watching) yield* this.endsIn(await this.readTasks());
      return;
    }
    for (const r of results) {
      const id = String(r['tool_use_id']);
      const call = this.calls.get(id)!;
      this.calls.delete(id);
      if (r['is_error'] === true) continue;
      if (call.tool === 'TaskStop') {
        yield* this.stopped(call.target ?? '');
      } else if (call.background) {
        yield* this.launched(id);
      } else if (Date.parse(entry.timestamp) - call.calledAtMs >= FOREGROUND_TASK_AFTER_MS) {
        yield* this.foreground(id, call.description);
      }
    }
    if (this.watching) yield* this.endsIn(await this.readTasks());
  }

  /** The end messages of announced commands that have ended in `tasks`. */
  *endsIn(tasks: readonly TaskRecord[] | undefined): Generator<SDKMessage, void, undefined> {
    if (!tasks) return;
    for (const t of tasks) {
      if (t.kind !== 'shell' || t.status === 'running' || !this.running.has(t.runId) || this.ended.has(t.runId)) {
        continue;
      }
      this.running.delete(t.runId);
      this.ended.add(t.runId);
      yield* shellEndMessages(this.sessionId, t, tasks);
    }
  }

  private noteCall(b: Record<string, unknown>, timestamp: string): void {
    const name = b['name'];
    const input = (b['input'] ?? {}) as Record<string, unknown>;
    const str = (k: string): string => (typeof input[k] === 'string' ? input[k] : '');
    const calledAtMs = Date.parse(timestamp);
    if (name === 'Bash' || name === 'Monitor') {
      this.calls.set(String(b['id']), {
        tool: name,
        background: name === 'Monitor' || input['run_in_background'] === true,
        description: str('description') || str('command'),
        calledAtMs,
      });
    } else if (name === 'TaskStop' || name === 'KillShell') {
      this.calls.set(String(b['id']), {
        tool: 'TaskStop',
        background: false,
        description: '',
        target: str('task_id') || str('shell_id'),
        calledAtMs,
      });
    }
  }

  /** A background launch's task, once the session has it (the turn enters it after the result line). */
  private async *launched(toolUseId: string): AsyncGenerator<SDKMessage, void, undefined> {
    const found = await this.waitFor((ts) => ts.find((t) => t.kind === 'shell' && t.toolUseId === toolUseId));
    if (!found) return;
    const { task, tasks } = found;
    this.running.set(task.runId, task.taskId);
    yield backgroundTasksChanged(this.sessionId, [...tasks.filter((t) => t !== task), { ...task, status: 'running' }]);
    yield shellStartedMessage(this.sessionId, task, true);
  }

  /** TaskStop of an announced command: its end, before TaskStop's result (as 2.1.328's). */
  private async *stopped(target: string): AsyncGenerator<SDKMessage, void, undefined> {
    const runId = [...this.running].find(([, taskId]) => taskId === target || taskId.startsWith(target))?.[0];
    if (runId === undefined) return;
    const found = await this.waitFor((ts) => ts.find((t) => t.runId === runId && t.status !== 'running'));
    if (found) yield* this.endsIn(found.tasks);
  }

  /** A foreground command that ran long: a task of its own in the stream (ids drawn here). */
  private *foreground(toolUseId: string, description: string): Generator<SDKMessage, void, undefined> {
    const t = {
      taskId: shellTaskId(new Uint8Array(Buffer.from(randomUUID().replace(/-/g, ''), 'hex'))),
      runId: taskRunIdFromUuid(randomUUID()),
      toolUseId,
      description,
    };
    yield shellStartedMessage(this.sessionId, t, false);
    const notification: SDKShellTaskNotificationMessage = {
      type: 'system',
      subtype: 'task_notification',
      task_id: t.taskId,
      run_id: t.runId,
      tool_use_id: toolUseId,
      status: 'completed',
      output_file: '',
      summary: description,
      uuid: randomUUID(),
      session_id: this.sessionId,
    };
    yield notification;
  }

  /** Polls the table until `pick` finds a task (at most `waitMs`). */
  private async waitFor(
    pick: (tasks: readonly TaskRecord[]) => TaskRecord | undefined,
  ): Promise<{ task: TaskRecord; tasks: readonly TaskRecord[] } | undefined> {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const tasks = await this.readTasks();
      if (!tasks) return undefined;
      const task = pick(tasks);
      if (task) return { task, tasks };
      if (Date.now() >= deadline) return undefined;
      await sleep(20);
    }
  }
}
