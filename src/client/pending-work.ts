/**
 * What a turn is waiting for, from the Temporal server's own view of the workflow (its pending
 * activities and workflow task: `DescribeWorkflowExecution`, answered by the server, no worker
 * needed), so that a client can say on stderr why nothing happens (an activity being retried and
 * why, a worker that stopped heartbeating, a task no worker picks up) and `status` shows the truth
 * instead of a dead host's command as "running".
 */
import type { Client } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { isServerUnreachable } from './outage';

/** One pending activity of a workflow, as the server sees it. */
export interface PendingActivityView {
  /** Activity type (`callModel`, `runTool`, `prepareWorkspace`, …). */
  type: string;
  /** `scheduled` (waiting for a worker, or for its next attempt), `started`, `cancel_requested`. */
  state: 'scheduled' | 'started' | 'cancel_requested';
  /** Attempt number, from 1. */
  attempt: number;
  /** Attempts allowed, 0 = unlimited. */
  maximumAttempts: number;
  /** Epoch ms of the current attempt's scheduling (or of the first when unknown). */
  scheduledMs?: number;
  /** Epoch ms the current attempt started. */
  startedMs?: number;
  /** Epoch ms of the last heartbeat. */
  lastHeartbeatMs?: number;
  /** Epoch ms of the next attempt (while backing off). */
  nextAttemptMs?: number;
  /** The last attempt's failure (first line). */
  lastFailure?: string;
  /** The worker that ran the last attempt (`pid@host`). */
  lastWorker?: string;
  /** The activity's heartbeat timeout, ms, when it has one. */
  heartbeatTimeoutMs?: number;
}

/** What a running workflow waits on: its pending activities and workflow task. */
export interface PendingWork {
  activities: PendingActivityView[];
  /** A workflow task scheduled and not yet completed (epoch ms of its scheduling, attempt). */
  workflowTask?: { scheduledMs: number; startedMs?: number; attempt: number };
}

const ACTIVITY_STATES: Record<number, PendingActivityView['state']> = {
  1: 'scheduled',
  2: 'started',
  3: 'cancel_requested',
};

function firstLine(s: string | null | undefined): string | undefined {
  if (!s) return undefined;
  return (s.split('\n')[0] ?? s).slice(0, 300);
}

/**
 * The pending work of a workflow, or null when it does not exist or is not running.
 * @throws what `describe` throws for an unreachable server.
 */
export async function pendingWork(client: Client, workflowId: string): Promise<PendingWork | null> {
  let d;
  try {
    d = await client.workflow.getHandle(workflowId).describe();
  } catch (err) {
    if ((err as Error | undefined)?.name === 'WorkflowNotFoundError') return null;
    throw err;
  }
  if (d.status.name !== 'RUNNING') return null;
  const activities = (d.raw.pendingActivities ?? []).map((a): PendingActivityView => {
    const scheduledMs = optionalTsToMs(a.scheduledTime);
    const startedMs = optionalTsToMs(a.lastStartedTime);
    const lastHeartbeatMs = optionalTsToMs(a.lastHeartbeatTime);
    const nextAttemptMs = optionalTsToMs(a.nextAttemptScheduleTime);
    const lastFailure = firstLine(a.lastFailure?.message);
    const heartbeatTimeoutMs = optionalTsToMs(a.activityOptions?.heartbeatTimeout);
    return {
      type: a.activityType?.name ?? 'activity',
      state: ACTIVITY_STATES[Number(a.state ?? 0)] ?? 'scheduled',
      attempt: a.attempt ?? 1,
      maximumAttempts: a.maximumAttempts ?? 0,
      ...(scheduledMs !== undefined ? { scheduledMs } : {}),
      ...(startedMs !== undefined ? { startedMs } : {}),
      ...(lastHeartbeatMs !== undefined ? { lastHeartbeatMs } : {}),
      ...(nextAttemptMs !== undefined ? { nextAttemptMs } : {}),
      ...(lastFailure !== undefined ? { lastFailure } : {}),
      ...(a.lastWorkerIdentity ? { lastWorker: a.lastWorkerIdentity } : {}),
      ...(heartbeatTimeoutMs ? { heartbeatTimeoutMs } : {}),
    };
  });
  const wt = d.raw.pendingWorkflowTask;
  const wtScheduled = optionalTsToMs(wt?.scheduledTime);
  const wtStarted = optionalTsToMs(wt?.startedTime);
  return {
    activities,
    ...(wt && wtScheduled !== undefined
      ? {
          workflowTask: {
            scheduledMs: wtScheduled,
            ...(wtStarted !== undefined ? { startedMs: wtStarted } : {}),
            attempt: wt.attempt ?? 1,
          },
        }
      : {}),
  };
}

/** What an activity type does, for people. */
const ACTIVITY_WORDS: Record<string, string> = {
  callModel: 'the model call',
  compactContext: 'the compaction',
  runTool: 'the tool call',
  prepareWorkspace: 'preparing the workspace (or moving it to a live worker)',
  recordTranscript: 'a transcript write',
  recordPrompt: 'writing the prompt',
  loadContext: "loading the session's context",
  loadSession: 'loading the session',
  connectMcpServers: 'starting the MCP servers',
  runHooks: 'the hooks',
};

/** Waits shorter than this are not worth a word, ms. */
export const STALL_NOTICE_MS = 5000;

function secs(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 120 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/**
 * Sentences saying what the workflow waits for, one per stalled piece of work (none when
 * everything moves): an activity retried (its attempt and last failure), one whose worker stopped
 * heartbeating, one or a workflow task no worker has picked up for {@link STALL_NOTICE_MS}.
 * `label` names the turn's current activity as the turn describes it (`Bash: npm test`).
 */
export function stallReasons(work: PendingWork, now: number = Date.now(), label?: string): string[] {
  const out: string[] = [];
  for (const a of work.activities) {
    const what =
      a.type === 'callModel' || a.type === 'runTool' ? (label ?? ACTIVITY_WORDS[a.type]) : ACTIVITY_WORDS[a.type];
    const name = what ?? a.type;
    const attempts = `attempt ${a.attempt}${a.maximumAttempts > 0 ? ` of ${a.maximumAttempts}` : ''}`;
    if (a.state === 'started') {
      const beat = a.lastHeartbeatMs ?? a.startedMs;
      if (beat !== undefined && now - beat >= STALL_NOTICE_MS && a.lastHeartbeatMs !== undefined) {
        const left = a.heartbeatTimeoutMs !== undefined ? beat + a.heartbeatTimeoutMs - now : undefined;
        out.push(
          `${name}: its worker${a.lastWorker ? ` (${a.lastWorker})` : ''} has not sent a heartbeat for ${secs(now - beat)}; ` +
            `Temporal gives it to another worker once its heartbeat timeout` +
            (a.heartbeatTimeoutMs !== undefined ? ` (${secs(a.heartbeatTimeoutMs)})` : '') +
            ' passes' +
            (left !== undefined && left >= 1000 ? `, in ${secs(left)}` : ''),
        );
      }
      continue;
    }
    if (a.state !== 'scheduled') continue;
    if (a.attempt > 1) {
      // A failed attempt is news however recent (the caller asks only when nothing moves).
      const next =
        a.nextAttemptMs !== undefined && a.nextAttemptMs - now >= 1000
          ? `, next in ${secs(a.nextAttemptMs - now)}`
          : '';
      out.push(`${name} is being retried (${attempts}${next})${a.lastFailure ? `: ${a.lastFailure}` : ''}`);
    } else if (a.scheduledMs !== undefined && now - a.scheduledMs >= STALL_NOTICE_MS) {
      out.push(`${name} waits for a worker to take it (${secs(now - a.scheduledMs)})`);
    }
  }
  const wt = work.workflowTask;
  if (wt && wt.startedMs === undefined && now - wt.scheduledMs >= STALL_NOTICE_MS) {
    out.push(
      `the turn waits for a worker to run its next step (${secs(now - wt.scheduledMs)}): ` +
        'the worker that ran it is gone, and another takes it over once worker.stickyQueueTimeoutMs passes',
    );
  }
  return out;
}

/** How often a reason still in force is said again, ms. */
const REPEAT_MS = 60_000;

/**
 * Says on stderr what a followed turn waits for when it has shown nothing new for
 * {@link STALL_NOTICE_MS}: the server's view of its pending work ({@link stallReasons}), each
 * reason once (again after a minute if it lasts), and `the turn goes on` once it moves again.
 * It asks on a timer of its own, so a follow loop blocked on a query no worker answers (the
 * worker is gone: that is when it matters) does not silence it.
 */
export class StallWatcher {
  private lastMove = Date.now();
  private readonly said = new Map<string, number>();
  private checking = false;
  private timer: NodeJS.Timeout | undefined;
  /** The turn's own label of what it does now (`Bash: npm test`), from its last progress. */
  label: string | undefined;
  /**
   * Called when the server does not answer: the follower's outage waiter, which says so (and
   * restarts a background server that died) sooner than a query retried for 20 s would.
   */
  onUnreachable: ((err: unknown) => void) | undefined;

  constructor(
    private readonly client: Client,
    private readonly workflowId: string,
    private readonly notice: (line: string) => void,
  ) {}

  /** Starts asking every few seconds (the timer does not keep the process alive). */
  start(): this {
    this.timer ??= setInterval(() => void this.check(), Math.min(1000, STALL_NOTICE_MS)).unref();
    return this;
  }

  /** Stops asking. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The turn showed something new (a message, its result). */
  moved(): void {
    this.lastMove = Date.now();
    if (this.said.size > 0) {
      this.said.clear();
      this.notice('agent-runner: the turn goes on');
    }
  }

  /** Asks the server what the turn waits for, when it has shown nothing for a while, and says it. */
  async check(): Promise<void> {
    if (this.checking || Date.now() - this.lastMove < STALL_NOTICE_MS) return;
    this.checking = true;
    try {
      // Bounded: during an outage the call would wait for the server (the outage notices say that).
      const work = await this.client.withDeadline(Date.now() + 3000, () => pendingWork(this.client, this.workflowId));
      if (!work) return;
      for (const reason of stallReasons(work, Date.now(), this.label)) {
        const key = reason.replace(/\d+/g, '#');
        const at = this.said.get(key);
        if (at !== undefined && Date.now() - at < REPEAT_MS) continue;
        this.said.set(key, Date.now());
        this.notice(`agent-runner: waiting: ${reason}`);
      }
    } catch (err) {
      // The server is unreachable: the outage notices say so.
      if (isServerUnreachable(err)) {
        const code = (err as { code?: unknown } | null)?.code;
        try {
          // A deadline says nothing more than "no answer": say that.
          this.onUnreachable?.(code === 4 ? new Error('no answer within 3 s', { cause: err }) : err);
        } catch {
          // past the outage limit: the follower gives up by itself
        }
      }
    } finally {
      this.checking = false;
    }
  }
}
