import type {
  SubagentStats,
  TaskFinishedMessage,
  TaskListRow,
  TaskRecord,
  TaskStartedMessage,
  TaskTable,
} from '../common/tasks';
import { MAX_FINISHED_TASKS, TASK_TABLE_VERSION, emptyTaskTable } from '../common/tasks';

/**
 * The session's task table as one object (state of `sessionWorkflow`, carried whole through
 * continue-as-new inside `SessionState.tasks`): the tasks that run and the most recent finished
 * ones, and the session's subagent counters. One method per event of a task's life. Issue 21's
 * kinds of task (background shells, monitors, wake-ups, crons) are entries of this same table.
 *
 * Deterministic: no I/O, only values the workflow already holds.
 */
export class SessionTasks {
  private t: TaskTable;

  /**
   * @throws Error for a table of a newer version (this code would drop what it does not know;
   *   the workflow task fails and is retried until a newer worker takes it)
   */
  constructor(table: TaskTable | undefined) {
    if (table && table.v > TASK_TABLE_VERSION) {
      throw new Error(`task table version ${table.v} is newer than this worker's (${TASK_TABLE_VERSION})`);
    }
    this.t = table ?? emptyTaskTable();
  }

  /** The table, as carried (do not mutate). */
  get table(): TaskTable {
    return this.t;
  }

  get stats(): SubagentStats {
    return this.t.stats;
  }

  /** Every entry, oldest first. */
  get entries(): readonly TaskRecord[] {
    return this.t.entries;
  }

  /** Tasks that run now. */
  running(): TaskRecord[] {
    return this.t.entries.filter((e) => e.status === 'running');
  }

  /** True while a task of the session runs: the session does not end, and `-p` keeps following it. */
  pending(): boolean {
    return this.t.entries.some((e) => e.status === 'running');
  }

  /** A task by its id (exact), else by a unique prefix of at least 7 characters (what texts show). */
  find(id: string): TaskRecord | undefined {
    const exact = this.t.entries.find((e) => e.taskId === id);
    if (exact || id.length < 7) return exact;
    const matches = this.t.entries.filter((e) => e.taskId.startsWith(id));
    return matches.length === 1 ? matches[0] : undefined;
  }

  /** A run began: a new task, or the next run of a finished one (same task id). */
  started(m: TaskStartedMessage): void {
    const r = m.record;
    const entries = this.t.entries.filter((e) => e.taskId !== r.taskId);
    const stats = m.requested !== undefined ? countStart(this.t.stats, r, m.requested) : this.t.stats;
    this.t = { ...this.t, entries: [...entries, r], stats };
  }

  /**
   * A run ended. Returns the record as it is now when the run was the task's current one (a
   * late or repeated message of an older run changes nothing and returns undefined).
   */
  finished(m: TaskFinishedMessage): TaskRecord | undefined {
    const old = this.t.entries.find((e) => e.taskId === m.taskId);
    if (!old || old.runId !== m.runId || old.status !== 'running') return undefined;
    const done: TaskRecord = {
      ...old,
      status: m.status,
      endedAtMs: m.endedAtMs,
      usage: m.usage,
      refs: { ...old.refs, ...m.refs },
      ...(m.killedBy !== undefined ? { killedBy: m.killedBy } : {}),
      // How a command ended (state only, no command: older histories replay the same).
      ...(old.shell && m.shellEnd
        ? { shell: { ...old.shell, end: m.shellEnd, ...(m.monitor ? { monitorEnd: m.monitor } : {}) } }
        : {}),
    };
    const entries = this.t.entries.map((e) => (e.taskId === m.taskId ? done : e));
    this.t = { ...this.t, entries: prune(entries), stats: countEnd(this.t.stats, done) };
    return done;
  }

  /** The rows `ListAgents` shows: the agents, oldest first. */
  rows(): TaskListRow[] {
    return this.t.entries
      .filter((e) => e.kind === 'agent')
      .map((e) => ({
        taskId: e.taskId,
        agentType: e.agent?.agentType ?? 'agent',
        status: e.status,
        startedAtMs: e.startedAtMs,
      }));
  }
}

/** Keeps every running task and the newest {@link MAX_FINISHED_TASKS} finished ones. */
function prune(entries: TaskRecord[]): TaskRecord[] {
  const finished = entries.filter((e) => e.status !== 'running');
  if (finished.length <= MAX_FINISHED_TASKS) return entries;
  const drop = new Set(finished.slice(0, finished.length - MAX_FINISHED_TASKS).map((e) => e.taskId));
  return entries.filter((e) => !drop.has(e.taskId));
}

function countStart(s: SubagentStats, r: TaskRecord, requested: TaskStartedMessage['requested']): SubagentStats {
  if (r.kind !== 'agent' || requested === undefined) return s;
  const depth = r.agent?.depth ?? 1;
  const type = r.agent?.agentType ?? 'agent';
  return {
    ...s,
    spawned: s.spawned + 1,
    requested: { ...s.requested, [requested]: s.requested[requested] + 1 },
    started_in_background: s.started_in_background + (r.owner === 'session' ? 1 : 0),
    max_depth: Math.max(s.max_depth, depth),
    spawned_by_subagents: s.spawned_by_subagents + (depth > 1 ? 1 : 0),
    by_type: { ...s.by_type, [type]: (s.by_type[type] ?? 0) + 1 },
  };
}

function countEnd(s: SubagentStats, r: TaskRecord): SubagentStats {
  if (r.kind !== 'agent') return s;
  if (r.status === 'completed') return { ...s, completed: s.completed + 1 };
  if (r.status === 'failed') return { ...s, failed: s.failed + 1 };
  const by = r.killedBy ?? 'parent';
  return { ...s, killed: { ...s.killed, [by]: s.killed[by] + 1 } };
}
