import { condition, uuid4 } from '@temporalio/workflow';
import type { SubmitRequest, SubmitResponse } from '../common/session';

/** A submit waiting for its turn. */
export interface QueuedSubmit {
  /** Handler-local id (the update's answer is matched to it). */
  id: string;
  req: SubmitRequest;
}

/**
 * What waits for the session: submitted prompts, one turn each, in order. Each `submitMessage`
 * update waits here until its turn has started and then answers where to follow it. (The
 * notifications of the session's tasks are to queue here too: a notification that arrives while
 * no turn runs starts one, as a submit does.)
 */
export class SessionInbox {
  private readonly submits: QueuedSubmit[] = [];
  private readonly started = new Map<string, SubmitResponse>();

  /** Submits waiting (the running turn's not counted). */
  get queued(): number {
    return this.submits.length;
  }

  /** True when something waits for a turn. */
  hasWork(): boolean {
    return this.submits.length > 0;
  }

  /** The next submit to run, if any. */
  take(): QueuedSubmit | undefined {
    return this.submits.shift();
  }

  /**
   * Queues a submit and waits until its turn has started (the `submitMessage` update handler).
   * @throws Error when the turn was not started (never: every queued submit runs)
   */
  async submit(req: SubmitRequest): Promise<SubmitResponse> {
    const id = uuid4();
    this.submits.push({ id, req });
    await condition(() => this.started.has(id));
    const resp = this.started.get(id);
    this.started.delete(id);
    if (!resp) throw new Error('turn was not started');
    return resp;
  }

  /** The turn of a submit has started: its update answers with `resp`. */
  answer(submitId: string, resp: SubmitResponse): void {
    this.started.set(submitId, resp);
  }
}
