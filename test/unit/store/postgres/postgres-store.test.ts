import type { TranscriptEntry } from '../../../../src/common/transcript';
import { StoreConnectionError, StoreSchemaError } from '../../../../src/store/postgres/errors';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../../src/store/postgres/migrations';
import { PostgresTranscriptStore, chainLinksSql } from '../../../../src/store/postgres/postgres-store';
import { freshSchemaUrl, postgresAdminUrl, sql } from '../../../helpers/postgres';

const schemas: string[] = [];
const stores: PostgresTranscriptStore[] = [];

function fresh(): { url: string; schema: string } {
  const f = freshSchemaUrl('pgstore');
  schemas.push(f.schema);
  return f;
}

async function open(url: string, opts: Parameters<typeof PostgresTranscriptStore.open>[1] = {}) {
  const s = await PostgresTranscriptStore.open(url, { schema: 'migrate', poolSize: 4, ...opts });
  stores.push(s);
  return s;
}

afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  for (const schema of schemas) await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
});

function line(sessionId: string, uuid: string, parentUuid: string | null, text = `text ${uuid}`): TranscriptEntry {
  return {
    type: 'user',
    uuid,
    parentUuid,
    sessionId,
    timestamp: new Date().toISOString(),
    message: { role: 'user', content: text },
  };
}

describe('PostgreSQL store: schema and migrations', () => {
  test('postgres store: the first open migrates an empty schema to the current version, once', async () => {
    const { url, schema } = fresh();
    const store = await open(url);
    await expect(store.schemaVersion()).resolves.toBe(SCHEMA_VERSION);
    const rows = await sql<{ version: number }>(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`);
    expect(rows.map((r) => r.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    await expect(store.migrate()).resolves.toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION, applied: [] });
  });

  test('postgres store: workers starting at once migrate once and all open', async () => {
    const { url, schema } = fresh();
    const opened = await Promise.all(Array.from({ length: 6 }, () => open(url, { poolSize: 1 })));
    expect(opened).toHaveLength(6);
    const rows = await sql(`SELECT version FROM ${schema}.schema_migrations`);
    expect(rows).toHaveLength(SCHEMA_VERSION);
  });

  test('postgres store: a client that does not migrate is told to run `agent-runner store migrate`', async () => {
    const { url } = fresh();
    const err = await PostgresTranscriptStore.open(url, { schema: 'check' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreSchemaError);
    expect((err as Error).message).toMatch(/schema version 0, older than .*agent-runner store migrate/);
    expect((err as Error).message).not.toContain('agent-runner-test'); // the password
  });

  test('postgres store: a schema newer than the code is refused by every mode, and nothing is changed', async () => {
    const { url, schema } = fresh();
    await (await open(url)).close();
    await sql(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, 'from the future')`, [
      SCHEMA_VERSION + 1,
    ]);
    for (const mode of ['check', 'migrate'] as const) {
      const err = await PostgresTranscriptStore.open(url, { schema: mode }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreSchemaError);
      expect(err).toMatchObject({ found: SCHEMA_VERSION + 1, expected: SCHEMA_VERSION });
      expect((err as Error).message).toMatch(/newer than this agent-runner knows .*upgrade agent-runner/);
      expect((err as Error).message).toContain('postgres://postgres:***@127.0.0.1');
    }
    const rows = await sql(`SELECT version FROM ${schema}.schema_migrations`);
    expect(rows).toHaveLength(SCHEMA_VERSION + 1);
  });
});

describe('PostgreSQL store: connection errors', () => {
  test('postgres store: an unreachable database is a StoreConnectionError with the password masked', async () => {
    const closed = new URL(postgresAdminUrl());
    closed.port = '1'; // nothing listens on port 1
    closed.password = 's3cret-pass';
    const err = await PostgresTranscriptStore.open(closed.toString(), { connectTimeoutMs: 2000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StoreConnectionError);
    const msg = (err as Error).message;
    expect(msg).toContain('postgres://postgres:***@127.0.0.1:1/postgres');
    expect(msg).toMatch(/ECONNREFUSED/);
    expect(msg).toMatch(/AGENT_RUNNER_STORE_URL/);
    expect(msg).not.toContain('s3cret-pass');
  });

  test('postgres store: a wrong password is a StoreConnectionError that does not print the password', async () => {
    const bad = new URL(postgresAdminUrl());
    bad.password = 'wrong-pass';
    const err = await PostgresTranscriptStore.open(bad.toString()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreConnectionError);
    expect((err as Error).message).toMatch(/password authentication failed/);
    expect((err as Error).message).not.toContain('wrong-pass');
  });

  test('postgres store: a database that does not exist is a StoreConnectionError naming it', async () => {
    const none = new URL(postgresAdminUrl());
    none.pathname = '/no_such_db';
    const err = await PostgresTranscriptStore.open(none.toString()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreConnectionError);
    expect((err as Error).message).toMatch(/database "no_such_db" does not exist/);
  });
});

describe('PostgreSQL store: the line index (migration 4)', () => {
  test('postgres store: migration 4 indexes the lines stored before it (tool_result ids, attachments), a NUL in a line included', async () => {
    const { url, schema } = fresh();
    // A store at schema version 3 with lines written by the code of that version.
    await sql(`CREATE SCHEMA ${schema}`);
    await sql(`CREATE TABLE ${schema}.schema_migrations (version integer PRIMARY KEY, name text NOT NULL,
                 applied_at timestamptz NOT NULL DEFAULT now())`);
    for (const m of MIGRATIONS.filter((m) => m.version <= 3)) {
      await sql(m.sql(schema));
      await sql(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
    }
    const result = (uuid: string, parent: string, id: string, text = 'ok'): TranscriptEntry => ({
      ...line('old', uuid, parent),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] },
    });
    const old: TranscriptEntry[] = [
      line('old', 'p', null),
      { ...line('old', 'ctx', 'p'), type: 'attachment', settingSources: ['project'] } as TranscriptEntry,
      result('r1', 'ctx', 'toolu_1'),
      result('r2', 'r1', 'toolu_2', 'a NUL \u0000 in the output'),
      line('old', 'plain', 'r2', 'mentions "tool_result" and "attachments" in text only'),
    ];
    for (const e of old) {
      await sql(
        `INSERT INTO ${schema}.entries (session_id, uuid, parent_uuid, is_boundary, entry) VALUES ($1, $2, $3, false, $4::json)`,
        [e.sessionId, e.uuid, e.parentUuid, JSON.stringify(e)],
      );
    }
    const store = await open(url);
    await expect(store.schemaVersion()).resolves.toBe(SCHEMA_VERSION);
    expect((await store.toolResultLines('old', 'toolu_1')).map((e) => e.uuid)).toEqual(['r1']);
    expect((await store.toolResultLines('old', 'toolu_2')).map((e) => e.uuid)).toEqual(['r2']);
    expect((await store.attachmentLines('old')).map((e) => e.uuid)).toEqual(['ctx']);
  });

  test('postgres store: lookups by tool_use id and of attachment lines use their indexes, never a scan of the session', async () => {
    const { url, schema } = fresh();
    const store = await open(url);
    for (let s = 0; s < 20; s++) {
      const lines = Array.from({ length: 500 }, (_, i) => ({
        ...line(`s${s}`, `s${s}-${i}`, i ? `s${s}-${i - 1}` : null),
        message: { role: 'user' as const, content: [{ type: 'tool_result', tool_use_id: `t${s}-${i}`, content: 'x' }] },
      }));
      await store.appendMany(lines);
    }
    await sql(`ANALYZE ${schema}.entries`);
    await sql(`ANALYZE ${schema}.tool_results`);
    const explain = async (q: string): Promise<string> =>
      (await sql<{ 'QUERY PLAN': string }>(`EXPLAIN ${q}`)).map((r) => r['QUERY PLAN']).join('\n');
    const byId = await explain(
      `SELECT t.uuid FROM ${schema}.tool_results t JOIN ${schema}.entries e ON e.session_id = t.session_id AND e.uuid = t.uuid
       WHERE t.session_id = 's7' AND t.tool_use_id = 't7-250' ORDER BY e.seq`,
    );
    expect(byId).toMatch(/Index (Only )?Scan using tool_results_pkey/);
    expect(byId).not.toMatch(/Seq Scan/);
    const attached = await explain(
      `SELECT uuid FROM ${schema}.entries WHERE session_id = 's7' AND has_attachments ORDER BY seq`,
    );
    expect(attached).toMatch(/entries_with_attachments/);
    expect(attached).not.toMatch(/Seq Scan/);
    expect((await store.toolResultLines('s7', 't7-250')).map((e) => e.uuid)).toEqual(['s7-250']);
  });
});

describe('PostgreSQL store: data layout', () => {
  test('postgres store: chain reads walk the primary key, never a scan of the session', async () => {
    const { url, schema } = fresh();
    const store = await open(url);
    // 20 sessions of 500 lines, so that the planner has a real table to choose plans for.
    for (let s = 0; s < 20; s++) {
      const lines = Array.from({ length: 500 }, (_, i) => line(`s${s}`, `s${s}-${i}`, i ? `s${s}-${i - 1}` : null));
      await store.appendMany(lines);
    }
    await sql(`ANALYZE ${schema}.entries`);
    const plan = await sql<{ 'QUERY PLAN': string }>(
      `EXPLAIN ${chainLinksSql(schema).replaceAll('$1', "'s7'").replaceAll('$2', "'s7-499'")}`,
    );
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toMatch(/Index Scan using entries_pkey on entries/);
    expect(text).not.toMatch(/Seq Scan on entries/);
    expect(await store.chain('s7', 's7-499')).toHaveLength(500);
  });

  test('postgres store: a blob is stored as 1 MiB chunk rows; a refused put leaves no row behind', async () => {
    const { url, schema } = fresh();
    const store = await open(url, { maxContentBytes: 3 * 1024 * 1024 });
    await store.putContent('s', 'snapshot/a', Buffer.alloc(2.5 * 1024 * 1024, 7));
    const chunks = await sql<{ seq: number; n: number }>(
      `SELECT seq, length(data) AS n FROM ${schema}.content_chunks WHERE key = 'snapshot/a' ORDER BY seq`,
    );
    expect(chunks).toEqual([
      { seq: 0, n: 1024 * 1024 },
      { seq: 1, n: 1024 * 1024 },
      { seq: 2, n: 512 * 1024 },
    ]);
    await expect(store.putContent('s', 'snapshot/b', Buffer.alloc(4 * 1024 * 1024))).rejects.toThrow(
      /larger than the limit/,
    );
    const left = await sql(`SELECT key FROM ${schema}.contents WHERE key = 'snapshot/b'`);
    const leftChunks = await sql(`SELECT key FROM ${schema}.content_chunks WHERE key = 'snapshot/b'`);
    expect([left, leftChunks]).toEqual([[], []]);
  });

  test('postgres store: insertEntries returns the stored line to every writer (first writer wins)', async () => {
    const { url } = fresh();
    const a = await open(url);
    const b = await open(url);
    const [first] = await a.insertEntries([line('s', 'u1', null, 'from a')]);
    expect(first).toEqual({
      entry: expect.objectContaining({ message: { role: 'user', content: 'from a' } }),
      created: true,
    });
    const results = await b.insertEntries([line('s', 'u1', null, 'from b'), line('s', 'u2', 'u1', 'new')]);
    expect(results.map((r) => [r.created, r.entry.message?.content])).toEqual([
      [false, 'from a'],
      [true, 'new'],
    ]);
  });
});

describe('PostgreSQL store: many writers', () => {
  test('postgres store: 50 sessions writing at once lose no line and duplicate none', async () => {
    const { url, schema } = fresh();
    // Five store instances (five connection pools, as five worker processes would have).
    const instances = await Promise.all(Array.from({ length: 5 }, () => open(url, { poolSize: 6 })));
    const sessions = 50;
    const steps = 30;
    // Each session writes its chain one line at a time, and every write is also sent by a
    // second instance (a retried attempt racing the first), with a batch now and then.
    await Promise.all(
      Array.from({ length: sessions }, async (_, s) => {
        const sid = `many-${s}`;
        for (let i = 0; i < steps; i++) {
          const e = line(sid, `${sid}-${i}`, i ? `${sid}-${i - 1}` : null, `step ${i} ${'z'.repeat(s * 10)}`);
          const writers = [instances[(s + i) % 5]!, instances[(s + i + 1) % 5]!];
          const wrote = await Promise.all(
            writers.map(async (w) => (i % 7 === 3 ? (await w.appendMany([e]))[0]! : await w.append(e))),
          );
          expect(wrote.filter((r) => r.written)).toHaveLength(1);
          expect(wrote[0]!.entry).toEqual(wrote[1]!.entry);
        }
      }),
    );
    const counts = await sql<{ session_id: string; n: string; d: string }>(
      `SELECT session_id, count(*) AS n, count(DISTINCT uuid) AS d FROM ${schema}.entries GROUP BY session_id`,
    );
    expect(counts).toHaveLength(sessions);
    for (const c of counts) expect([Number(c.n), Number(c.d)]).toEqual([steps, steps]);
    const reader = await open(url);
    for (let s = 0; s < sessions; s += 7) {
      const chain = await reader.chain(`many-${s}`, `many-${s}-${steps - 1}`);
      expect(chain.map((e) => e.uuid)).toEqual(Array.from({ length: steps }, (_, i) => `many-${s}-${i}`));
      expect((await reader.load(`many-${s}`)).map((e) => e.uuid)).toEqual(chain.map((e) => e.uuid));
    }
    expect((await reader.listSessions()).length).toBe(sessions);
  });
});
