import { STREAM_EVENTS_TTL_MS } from '../../../../src/store';
import { PostgresTranscriptStore } from '../../../../src/store/postgres/postgres-store';
import { freshSchemaUrl, sql } from '../../../helpers/postgres';
import { describeStreamEventChannelContract } from '../stream-events-contract';

/** A migrated store on a fresh schema, and what the tests below need of it. */
async function fixture(): Promise<{
  store: PostgresTranscriptStore;
  url: string;
  schema: string;
  opened: PostgresTranscriptStore[];
  dispose(): Promise<void>;
}> {
  const { url, schema } = freshSchemaUrl('events');
  const opened: PostgresTranscriptStore[] = [];
  const store = await PostgresTranscriptStore.open(url, { schema: 'migrate', poolSize: 4 });
  opened.push(store);
  return {
    store,
    url,
    schema,
    opened,
    async dispose() {
      await Promise.all(opened.map((s) => s.close()));
      await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}

describeStreamEventChannelContract('PostgreSQL', async () => {
  const f = await fixture();
  return {
    channel: f.store.streamEvents,
    async other() {
      const s = await PostgresTranscriptStore.open(f.url, { poolSize: 2 });
      f.opened.push(s);
      return s.streamEvents;
    },
    async age(sessionId, callId, ms) {
      await sql(
        `UPDATE ${f.schema}.stream_events SET created_at = created_at - $3 * interval '1 millisecond'
         WHERE session_id = $1 AND call_id = $2`,
        [sessionId, callId, ms],
      );
    },
    async stored(sessionId, callId) {
      const rows = await sql(`SELECT 1 FROM ${f.schema}.stream_events WHERE session_id = $1 AND call_id = $2`, [
        sessionId,
        callId,
      ]);
      return rows.length > 0;
    },
    async broken() {
      // A schema that was never migrated: every statement fails (no such table).
      const s = await PostgresTranscriptStore.open(freshSchemaUrl('missing').url, { schema: 'none', poolSize: 2 });
      f.opened.push(s);
      return s.streamEvents;
    },
    dispose: () => f.dispose(),
  };
});

describe('PostgreSQL stream event channel', () => {
  let f: Awaited<ReturnType<typeof fixture>>;
  beforeEach(async () => {
    f = await fixture();
  });
  afterEach(async () => {
    await f.dispose();
  });

  test('channel: the table is UNLOGGED (best effort, no WAL)', async () => {
    const rows = await sql<{ p: string }>(
      `SELECT c.relpersistence AS p FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relname = 'stream_events'`,
      [f.schema],
    );
    expect(rows).toEqual([{ p: 'u' }]);
  });

  test('channel: events published within one batch window are written by one statement', async () => {
    const w = f.store.streamEvents.open('s', 'c');
    for (let i = 0; i < 200; i++) w.publish({ event: { type: 'content_block_delta', i } });
    await w.close();
    // now() is the time of the statement's transaction: one INSERT, one value.
    const rows = await sql<{ n: string; at: string; seqs: string }>(
      `SELECT count(*) AS n, count(DISTINCT created_at) AS at, string_agg(seq::text, ',' ORDER BY seq) AS seqs
       FROM ${f.schema}.stream_events WHERE session_id = 's' AND call_id = 'c'`,
    );
    expect(rows[0]).toMatchObject({ n: '201', at: '1' });
    expect(rows[0]!.seqs).toBe(Array.from({ length: 201 }, (_, i) => i + 1).join(','));
  });

  test('channel: opening a call also removes ended calls of other sessions older than the TTL, not unended ones', async () => {
    const ch = f.store.streamEvents;
    await ch.open('gone', 'ended').close();
    const unended = ch.open('gone', 'unended');
    unended.publish({ n: 1 });
    await new Promise((r) => setTimeout(r, 100)); // the batch is written; the call never ends
    await sql(
      `UPDATE ${f.schema}.stream_events SET created_at = created_at - $1 * interval '1 millisecond'
       WHERE session_id = 'gone'`,
      [STREAM_EVENTS_TTL_MS + 60_000],
    );
    await ch.open('s', 'c').close();
    expect((await ch.read('gone', 'ended', 0)).exists).toBe(false);
    expect((await ch.read('gone', 'unended', 0)).events).toEqual([{ n: 1 }]);
  });

  test('channel: a closed store reads as nothing published and drops writes without throwing', async () => {
    const ch = f.store.streamEvents;
    await f.store.close();
    await expect(ch.read('s', 'c', 0)).resolves.toEqual({ exists: false, events: [], next: 0, done: false });
    const w = ch.open('s', 'c');
    w.publish({ n: 1 });
    await expect(w.close()).resolves.toBeUndefined();
  });
});
