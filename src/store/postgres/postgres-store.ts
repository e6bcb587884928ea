/**
 * The PostgreSQL transcript store: one database shared by every worker host and client, so that
 * a session outlives the machine that started it. Tables and migrations: `migrations.ts`.
 */
import * as os from 'node:os';
import { Pool, escapeIdentifier } from 'pg';
import { TRANSCRIPT_SCHEMA_VERSION, TranscriptEntrySchema, type TranscriptEntry } from '../../common/transcript';
import {
  CONTENT_CHUNK_BYTES,
  DEFAULT_MAX_CONTENT_BYTES,
  HashingReader,
  checkContentKey,
  contentLimit,
  type ContentBody,
  type ContentInfo,
  type PutContentOptions,
  type PutContentResult,
} from '../content';
import { checkId } from '../ids';
import { carriesAttachments, toolResultIdsOf } from '../line-keys';
import {
  ModelAttemptUsageSchema,
  TranscriptChainError,
  TranscriptCycleError,
  type AppendResult,
  type ModelAttemptUsage,
  type TranscriptStore,
} from '../transcript-store';
import { StoreConnectionError, StoreSchemaError, StoreServerVersionError, driverMessage } from './errors';
import { SCHEMA_VERSION, migrate, schemaVersion, type MigrateResult } from './migrations';
import { PostgresStreamEventChannel } from './stream-events';
import { parsePostgresUrl, type PostgresUrl } from './url';

/** Options of {@link PostgresTranscriptStore.open}. */
export interface PostgresStoreOptions {
  /**
   * `migrate`: bring the schema up to date (workers, `agent-runner store migrate`); `check`: only
   * verify it (clients); `none`: skip (tests of the check itself).
   * @default "check"
   */
  schema?: 'migrate' | 'check' | 'none';
  /** Connections in the pool. @default 10 */
  poolSize?: number;
  /** How long to wait for a connection, in milliseconds. @default 10000 */
  connectTimeoutMs?: number;
  /** Largest content blob accepted, in bytes. @default 268435456 (256 MiB) */
  maxContentBytes?: number;
  /** Parsed lines kept in memory (they never change once stored), in bytes of JSON. @default 67108864 */
  cacheBytes?: number;
  /** Receives warnings (an idle connection that broke). @default process.emitWarning */
  onWarning?: (msg: string) => void;
}

/** Oldest PostgreSQL release the store supports (for `CYCLE` in recursive queries). */
const MIN_SERVER_VERSION_NUM = 140000;

/** Sessions whose lines `load` keeps in memory. */
const MAX_LOADED_SESSIONS = 32;

/** SQLSTATEs after which a whole statement is simply run again: deadlock, serialization failure. */
const RETRY_CODES = new Set(['40P01', '40001']);

interface CachedEntry {
  entry: TranscriptEntry;
  bytes: number;
}

/**
 * {@link TranscriptStore} on PostgreSQL (14 or newer).
 *
 * - Lines are rows keyed by `(session_id, uuid)`; an append is one `INSERT … ON CONFLICT DO
 *   NOTHING` statement, so a retried or racing write never duplicates a line and the first
 *   writer wins. Writers of one session queue on the session's row, so the order of `seq`
 *   (file order) is the order of commits.
 * - `chain` walks `parent_uuid` with a recursive query over the primary key (never a scan of the
 *   session), then fetches only the lines not already cached in this process.
 * - Run markers are rows with a unique key; content blobs are rows of 1 MiB chunks written in
 *   one transaction, so a reader sees a whole blob or none.
 */
export class PostgresTranscriptStore implements TranscriptStore {
  private readonly s: string;
  private readonly maxContentBytes: number;
  private readonly cacheLimit: number;
  private readonly cache = new Map<string, CachedEntry>();
  /** Sessions read by `load`: their lines in order and the last `seq` read (LRU). */
  private readonly loaded = new Map<string, { seq: string; entries: TranscriptEntry[] }>();
  private cacheBytes = 0;
  private closed = false;
  /** The `--include-partial-messages` side channel, in the same database (`stream_events`). */
  readonly streamEvents: PostgresStreamEventChannel;
  readonly description: string;

  private constructor(
    private readonly pool: Pool,
    /** The URL (password masked) and schema. */
    readonly url: PostgresUrl,
    opts: PostgresStoreOptions,
  ) {
    this.s = escapeIdentifier(url.schema);
    this.description = `PostgreSQL transcript store at ${url.display}`;
    this.maxContentBytes = opts.maxContentBytes ?? DEFAULT_MAX_CONTENT_BYTES;
    this.cacheLimit = opts.cacheBytes ?? 64 * 1024 * 1024;
    this.streamEvents = new PostgresStreamEventChannel(pool, this.s);
  }

  /**
   * Connects, checks the server version and the schema (migrating it with `schema: "migrate"`).
   * @throws StoreConnectionError when the database cannot be reached (the URL is masked).
   * @throws StoreSchemaError when the schema is newer than this code, or older in `check` mode.
   * @throws StoreServerVersionError for PostgreSQL older than 14.
   * @throws InvalidStoreUrlError for a URL that does not parse.
   */
  static async open(url: string, opts: PostgresStoreOptions = {}): Promise<PostgresTranscriptStore> {
    const parsed = parsePostgresUrl(url);
    const warn = opts.onWarning ?? ((m: string) => process.emitWarning(m, 'TranscriptStoreWarning'));
    const pool = new Pool({
      connectionString: parsed.connectionString,
      max: opts.poolSize ?? 10,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      application_name: 'agent-runner',
    });
    // An idle connection that breaks (server restart) must not crash the process.
    pool.on('error', (err) => warn(`PostgreSQL store ${parsed.display}: idle connection lost: ${driverMessage(err)}`));
    const store = new PostgresTranscriptStore(pool, parsed, opts);
    try {
      let versionNum: number;
      try {
        const r = await pool.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
        versionNum = Number(r.rows[0]?.v ?? 0);
      } catch (err) {
        throw new StoreConnectionError(parsed.display, driverMessage(err), err);
      }
      if (versionNum < MIN_SERVER_VERSION_NUM) {
        throw new StoreServerVersionError(
          `the transcript store at ${parsed.display} runs PostgreSQL ${Math.floor(versionNum / 10000)}; 14 or newer is needed`,
        );
      }
      const mode = opts.schema ?? 'check';
      if (mode === 'migrate') await store.migrate();
      else if (mode === 'check') {
        const found = await schemaVersion(pool, store.s);
        if (found !== SCHEMA_VERSION) throw new StoreSchemaError(parsed.display, found, SCHEMA_VERSION);
      }
      return store;
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Applies the missing migrations (idempotent; safe while other processes run).
   * @throws StoreSchemaError when the database is newer than this code.
   */
  async migrate(): Promise<MigrateResult> {
    return migrate(this.pool, this.s, this.url.schema, this.url.display);
  }

  /** The schema version recorded in the database (0 before the first migration). */
  async schemaVersion(): Promise<number> {
    return schemaVersion(this.pool, this.s);
  }

  // --- Lines ------------------------------------------------------------------------------------

  async append(entry: TranscriptEntry): Promise<AppendResult> {
    const [r] = await this.appendMany([entry]);
    if (r === undefined) throw new Error('append: no result'); // unreachable: one entry in, one result out
    return r;
  }

  async appendMany(entries: TranscriptEntry[]): Promise<AppendResult[]> {
    return (await this.insertEntries(entries)).map((r) => ({ entry: r.entry, written: r.created }));
  }

  /**
   * Inserts lines of one session, skipping uuids already stored, and returns for each given
   * entry (in order) the line the store holds under its uuid and whether this call wrote it. A
   * uuid repeated in `entries` is written once (the first occurrence wins).
   * @throws Error when the entries belong to different sessions or fail the schema.
   */
  async insertEntries(entries: TranscriptEntry[]): Promise<Array<{ entry: TranscriptEntry; created: boolean }>> {
    const first = entries[0];
    if (first === undefined) return [];
    const sessionId = first.sessionId;
    checkId('session id', sessionId);
    const lines: TranscriptEntry[] = [];
    for (const entry of entries) {
      if (entry.sessionId !== sessionId) {
        throw new Error(`appendMany: entries of sessions ${sessionId} and ${entry.sessionId} in one call`);
      }
      const parsed = TranscriptEntrySchema.safeParse(entry);
      if (!parsed.success) {
        throw new Error(`appendMany: invalid transcript entry ${String(entry.uuid)}: ${parsed.error.message}`);
      }
      lines.push({ ...entry, v: entry.v ?? TRANSCRIPT_SCHEMA_VERSION });
    }
    const unique: TranscriptEntry[] = [];
    const seen = new Set<string>();
    for (const e of lines) {
      if (seen.has(e.uuid)) continue;
      seen.add(e.uuid);
      unique.push(e);
    }
    const firstCwd = unique[0]?.['cwd'];
    const cwd = typeof firstCwd === 'string' ? firstCwd : null;
    const texts = unique.map((e) => JSON.stringify(e));
    // Columns travel as arrays: extracting fields in SQL (json ->>) fails on a "\u0000" anywhere
    // in the line, while the json type itself keeps such text as it is.
    // The session row is upserted first (the insert reads from `touched`): writers of one
    // session queue on it, which orders seq by commit and rules out lock-order deadlocks.
    // The index rows of the lines this statement writes (tool_result ids) go in with them.
    const sql = `
      WITH touched AS (
        INSERT INTO ${this.s}.sessions AS ss (session_id, cwd) VALUES ($1, $2)
        ON CONFLICT (session_id) DO UPDATE SET modified_at = now(), cwd = COALESCE(ss.cwd, EXCLUDED.cwd)
        RETURNING 1 AS one
      ), written AS (
        INSERT INTO ${this.s}.entries (session_id, uuid, parent_uuid, is_boundary, has_attachments, entry)
        SELECT $1, i.uuid, i.parent_uuid, i.is_boundary, i.has_attachments, i.entry::json
        FROM unnest($3::text[], $4::text[], $5::boolean[], $6::boolean[], $7::text[]) WITH ORDINALITY
               AS i(uuid, parent_uuid, is_boundary, has_attachments, entry, ord)
        CROSS JOIN touched
        ORDER BY i.ord
        ON CONFLICT (session_id, uuid) DO NOTHING
        RETURNING uuid
      ), indexed AS (
        INSERT INTO ${this.s}.tool_results (session_id, tool_use_id, uuid)
        SELECT $1, t.tool_use_id, t.uuid
        FROM unnest($8::text[], $9::text[]) AS t(uuid, tool_use_id)
        JOIN written w ON w.uuid = t.uuid
        ON CONFLICT DO NOTHING
      )
      SELECT uuid FROM written`;
    const results = unique.flatMap((e) => toolResultIdsOf(e).map((id) => [e.uuid, id] as const));
    const params = [
      sessionId,
      cwd,
      unique.map((e) => e.uuid),
      unique.map((e) => e.parentUuid),
      unique.map((e) => e.type === 'system' && e.subtype === 'compact_boundary'),
      unique.map(carriesAttachments),
      texts,
      results.map(([uuid]) => uuid),
      results.map(([, id]) => id),
    ];
    const r = await this.withRetry(() => this.pool.query<{ uuid: string }>(sql, params));
    const created = new Set(r.rows.map((row) => row.uuid));
    unique.forEach((e, i) => {
      if (created.has(e.uuid)) this.remember(sessionId, e, Buffer.byteLength(texts[i] ?? ''));
    });
    const lost = unique.filter((e) => !created.has(e.uuid)).map((e) => e.uuid);
    const stored = lost.length > 0 ? await this.fetch(sessionId, lost) : new Map<string, TranscriptEntry>();
    const claimed = new Set<string>();
    return lines.map((e) => {
      if (created.has(e.uuid) && !claimed.has(e.uuid)) {
        claimed.add(e.uuid);
        return { entry: e, created: true };
      }
      const held = stored.get(e.uuid) ?? this.cached(sessionId, e.uuid);
      return { entry: held ?? e, created: false };
    });
  }

  async get(sessionId: string, uuid: string): Promise<TranscriptEntry | undefined> {
    checkId('session id', sessionId);
    const hit = this.cached(sessionId, uuid);
    if (hit) return hit;
    return (await this.fetch(sessionId, [uuid])).get(uuid);
  }

  /**
   * Lines in write order. Read incrementally: the lines of the last sessions loaded are kept,
   * and only rows with a higher `seq` are fetched (writers of a session queue on its row, so
   * `seq` grows in commit order and a row with a lower `seq` can never appear later).
   */
  async load(sessionId: string): Promise<TranscriptEntry[]> {
    checkId('session id', sessionId);
    let loaded = this.loaded.get(sessionId);
    this.loaded.delete(sessionId);
    if (!loaded) loaded = { seq: '0', entries: [] };
    this.loaded.set(sessionId, loaded);
    while (this.loaded.size > MAX_LOADED_SESSIONS) {
      const oldest = this.loaded.keys().next().value;
      if (oldest === undefined) break;
      this.loaded.delete(oldest);
    }
    const r = await this.pool.query<{ seq: string; entry: TranscriptEntry }>(
      `SELECT seq, entry FROM ${this.s}.entries WHERE session_id = $1 AND seq > $2 ORDER BY seq`,
      [sessionId, loaded.seq],
    );
    for (const row of r.rows) {
      loaded.entries.push(row.entry);
      loaded.seq = row.seq;
    }
    return [...loaded.entries];
  }

  /** Through the `tool_results` index (migration 4): the uuids, then the lines not cached. */
  async toolResultLines(sessionId: string, toolUseId: string): Promise<TranscriptEntry[]> {
    checkId('session id', sessionId);
    const r = await this.pool.query<{ uuid: string }>(
      `SELECT t.uuid FROM ${this.s}.tool_results t
       JOIN ${this.s}.entries e ON e.session_id = t.session_id AND e.uuid = t.uuid
       WHERE t.session_id = $1 AND t.tool_use_id = $2 ORDER BY e.seq`,
      [sessionId, toolUseId],
    );
    return this.linesOf(
      sessionId,
      r.rows.map((row) => row.uuid),
    );
  }

  /** Through the partial index `entries_with_attachments` (migration 4): the uuids, then the lines not cached. */
  async attachmentLines(sessionId: string): Promise<TranscriptEntry[]> {
    checkId('session id', sessionId);
    const r = await this.pool.query<{ uuid: string }>(
      `SELECT uuid FROM ${this.s}.entries WHERE session_id = $1 AND has_attachments ORDER BY seq`,
      [sessionId],
    );
    return this.linesOf(
      sessionId,
      r.rows.map((row) => row.uuid),
    );
  }

  /**
   * @throws TranscriptChainError when `leafUuid` or a parent on its chain is missing.
   * @throws TranscriptCycleError when the chain loops.
   */
  async chain(sessionId: string, leafUuid: string): Promise<TranscriptEntry[]> {
    checkId('session id', sessionId);
    const links = await this.pool.query<{
      uuid: string;
      parent_uuid: string | null;
      is_boundary: boolean;
      is_cycle: boolean;
    }>(chainLinksSql(this.s), [sessionId, leafUuid]);
    const rows = links.rows;
    const cycle = rows.find((row) => row.is_cycle);
    if (cycle) throw new TranscriptCycleError(sessionId, cycle.uuid);
    const last = rows[rows.length - 1];
    if (!last) throw new TranscriptChainError(sessionId, leafUuid);
    if (!last.is_boundary && last.parent_uuid !== null) throw new TranscriptChainError(sessionId, last.parent_uuid);
    const uuids = rows.filter((row) => !row.is_boundary).map((row) => row.uuid);
    const missing = uuids.filter((u) => !this.cached(sessionId, u));
    const fetched = missing.length > 0 ? await this.fetch(sessionId, missing) : new Map<string, TranscriptEntry>();
    const out: TranscriptEntry[] = [];
    for (let i = uuids.length - 1; i >= 0; i--) {
      const u = uuids[i] as string;
      const e = fetched.get(u) ?? this.cached(sessionId, u);
      if (!e) throw new TranscriptChainError(sessionId, u);
      out.push(e);
    }
    return out;
  }

  async exists(sessionId: string): Promise<boolean> {
    checkId('session id', sessionId);
    const r = await this.pool.query(`SELECT 1 FROM ${this.s}.entries WHERE session_id = $1 LIMIT 1`, [sessionId]);
    return (r.rowCount ?? 0) > 0;
  }

  async listSessions(): Promise<Array<{ sessionId: string; modifiedMs: number; cwd?: string }>> {
    const r = await this.pool.query<{ session_id: string; cwd: string | null; modified_at: Date }>(
      `SELECT session_id, cwd, modified_at FROM ${this.s}.sessions ORDER BY modified_at DESC, session_id`,
    );
    return r.rows.map((row) => ({
      sessionId: row.session_id,
      modifiedMs: row.modified_at.getTime(),
      ...(row.cwd !== null ? { cwd: row.cwd } : {}),
    }));
  }

  // --- Run markers ------------------------------------------------------------------------------

  async markToolRunStarted(sessionId: string, toolUseId: string): Promise<boolean> {
    checkId('session id', sessionId);
    checkId('tool use id', toolUseId);
    const r = await this.pool.query(
      `INSERT INTO ${this.s}.tool_runs (session_id, tool_use_id, host, pid) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING`,
      [sessionId, toolUseId, os.hostname(), process.pid],
    );
    return r.rowCount === 0;
  }

  async listToolRuns(sessionId: string): Promise<string[]> {
    checkId('session id', sessionId);
    const r = await this.pool.query<{ tool_use_id: string }>(
      `SELECT tool_use_id FROM ${this.s}.tool_runs WHERE session_id = $1 ORDER BY tool_use_id`,
      [sessionId],
    );
    return r.rows.map((row) => row.tool_use_id);
  }

  // --- Model-call attempt usage --------------------------------------------------------------------

  async putModelAttemptUsage(sessionId: string, record: ModelAttemptUsage): Promise<void> {
    checkId('session id', sessionId);
    checkId('call uuid', record.callUuid);
    const parsed = ModelAttemptUsageSchema.safeParse(record);
    if (!parsed.success) throw new Error(`putModelAttemptUsage: invalid record: ${parsed.error.message}`);
    await this.withRetry(() =>
      this.pool.query(
        `INSERT INTO ${this.s}.model_attempt_usage (session_id, call_uuid, attempt, phase, record)
         VALUES ($1, $2, $3, $4, $5::json)
         ON CONFLICT (session_id, call_uuid, attempt, phase) DO UPDATE SET record = EXCLUDED.record`,
        [sessionId, record.callUuid, record.attempt, record.phase, JSON.stringify(parsed.data)],
      ),
    );
  }

  async modelAttemptUsage(sessionId: string, callUuid?: string): Promise<ModelAttemptUsage[]> {
    checkId('session id', sessionId);
    const r = await this.pool.query<{ record: unknown }>(
      `SELECT record FROM ${this.s}.model_attempt_usage
       WHERE session_id = $1 AND ($2::text IS NULL OR call_uuid = $2)
       ORDER BY call_uuid, attempt, phase DESC`,
      [sessionId, callUuid ?? null],
    );
    // phase DESC puts 'start' before 'end'.
    return r.rows.flatMap((row) => {
      const parsed = ModelAttemptUsageSchema.safeParse(row.record);
      return parsed.success ? [parsed.data] : [];
    });
  }

  // --- Content ----------------------------------------------------------------------------------

  async putContent(
    sessionId: string,
    key: string,
    body: ContentBody,
    opts?: PutContentOptions,
  ): Promise<PutContentResult> {
    checkId('session id', sessionId);
    checkContentKey(key);
    const existing = await this.contentInfo(sessionId, key);
    if (existing) return { ...existing, created: false };
    const reader = new HashingReader(sessionId, key, contentLimit(this.maxContentBytes, opts));
    const client = await this.pool.connect();
    let open = false;
    try {
      await client.query('BEGIN');
      open = true;
      // Claims the key; a concurrent writer of the same key waits here until this one ends.
      const claim = await client.query<{ created_at: Date }>(
        `INSERT INTO ${this.s}.contents (session_id, key, size, sha256, chunks) VALUES ($1, $2, 0, '', 0)
         ON CONFLICT DO NOTHING RETURNING created_at`,
        [sessionId, key],
      );
      const createdAt = claim.rows[0]?.created_at;
      if (!createdAt) {
        await client.query('ROLLBACK');
        open = false;
      } else {
        let seq = 0;
        for await (const chunk of rechunk(reader.chunks(body), CONTENT_CHUNK_BYTES)) {
          await client.query(
            `INSERT INTO ${this.s}.content_chunks (session_id, key, seq, data) VALUES ($1, $2, $3, $4)`,
            [sessionId, key, seq++, chunk],
          );
        }
        const sha256 = reader.digest();
        await client.query(
          `UPDATE ${this.s}.contents SET size = $3, sha256 = $4, chunks = $5 WHERE session_id = $1 AND key = $2`,
          [sessionId, key, reader.size, sha256, seq],
        );
        await client.query('COMMIT');
        open = false;
        return { key, size: reader.size, sha256, createdAt: createdAt.toISOString(), created: true };
      }
    } catch (err) {
      if (open) await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
    // Another writer holds the key: report what it stored.
    const stored = await this.contentInfo(sessionId, key);
    if (!stored) throw new Error(`content ${key} of session ${sessionId} vanished while being written`);
    return { ...stored, created: false };
  }

  async getContent(sessionId: string, key: string): Promise<Buffer | undefined> {
    checkId('session id', sessionId);
    checkContentKey(key);
    const r = await this.pool.query<{ size: string; data: Buffer | null }>(
      `SELECT c.size, ch.data FROM ${this.s}.contents c
       LEFT JOIN ${this.s}.content_chunks ch ON ch.session_id = c.session_id AND ch.key = c.key
       WHERE c.session_id = $1 AND c.key = $2 ORDER BY ch.seq`,
      [sessionId, key],
    );
    if (r.rows.length === 0) return undefined;
    return Buffer.concat(r.rows.flatMap((row) => (row.data ? [row.data] : [])));
  }

  async openContent(sessionId: string, key: string): Promise<AsyncIterable<Buffer> | undefined> {
    checkId('session id', sessionId);
    checkContentKey(key);
    const r = await this.pool.query<{ chunks: number }>(
      `SELECT chunks FROM ${this.s}.contents WHERE session_id = $1 AND key = $2`,
      [sessionId, key],
    );
    const count = r.rows[0]?.chunks;
    if (count === undefined) return undefined;
    const pool = this.pool;
    const sql = `SELECT data FROM ${this.s}.content_chunks WHERE session_id = $1 AND key = $2 AND seq = $3`;
    return (async function* () {
      for (let seq = 0; seq < count; seq++) {
        const c = await pool.query<{ data: Buffer }>(sql, [sessionId, key, seq]);
        const data = c.rows[0]?.data;
        if (!data) throw new Error(`content ${key} of session ${sessionId} has no chunk ${seq}`);
        yield data;
      }
    })();
  }

  async contentInfo(sessionId: string, key: string): Promise<ContentInfo | undefined> {
    checkId('session id', sessionId);
    checkContentKey(key);
    const r = await this.pool.query<ContentRow>(
      `SELECT key, size, sha256, created_at FROM ${this.s}.contents WHERE session_id = $1 AND key = $2`,
      [sessionId, key],
    );
    const row = r.rows[0];
    return row ? contentInfoOf(row) : undefined;
  }

  async listContent(sessionId: string, prefix = ''): Promise<ContentInfo[]> {
    checkId('session id', sessionId);
    const r = await this.pool.query<ContentRow>(
      `SELECT key, size, sha256, created_at FROM ${this.s}.contents
       WHERE session_id = $1 AND left(key, length($2)) = $2 ORDER BY key`,
      [sessionId, prefix],
    );
    return r.rows.map(contentInfoOf);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  // ---------------------------------------------------------------------------------------------

  /** Lines by uuid, read from the database (and cached). */
  private async fetch(sessionId: string, uuids: string[]): Promise<Map<string, TranscriptEntry>> {
    const r = await this.pool.query<{ uuid: string; entry: TranscriptEntry; n: number }>(
      `SELECT uuid, entry, octet_length(entry::text) AS n FROM ${this.s}.entries
       WHERE session_id = $1 AND uuid = ANY($2::text[])`,
      [sessionId, uuids],
    );
    const out = new Map<string, TranscriptEntry>();
    for (const row of r.rows) {
      out.set(row.uuid, row.entry);
      this.remember(sessionId, row.entry, row.n);
    }
    return out;
  }

  /** The lines of `uuids`, in that order: cached ones from memory, the others in one query. */
  private async linesOf(sessionId: string, uuids: string[]): Promise<TranscriptEntry[]> {
    const missing = uuids.filter((u) => !this.cached(sessionId, u));
    const fetched = missing.length > 0 ? await this.fetch(sessionId, missing) : new Map<string, TranscriptEntry>();
    return uuids.flatMap((u) => {
      const e = fetched.get(u) ?? this.cached(sessionId, u);
      return e ? [e] : [];
    });
  }

  private cached(sessionId: string, uuid: string): TranscriptEntry | undefined {
    const k = `${sessionId}\u0000${uuid}`;
    const hit = this.cache.get(k);
    if (!hit) return undefined;
    this.cache.delete(k);
    this.cache.set(k, hit);
    return hit.entry;
  }

  private remember(sessionId: string, entry: TranscriptEntry, bytes: number): void {
    if (bytes > this.cacheLimit / 4) return;
    const k = `${sessionId}\u0000${entry.uuid}`;
    if (this.cache.has(k)) return;
    this.cache.set(k, { entry, bytes });
    this.cacheBytes += bytes;
    for (const [old, v] of this.cache) {
      if (this.cacheBytes <= this.cacheLimit) break;
      this.cache.delete(old);
      this.cacheBytes -= v.bytes;
    }
  }

  private async withRetry<T>(fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (attempt >= 5 || typeof code !== 'string' || !RETRY_CODES.has(code)) throw err;
        await new Promise((r) => setTimeout(r, 10 * attempt));
      }
    }
  }
}

interface ContentRow {
  key: string;
  size: string;
  sha256: string;
  created_at: Date;
}

function contentInfoOf(row: ContentRow): ContentInfo {
  return { key: row.key, size: Number(row.size), sha256: row.sha256, createdAt: row.created_at.toISOString() };
}

/** Regroups a stream of buffers into buffers of exactly `size` bytes (the last one shorter). */
async function* rechunk(chunks: AsyncIterable<Buffer>, size: number): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let have = 0;
  for await (const c of chunks) {
    let off = 0;
    while (off < c.length) {
      const take = Math.min(size - have, c.length - off);
      parts.push(c.subarray(off, off + take));
      have += take;
      off += take;
      if (have === size) {
        yield Buffer.concat(parts, have);
        parts = [];
        have = 0;
      }
    }
  }
  if (have > 0) yield Buffer.concat(parts, have);
}

/**
 * The links of the chain ending at `$2` in session `$1`, leaf first: a recursive walk of
 * `parent_uuid` where each step is one lookup in the primary key `(session_id, uuid)`, stopping
 * after a compact boundary. `CYCLE` marks the row that closes a loop.
 * @param s the quoted schema name.
 */
export function chainLinksSql(s: string): string {
  return `WITH RECURSIVE c AS (
      SELECT uuid, parent_uuid, is_boundary, 0 AS depth
      FROM ${s}.entries WHERE session_id = $1 AND uuid = $2
      UNION ALL
      SELECT e.uuid, e.parent_uuid, e.is_boundary, c.depth + 1
      FROM c JOIN ${s}.entries e ON e.session_id = $1 AND e.uuid = c.parent_uuid
      WHERE NOT c.is_boundary
    ) CYCLE uuid SET is_cycle USING path
    SELECT uuid, parent_uuid, is_boundary, is_cycle FROM c ORDER BY depth`;
}
