/**
 * Complete model responses a worker read but could not store: their attempt ran out of time while
 * the transcript store was unreachable. The next attempt of the call on this worker writes the
 * kept line instead of calling the model again (the attempts of one activity usually run on the
 * worker that runs the turn; another worker's attempt cannot know the line and calls again). In
 * memory only, so a worker that dies loses what it holds, as it loses a response it is reading.
 */
import type { TranscriptEntry } from '../../common/transcript';

/** Lines kept at most (the oldest is dropped): one per call in flight on this worker is enough. */
const MAX_HELD = 64;

/** Held assistant lines by session and uuid. */
export class HeldResponses {
  private readonly lines = new Map<string, TranscriptEntry>();

  /** Keeps `entry` (an assistant line not yet stored) for the next attempt of its call. */
  keep(entry: TranscriptEntry): void {
    const key = `${entry.sessionId}/${entry.uuid}`;
    this.lines.delete(key);
    this.lines.set(key, entry);
    while (this.lines.size > MAX_HELD) {
      const oldest = this.lines.keys().next().value;
      if (oldest === undefined) break;
      this.lines.delete(oldest);
    }
  }

  /** The kept line of a call, removed from the keeper; undefined when none is kept. */
  take(sessionId: string, uuid: string): TranscriptEntry | undefined {
    const key = `${sessionId}/${uuid}`;
    const entry = this.lines.get(key);
    this.lines.delete(key);
    return entry;
  }

  /** Lines kept now. */
  get size(): number {
    return this.lines.size;
  }
}
