/**
 * A side channel for the raw stream events of model calls (`--include-partial-messages`): what a
 * client shows while a call streams, never part of workflow history or of the transcript.
 * Best effort by design: writes are not synced, a failed write drops events, and a client that
 * reads late or not at all loses nothing that matters (the whole response is in the transcript).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './data-dir';
import { checkId } from './ids';

/** Events of one model call read from a channel. */
export interface StreamEventsRead {
  /** False when nothing was ever published for the call (no channel was opened). */
  exists: boolean;
  events: unknown[];
  /** Offset to read from next time. */
  next: number;
  /** True once the call's stream ended (every event is in). */
  done: boolean;
}

/** Where `callModel` publishes stream events and clients tail them, keyed by session and call (the assistant line's uuid). */
export interface StreamEventChannel {
  /** Opens the channel of a call; events are appended in order. */
  open(sessionId: string, callId: string): StreamEventWriter;
  /** Events of a call from `offset` (0 at first); empty and not done when nothing was published (yet). */
  read(sessionId: string, callId: string, offset: number): Promise<StreamEventsRead>;
}

/** Writes the events of one call. Never throws: a failing channel just drops events. */
export interface StreamEventWriter {
  publish(event: unknown): void;
  /** Marks the stream complete and waits until every event is written. */
  close(): Promise<void>;
}

/** How long a call's events are kept before a later call of the same session removes them (ms). */
export const STREAM_EVENTS_TTL_MS = 10 * 60_000;

/**
 * {@link StreamEventChannel} on files, `<dataDir>/stream-events/<sessionId>/<callId>.jsonl`: one
 * event a line, a last `{"done":true}` line. Shared by the processes of one machine (the embedded
 * server, `agent-runner server` and its clients). Opening a call removes the session's files
 * older than {@link STREAM_EVENTS_TTL_MS}.
 */
export class FileStreamEventChannel implements StreamEventChannel {
  constructor(readonly dataDir: string) {}

  private dir(sessionId: string): string {
    checkId('session id', sessionId);
    return path.join(this.dataDir, 'stream-events', sessionId);
  }

  private file(sessionId: string, callId: string): string {
    checkId('tool use id', callId);
    return path.join(this.dir(sessionId), `${callId}.jsonl`);
  }

  open(sessionId: string, callId: string): StreamEventWriter {
    const dir = this.dir(sessionId);
    const file = this.file(sessionId, callId);
    let pending: string[] = [];
    let failed = false;
    let flushing: Promise<void> = fs.promises
      .mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
      .then(() => sweep(dir, file))
      .catch(() => {
        failed = true;
      });
    const flush = (): Promise<void> => {
      flushing = flushing.then(async () => {
        if (failed || pending.length === 0) return;
        const body = pending.join('');
        pending = [];
        await fs.promises.appendFile(file, body, { mode: PRIVATE_FILE_MODE }).catch(() => {
          failed = true;
        });
      });
      return flushing;
    };
    let timer: NodeJS.Timeout | undefined;
    return {
      publish(event: unknown): void {
        if (failed) return;
        pending.push(`${JSON.stringify(event)}\n`);
        // Batched: one write per 20 ms at most while a call streams.
        timer ??= setTimeout(() => {
          timer = undefined;
          void flush();
        }, 20);
      },
      async close(): Promise<void> {
        if (timer) clearTimeout(timer);
        timer = undefined;
        pending.push('{"done":true}\n');
        await flush();
      },
    };
  }

  async read(sessionId: string, callId: string, offset: number): Promise<StreamEventsRead> {
    let text: string;
    try {
      const handle = await fs.promises.open(this.file(sessionId, callId), 'r');
      try {
        const { size } = await handle.stat();
        const buf = Buffer.alloc(Math.max(0, size - offset));
        const { bytesRead } = await handle.read(buf, 0, buf.length, offset);
        text = buf.subarray(0, bytesRead).toString('utf8');
      } finally {
        await handle.close();
      }
    } catch {
      return { exists: false, events: [], next: offset, done: false };
    }
    const complete = text.slice(0, text.lastIndexOf('\n') + 1);
    const events: unknown[] = [];
    let done = false;
    for (const line of complete.split('\n')) {
      if (line === '') continue;
      try {
        const v = JSON.parse(line) as unknown;
        if (v !== null && typeof v === 'object' && (v as { done?: unknown }).done === true) done = true;
        else events.push(v);
      } catch {
        // a torn line: skip
      }
    }
    return { exists: true, events, next: offset + Buffer.byteLength(complete), done };
  }
}

/** Removes the files of a session's earlier calls that are older than the TTL. */
async function sweep(dir: string, keep: string): Promise<void> {
  const now = Date.now();
  for (const name of await fs.promises.readdir(dir).catch(() => [] as string[])) {
    const p = path.join(dir, name);
    if (p === keep) continue;
    const st = await fs.promises.stat(p).catch(() => null);
    if (st && now - st.mtimeMs > STREAM_EVENTS_TTL_MS) await fs.promises.rm(p, { force: true }).catch(() => undefined);
  }
}
