/**
 * The stream-event side channel (`--include-partial-messages`) of the PostgreSQL store: workers
 * and clients run on different hosts, so the events travel through an UNLOGGED table of the
 * shared database (migration 3) instead of files. Same semantics as `FileStreamEventChannel`:
 * best effort, never durable, batched, a final done marker, reads from an offset.
 */
import type { Pool } from 'pg';
import { checkId } from '../ids';
import {
  STREAM_EVENTS_TTL_MS,
  type StreamEventChannel,
  type StreamEventWriter,
  type StreamEventsRead,
} from '../stream-events';

/** How long `publish` gathers events before they are written in one statement (ms). */
const BATCH_MS = 20;

/**
 * {@link StreamEventChannel} on the `stream_events` table: one row per event keyed by
 * `(session_id, call_id, seq)`, `seq` counting from 1 within a call, and a last row with
 * `done = true` (no event) once the stream ended. The offsets of {@link read} are `seq` numbers.
 *
 * - A flush is one multi-row `INSERT` that continues the call's `seq` (a retried attempt of the
 *   same call appends after the events of the earlier one).
 * - The table is UNLOGGED: no WAL is written, and a crash of the server empties it (the
 *   responses themselves are in the transcript).
 * - Opening a call deletes, in the background, the session's other calls whose last row is older
 *   than {@link STREAM_EVENTS_TTL_MS}, and ended calls of any session older than that (so that the
 *   calls of sessions never continued do not stay forever).
 */
export class PostgresStreamEventChannel implements StreamEventChannel {
  /**
   * @param pool the store's pool (not closed by the channel).
   * @param schema the quoted schema name (`escapeIdentifier`).
   */
  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
  ) {}

  /** @throws InvalidTranscriptIdError for an id that is not a valid session or call id. */
  open(sessionId: string, callId: string): StreamEventWriter {
    checkId('session id', sessionId);
    checkId('tool use id', callId);
    const t = `${this.schema}.stream_events`;
    // Background and best effort: a failed or deadlocked sweep is retried by the next call.
    const sweeping = this.pool
      .query(
        `DELETE FROM ${t} d
         USING (
           SELECT session_id, call_id FROM ${t}
           WHERE session_id = $1 AND call_id <> $2
           GROUP BY session_id, call_id
           HAVING max(created_at) < now() - $3::double precision * interval '1 millisecond'
           UNION
           SELECT session_id, call_id FROM ${t}
           WHERE done AND created_at < now() - $3 * interval '1 millisecond'
             AND NOT (session_id = $1 AND call_id = $2)
         ) old
         WHERE d.session_id = old.session_id AND d.call_id = old.call_id`,
        [sessionId, callId, STREAM_EVENTS_TTL_MS],
      )
      .then(
        () => undefined,
        () => undefined,
      );
    const insert = `
      INSERT INTO ${t} (session_id, call_id, seq, event, done)
      SELECT $1, $2, c.last + i.ord, i.event::json, i.event IS NULL
      FROM unnest($3::text[]) WITH ORDINALITY AS i(event, ord)
      CROSS JOIN (SELECT COALESCE(max(seq), 0) AS last FROM ${t} WHERE session_id = $1 AND call_id = $2) c
      ORDER BY i.ord`;
    const pool = this.pool;
    /** JSON texts of the events not written yet; null is the done marker. */
    let pending: Array<string | null> = [];
    let failed = false;
    let flushing: Promise<void> = Promise.resolve();
    const flush = (): Promise<void> => {
      flushing = flushing.then(async () => {
        if (failed || pending.length === 0) return;
        const batch = pending;
        pending = [];
        await pool.query(insert, [sessionId, callId, batch]).catch(() => {
          // Later events would leave a gap: drop the rest of the call (the client stops waiting
          // for its done marker after a short while).
          failed = true;
        });
      });
      return flushing;
    };
    let timer: NodeJS.Timeout | undefined;
    return {
      publish(event: unknown): void {
        if (failed) return;
        let text: string | undefined;
        try {
          text = JSON.stringify(event);
        } catch {
          return; // not serializable (a cycle): not worth failing a model call for
        }
        if (text === undefined) return;
        pending.push(text);
        timer ??= setTimeout(() => {
          timer = undefined;
          void flush();
        }, BATCH_MS);
      },
      async close(): Promise<void> {
        if (timer) clearTimeout(timer);
        timer = undefined;
        pending.push(null);
        await flush();
        await sweeping;
      },
    };
  }

  /**
   * Events of a call after `offset` (a `seq`; 0 at first). A failing database reads as nothing
   * published (`exists: false`), so that a client does not wait for the rest.
   */
  async read(sessionId: string, callId: string, offset: number): Promise<StreamEventsRead> {
    const none: StreamEventsRead = { exists: false, events: [], next: offset, done: false };
    let rows: Array<{ seq: number; event: unknown; done: boolean }>;
    try {
      checkId('session id', sessionId);
      checkId('tool use id', callId);
      const r = await this.pool.query<{ seq: number; event: unknown; done: boolean }>(
        `SELECT seq, event, done FROM ${this.schema}.stream_events
         WHERE session_id = $1 AND call_id = $2 AND seq > $3
         ORDER BY seq`,
        [sessionId, callId, offset],
      );
      rows = r.rows;
    } catch {
      return none;
    }
    // Rows below `offset` were read before: the call exists even when nothing is new.
    if (rows.length === 0) return { ...none, exists: offset > 0 };
    const events: unknown[] = [];
    let done = false;
    for (const row of rows) {
      if (row.done) done = true;
      else events.push(row.event);
    }
    return { exists: true, events, next: rows[rows.length - 1]?.seq ?? offset, done };
  }
}
