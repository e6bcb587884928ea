/**
 * Versioned schema of the PostgreSQL store. Each migration runs once, in order, in one
 * transaction with the version row that records it; concurrent migrators (several workers
 * starting at once) queue on an advisory lock. Never edit a released migration: add one.
 */
import type { Pool, PoolClient } from 'pg';
import type { TranscriptEntry } from '../../common/transcript';
import { carriesAttachments, toolResultIdsOf } from '../line-keys';
import { StoreSchemaError } from './errors';

/**
 * One step of the schema. `sql` gets the quoted schema name and returns the statements;
 * `backfill`, when present, then fills what the new structures need from existing rows, in the
 * same transaction.
 */
export interface Migration {
  version: number;
  name: string;
  sql: (schema: string) => string;
  backfill?: (client: PoolClient, schema: string) => Promise<void>;
}

/**
 * The migrations, oldest first. Ids (`session_id`, `uuid`, `key`) use the "C" collation: byte
 * order, so that key order and prefix scans do not depend on the server's locale.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, entries, tool runs, content',
    sql: (s) => `
      CREATE TABLE ${s}.sessions (
        session_id text COLLATE "C" PRIMARY KEY,
        cwd text,
        created_at timestamptz NOT NULL DEFAULT now(),
        modified_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX sessions_by_modified ON ${s}.sessions (modified_at DESC, session_id);

      -- One row per transcript line. The primary key is the upsert key and the index that
      -- chain reads walk (session_id, uuid) → parent_uuid; seq keeps the order of writes.
      CREATE TABLE ${s}.entries (
        session_id text COLLATE "C" NOT NULL,
        uuid text COLLATE "C" NOT NULL,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        parent_uuid text COLLATE "C",
        is_boundary boolean NOT NULL,
        entry json NOT NULL,
        PRIMARY KEY (session_id, uuid)
      );
      CREATE INDEX entries_by_seq ON ${s}.entries (session_id, seq);

      CREATE TABLE ${s}.tool_runs (
        session_id text COLLATE "C" NOT NULL,
        tool_use_id text COLLATE "C" NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        host text NOT NULL,
        pid integer NOT NULL,
        PRIMARY KEY (session_id, tool_use_id)
      );

      CREATE TABLE ${s}.contents (
        session_id text COLLATE "C" NOT NULL,
        key text COLLATE "C" NOT NULL,
        size bigint NOT NULL,
        sha256 text NOT NULL,
        chunks integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, key)
      );
      CREATE TABLE ${s}.content_chunks (
        session_id text COLLATE "C" NOT NULL,
        key text COLLATE "C" NOT NULL,
        seq integer NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (session_id, key, seq),
        FOREIGN KEY (session_id, key) REFERENCES ${s}.contents ON DELETE CASCADE
      );
      -- Snapshots and bundles are compressed already: store chunks out of line, uncompressed.
      ALTER TABLE ${s}.content_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
    `,
  },
  {
    version: 2,
    name: 'model attempt usage',
    sql: (s) => `
      -- Usage billed by each attempt of a model call (see ModelAttemptUsage): one row per
      -- (call, attempt, phase), replaced by a later write of the same key.
      CREATE TABLE ${s}.model_attempt_usage (
        session_id text COLLATE "C" NOT NULL,
        call_uuid text COLLATE "C" NOT NULL,
        attempt integer NOT NULL CHECK (attempt > 0),
        phase text NOT NULL CHECK (phase IN ('start', 'end')),
        record json NOT NULL,
        PRIMARY KEY (session_id, call_uuid, attempt, phase)
      );
    `,
  },
  {
    version: 3,
    name: 'stream events',
    sql: (s) => `
      -- The side channel of --include-partial-messages (PostgresStreamEventChannel): best effort,
      -- so UNLOGGED (no WAL; emptied after a server crash). One row per event of a model call,
      -- seq counting from 1 within the call; a last row with done and no event ends the stream.
      CREATE UNLOGGED TABLE ${s}.stream_events (
        session_id text COLLATE "C" NOT NULL,
        call_id text COLLATE "C" NOT NULL,
        seq integer NOT NULL,
        event json,
        done boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, call_id, seq),
        CHECK (done = (event IS NULL))
      );
      -- Ended calls of any session, for the TTL sweep.
      CREATE INDEX stream_events_done ON ${s}.stream_events (created_at) WHERE done;
    `,
  },
  {
    version: 4,
    name: 'lines by tool_use id, lines with attachments',
    sql: (s) => `
      -- The lines holding a tool_result for a tool_use id (toolResultLines): runTool looks for
      -- an earlier result of its call here instead of reading the session.
      CREATE TABLE ${s}.tool_results (
        session_id text COLLATE "C" NOT NULL,
        tool_use_id text COLLATE "C" NOT NULL,
        uuid text COLLATE "C" NOT NULL,
        PRIMARY KEY (session_id, tool_use_id, uuid)
      );
      -- The lines with context attachments (attachmentLines): nested memory reads these only.
      ALTER TABLE ${s}.entries ADD COLUMN has_attachments boolean NOT NULL DEFAULT false;
      CREATE INDEX entries_with_attachments ON ${s}.entries (session_id, seq) WHERE has_attachments;
    `,
    backfill: backfillLineKeys,
  },
];

/** Rows read per round of {@link backfillLineKeys}. */
const BACKFILL_BATCH = 1000;

/**
 * Indexes the lines stored before migration 4 (tool_result ids, attachments), reading them through
 * a cursor in batches. The keys are computed from the parsed line (src/store/line-keys.ts), as
 * when a line is written: extracting fields in SQL would fail on a line holding a `\u0000`.
 */
async function backfillLineKeys(client: PoolClient, s: string): Promise<void> {
  await client.query(
    `DECLARE line_keys NO SCROLL CURSOR FOR
       SELECT session_id, uuid, entry::text AS text FROM ${s}.entries
       WHERE entry::text LIKE '%"tool_result"%' OR entry::text LIKE '%"attachment%'`,
  );
  for (;;) {
    const r = await client.query<{ session_id: string; uuid: string; text: string }>(
      `FETCH ${BACKFILL_BATCH} FROM line_keys`,
    );
    if (r.rows.length === 0) break;
    const results: { session: string[]; id: string[]; uuid: string[] } = { session: [], id: [], uuid: [] };
    const withAttachments: { session: string[]; uuid: string[] } = { session: [], uuid: [] };
    for (const row of r.rows) {
      const line = JSON.parse(row.text) as TranscriptEntry;
      for (const id of toolResultIdsOf(line)) {
        results.session.push(row.session_id);
        results.id.push(id);
        results.uuid.push(row.uuid);
      }
      if (carriesAttachments(line)) {
        withAttachments.session.push(row.session_id);
        withAttachments.uuid.push(row.uuid);
      }
    }
    await client.query(
      `INSERT INTO ${s}.tool_results (session_id, tool_use_id, uuid)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) ON CONFLICT DO NOTHING`,
      [results.session, results.id, results.uuid],
    );
    await client.query(
      `UPDATE ${s}.entries e SET has_attachments = true
       FROM unnest($1::text[], $2::text[]) AS a(session_id, uuid)
       WHERE e.session_id = a.session_id AND e.uuid = a.uuid`,
      [withAttachments.session, withAttachments.uuid],
    );
  }
  await client.query('CLOSE line_keys');
}

/** The schema version this code expects: the last migration's. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/** What {@link migrate} did. */
export interface MigrateResult {
  /** Version before. */
  from: number;
  /** Version after. */
  to: number;
  /** Migrations applied now, oldest first. */
  applied: Array<{ version: number; name: string }>;
}

/**
 * The schema version recorded in the database, 0 when the store has no tables yet.
 * @param schema the quoted schema name.
 */
export async function schemaVersion(db: Pool | PoolClient, schema: string): Promise<number> {
  const exists = await db.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [`${schema}.schema_migrations`]);
  if (!exists.rows[0]?.t) return 0;
  const r = await db.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${schema}.schema_migrations`);
  return r.rows[0]?.v ?? 0;
}

/**
 * Brings the schema to {@link SCHEMA_VERSION}: creates the schema and applies the missing
 * migrations in one transaction under an advisory lock.
 * @param schema the quoted schema name; `schemaName` the plain one (for the lock key).
 * @throws StoreSchemaError when the database is newer than this code (nothing is changed).
 */
export async function migrate(pool: Pool, schema: string, schemaName: string, url: string): Promise<MigrateResult> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agent-runner migrate ${schemaName}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (
         version integer PRIMARY KEY,
         name text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const from = await schemaVersion(client, schema);
    if (from > SCHEMA_VERSION) throw new StoreSchemaError(url, from, SCHEMA_VERSION);
    const applied: MigrateResult['applied'] = [];
    for (const m of MIGRATIONS) {
      if (m.version <= from) continue;
      await client.query(m.sql(schema));
      await m.backfill?.(client, schema);
      await client.query(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, $2)`, [
        m.version,
        m.name,
      ]);
      applied.push({ version: m.version, name: m.name });
    }
    await client.query('COMMIT');
    return { from, to: Math.max(from, SCHEMA_VERSION), applied };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
