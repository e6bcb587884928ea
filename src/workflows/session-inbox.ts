import { condition, uuid4 } from '@temporalio/workflow';
import type { SubmitRequest, SubmitResponse } from '../common/session';
import type { TaskFinishedMessage, TaskRecord } from '../common/tasks';
import type { ContentRef } from '../common/content-ref';

/** Id prefix of submits the session queues itself (no update waits for their answer). */
const SESSION_PROMPT_PREFIX = 'session:';

/** The `source` a prompt of the session was queued with (`cron:<job id>`), from its submit id; undefined for a client's submit. */
export function promptSource(submitId: string): string | undefined {
  if (!submitId.startsWith(SESSION_PROMPT_PREFIX)) return undefined;
  const rest = submitId.slice(SESSION_PROMPT_PREFIX.length);
  const cut = rest.lastIndexOf(':');
  return cut > 0 ? rest.slice(0, cut) : undefined;
}

/** A submit waiting for its turn. */
export interface QueuedSubmit {
  kind: 'submit';
  /** Handler-local id (the update's answer is matched to it). */
  id: string;
  req: SubmitRequest;
}

/** A finished task's notification waiting for a turn (it starts one, as a submit does). */
export interface QueuedNotification {
  kind: 'notification';
  record: TaskRecord;
  finished: TaskFinishedMessage;
}

/** A monitor's event waiting for a turn: its notification, stored by the monitor's activity. */
export interface QueuedEvent {
  kind: 'event';
  record: TaskRecord;
  ref: ContentRef;
}

/** What waits for a turn. */
export type QueuedWork = QueuedSubmit | QueuedNotification | QueuedEvent;

/**
 * What waits for the session: submitted prompts and the notifications of finished tasks, one
 * turn each, in the order they came. Each `submitMessage` update waits here until its turn has
 * started and then answers where to follow it; a notification that arrives while no turn runs
 * starts one, and one that arrives during a turn starts the next.
 */
export class SessionInbox {
  private readonly work: QueuedWork[] = [];
  private readonly started = new Map<string, SubmitResponse>();

  /** Submits waiting (the running turn's not counted). */
  get queued(): number {
    return this.work.filter((w) => w.kind === 'submit').length;
  }

  /** Notifications (a monitor's events among them) waiting for a turn. */
  get notifications(): number {
    return this.work.filter((w) => w.kind !== 'submit').length;
  }

  /** True when something waits for a turn. */
  hasWork(): boolean {
    return this.work.length > 0;
  }

  /** The next work to run, if any. */
  take(): QueuedWork | undefined {
    return this.work.shift();
  }

  /** Queues a finished task's notification. */
  notify(n: Omit<QueuedNotification, 'kind'>): void {
    this.work.push({ kind: 'notification', ...n });
  }

  /** Drops the queued notifications and monitor events (their tasks were stopped); submits stay. */
  dropNotifications(): void {
    const submits = this.work.filter((w) => w.kind === 'submit');
    this.work.splice(0, this.work.length, ...submits);
  }

  /** Queues a monitor's event. */
  event(e: Omit<QueuedEvent, 'kind'>): void {
    this.work.push({ kind: 'event', ...e });
  }

  /**
   * Queues a submit and waits until its turn has started (the `submitMessage` update handler).
   * @throws Error when the turn was not started (never: every queued submit runs)
   */
  async submit(req: SubmitRequest): Promise<SubmitResponse> {
    const id = uuid4();
    this.work.push({ kind: 'submit', id, req });
    await condition(() => this.started.has(id));
    const resp = this.started.get(id);
    this.started.delete(id);
    if (!resp) throw new Error('turn was not started');
    return resp;
  }

  /** The turn of a submit has started: its update answers with `resp`. */
  answer(submitId: string, resp: SubmitResponse): void {
    if (submitId.startsWith(SESSION_PROMPT_PREFIX)) return; // nobody waits for it
    this.started.set(submitId, resp);
  }

  /**
   * Queues a prompt of the session itself (a wake-up or cron job firing): a submit no update
   * waits for. With `source`, a prompt of the same source still waiting is not queued twice.
   */
  prompt(req: SubmitRequest, source?: string): void {
    const tag = source !== undefined ? `${SESSION_PROMPT_PREFIX}${source}:` : SESSION_PROMPT_PREFIX;
    if (source !== undefined && this.work.some((w) => w.kind === 'submit' && w.id.startsWith(tag))) return;
    this.work.push({ kind: 'submit', id: `${tag}${uuid4()}`, req });
  }
}
