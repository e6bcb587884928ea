/**
 * The default transcript store: one JSONL file per session, `<dataDir>/sessions/<sessionId>.jsonl`,
 * appended with O_APPEND and fsync, read incrementally, shared by every process on the machine.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, ensurePrivateDataDir } from './data-dir';
import { randomBytes } from 'node:crypto';
import { TRANSCRIPT_SCHEMA_VERSION, TranscriptEntrySchema, type TranscriptEntry } from '../common/transcript';
import {
  DEFAULT_MAX_CONTENT_BYTES,
  type ContentBody,
  type ContentInfo,
  type PutContentOptions,
  type PutContentResult,
} from './content';
import { JsonlContentFiles } from './jsonl-content';
import { checkId } from './ids';
import { FileStreamEventChannel } from './stream-events';
import type { StreamEventChannel } from './stream-events';
import { carriesAttachments, toolResultIdsOf } from './line-keys';
import {
  ModelAttemptUsageSchema,
  TranscriptChainError,
  TranscriptCycleError,
  type AppendResult,
  type ModelAttemptUsage,
  type TranscriptStore,
} from './transcript-store';

export { InvalidTranscriptIdError } from './ids';
export { TranscriptCycleError } from './transcript-store';

/** Directory of the session files: `<dataDir>/sessions`. */
export function sessionsDir(dataDir: string): string {
  return path.join(dataDir, 'sessions');
}

/**
 * Path of a session's transcript: `<dataDir>/sessions/<sessionId>.jsonl`.
 * @throws InvalidTranscriptIdError when the id has a path separator, `..` or NUL.
 */
export function transcriptPath(dataDir: string, sessionId: string): string {
  checkId('session id', sessionId);
  return path.join(sessionsDir(dataDir), `${sessionId}.jsonl`);
}

/** Options of {@link JsonlTranscriptStore}. */
export interface JsonlTranscriptStoreOptions {
  /**
   * Receives a message for each skipped line (torn last line, bad JSON, schema mismatch).
   * @default process.emitWarning
   */
  onWarning?: (msg: string) => void;
  /** Sessions whose parsed lines are kept in memory (least recently used are dropped). @default 64 */
  maxCachedSessions?: number;
  /** Largest content blob accepted, in bytes. @default 268435456 (256 MiB) */
  maxContentBytes?: number;
}

/** What has been read of one session file. */
interface SessionCache {
  dev: number;
  ino: number;
  /** Bytes consumed: always just after a newline (or 0). */
  offset: number;
  /** Complete lines consumed (for line numbers in warnings). */
  lines: number;
  entries: TranscriptEntry[];
  byUuid: Map<string, TranscriptEntry>;
  /** Lines by the tool_use ids of their tool_result blocks, in file order. */
  byToolResultId: Map<string, TranscriptEntry[]>;
  /** Lines that carry context attachments, in file order. */
  withAttachments: TranscriptEntry[];
  /** Offset of an unterminated last line already reported as torn. */
  tornWarnedAt: number;
}

const NEWLINE = 0x0a;
/** Call directories whose model-attempt usage records are kept in memory. */
const MAX_CACHED_ATTEMPT_DIRS = 1024;
const READ_CHUNK = 4 * 1024 * 1024;
const TORN_RECHECKS = 3;
const TORN_RECHECK_MS = 20;

/**
 * {@link TranscriptStore} on JSONL files. Appends are serialized per session inside the process
 * and use one O_APPEND write + fsync each, so other processes can append to the same file; reads
 * pick up what any process appended (only the new bytes are read). A corrupt or torn line is
 * skipped with a warning, never thrown.
 */
export class JsonlTranscriptStore implements TranscriptStore {
  private readonly dir: string;
  private readonly warn: (msg: string) => void;
  private readonly maxCached: number;
  private readonly caches = new Map<string, SessionCache>();
  private readonly locks = new Map<string, Promise<void>>();
  /** Model-attempt usage records read so far, by call directory and file name. */
  private readonly attemptRecords = new Map<string, Map<string, ModelAttemptUsage>>();
  private readonly content: JsonlContentFiles;
  /** Stream events of model calls, as files beside the transcripts (`<dataDir>/stream-events/`). */
  readonly streamEvents: StreamEventChannel;
  readonly description: string;

  /**
   * @param dataDir the runner's data directory; files go to `<dataDir>/sessions/`.
   */
  constructor(
    readonly dataDir: string,
    opts: JsonlTranscriptStoreOptions = {},
  ) {
    // The data directory is private (0700, this user's): checked, and repaired, once per process.
    ensurePrivateDataDir(dataDir);
    this.dir = sessionsDir(dataDir);
    this.description = `transcript store at ${this.dir} (JSONL files)`;
    this.warn = opts.onWarning ?? ((msg) => process.emitWarning(msg, 'TranscriptStoreWarning'));
    this.maxCached = Math.max(1, opts.maxCachedSessions ?? 64);
    this.content = new JsonlContentFiles(this.dir, opts.maxContentBytes ?? DEFAULT_MAX_CONTENT_BYTES);
    this.streamEvents = new FileStreamEventChannel(dataDir);
  }

  /** @throws InvalidTranscriptIdError for an unsafe session id; Error for an entry failing the schema. */
  async append(entry: TranscriptEntry): Promise<AppendResult> {
    const [result] = await this.appendMany([entry]);
    if (result === undefined) throw new Error('append: no result'); // unreachable: one entry in, one result out
    return result;
  }

  /**
   * Entries whose uuid is already stored (by this or another process), or repeated in `entries`,
   * are not written; their result holds the line stored first.
   * @throws Error when the entries belong to different sessions or fail the schema.
   */
  async appendMany(entries: TranscriptEntry[]): Promise<AppendResult[]> {
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
    return this.withLock(sessionId, () => this.write(sessionId, lines));
  }

  async get(sessionId: string, uuid: string): Promise<TranscriptEntry | undefined> {
    const cache = await this.read(sessionId);
    return cache.byUuid.get(uuid);
  }

  /** Lines in file order; a uuid stored twice (two processes racing) is returned once. */
  async load(sessionId: string): Promise<TranscriptEntry[]> {
    return [...(await this.read(sessionId)).entries];
  }

  /** From the session's in-memory index (built as lines are read): no scan of its lines. */
  async toolResultLines(sessionId: string, toolUseId: string): Promise<TranscriptEntry[]> {
    return [...((await this.read(sessionId)).byToolResultId.get(toolUseId) ?? [])];
  }

  /** From the session's in-memory index (built as lines are read): no scan of its lines. */
  async attachmentLines(sessionId: string): Promise<TranscriptEntry[]> {
    return [...(await this.read(sessionId)).withAttachments];
  }

  /**
   * @throws TranscriptChainError when `leafUuid` or a parent on its chain is missing.
   * @throws TranscriptCycleError when the chain loops.
   */
  async chain(sessionId: string, leafUuid: string): Promise<TranscriptEntry[]> {
    const { byUuid } = await this.read(sessionId);
    const out: TranscriptEntry[] = [];
    const seen = new Set<string>();
    let uuid: string | null = leafUuid;
    while (uuid !== null) {
      if (seen.has(uuid)) throw new TranscriptCycleError(sessionId, uuid);
      seen.add(uuid);
      const entry = byUuid.get(uuid);
      if (entry === undefined) throw new TranscriptChainError(sessionId, uuid);
      if (entry.type === 'system' && entry.subtype === 'compact_boundary') break;
      out.push(entry);
      uuid = entry.parentUuid;
    }
    return out.reverse();
  }

  async exists(sessionId: string): Promise<boolean> {
    return (await this.read(sessionId)).entries.length > 0;
  }

  async listSessions(): Promise<Array<{ sessionId: string; modifiedMs: number; cwd?: string }>> {
    let names: string[];
    try {
      names = await fs.promises.readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: Array<{ sessionId: string; modifiedMs: number; cwd?: string }> = [];
    for (const name of names) {
      if (!name.endsWith('.jsonl')) continue;
      const sessionId = name.slice(0, -'.jsonl'.length);
      try {
        checkId('session id', sessionId);
      } catch {
        continue;
      }
      const file = path.join(this.dir, name);
      let st: fs.Stats;
      try {
        st = await fs.promises.stat(file);
      } catch {
        continue; // removed meanwhile
      }
      if (!st.isFile()) continue;
      const item: { sessionId: string; modifiedMs: number; cwd?: string } = { sessionId, modifiedMs: st.mtimeMs };
      const cwd = await firstLineCwd(file);
      if (cwd !== undefined) item.cwd = cwd;
      out.push(item);
    }
    return out.sort((a, b) => b.modifiedMs - a.modifiedMs || a.sessionId.localeCompare(b.sessionId));
  }

  /**
   * Creates `<dataDir>/sessions/<sessionId>.runs/<toolUseId>` with O_EXCL and fsyncs it.
   * @throws InvalidTranscriptIdError for an unsafe session or tool-use id.
   */
  async markToolRunStarted(sessionId: string, toolUseId: string): Promise<boolean> {
    checkId('session id', sessionId);
    checkId('tool use id', toolUseId);
    const runsDir = path.join(this.dir, `${sessionId}.runs`);
    await fs.promises.mkdir(runsDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(path.join(runsDir, toolUseId), 'wx', PRIVATE_FILE_MODE);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return true;
      throw err;
    }
    try {
      const marker = { startedAt: new Date().toISOString(), pid: process.pid, host: os.hostname() };
      await handle.writeFile(`${JSON.stringify(marker)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await syncDir(runsDir);
    return false;
  }

  /**
   * Writes `<dataDir>/sessions/<sessionId>.attempts/<callUuid>/<attempt>-<phase>.json` (a
   * fsynced temporary file renamed over it), so that a reader never sees half a record.
   * @throws InvalidTranscriptIdError for an unsafe session id or call uuid.
   */
  async putModelAttemptUsage(sessionId: string, record: ModelAttemptUsage): Promise<void> {
    const dir = this.attemptDir(sessionId, record.callUuid);
    const parsed = ModelAttemptUsageSchema.safeParse(record);
    if (!parsed.success) throw new Error(`putModelAttemptUsage: invalid record: ${parsed.error.message}`);
    await fs.promises.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const file = path.join(dir, `${record.attempt}-${record.phase}.json`);
    const tmp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeDurable(tmp, `${JSON.stringify({ v: TRANSCRIPT_SCHEMA_VERSION, ...parsed.data })}\n`);
      await fs.promises.rename(tmp, file);
      this.attemptRecords.get(dir)?.delete(path.basename(file)); // replaced: read it again
    } catch (err) {
      await fs.promises.unlink(tmp).catch(() => undefined);
      throw err;
    }
    await syncDir(dir);
  }

  /**
   * A record that cannot be parsed is skipped with a warning. A record file is written by its own
   * attempt only (renamed into place whole), so records read before are taken from memory: each
   * call costs a directory listing, not a read per record (a record this store replaces is read
   * again).
   */
  async modelAttemptUsage(sessionId: string, callUuid?: string): Promise<ModelAttemptUsage[]> {
    checkId('session id', sessionId);
    const root = path.join(this.dir, `${sessionId}.attempts`);
    const calls = callUuid !== undefined ? [callUuid] : (await readDirOrEmpty(root)).sort();
    const out: ModelAttemptUsage[] = [];
    for (const call of calls) {
      const dir = this.attemptDir(sessionId, call);
      const known = this.attemptRecords.get(dir);
      const seen = new Map<string, ModelAttemptUsage>();
      for (const name of await readDirOrEmpty(dir)) {
        if (!/^\d+-(start|end)\.json$/.test(name)) continue;
        const file = path.join(dir, name);
        const record = known?.get(name) ?? parseAttemptUsage(await readOrUndefined(file));
        if (record === undefined || record.callUuid !== call) {
          this.warn(`${file}: skipped a model-attempt usage record that is not valid`);
          continue;
        }
        seen.set(name, record);
        out.push(record);
      }
      this.rememberAttempts(dir, seen);
    }
    const phase = (r: ModelAttemptUsage): number => (r.phase === 'start' ? 0 : 1);
    return out.sort((a, b) => a.callUuid.localeCompare(b.callUuid) || a.attempt - b.attempt || phase(a) - phase(b));
  }

  async listToolRuns(sessionId: string): Promise<string[]> {
    checkId('session id', sessionId);
    try {
      return (await fs.promises.readdir(path.join(this.dir, `${sessionId}.runs`))).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  /** Writes `<dataDir>/sessions/<sessionId>.content/<key>` (see `jsonl-content.ts`). */
  async putContent(
    sessionId: string,
    key: string,
    body: ContentBody,
    opts?: PutContentOptions,
  ): Promise<PutContentResult> {
    checkId('session id', sessionId);
    return this.content.put(sessionId, key, body, opts);
  }

  async getContent(sessionId: string, key: string): Promise<Buffer | undefined> {
    checkId('session id', sessionId);
    return this.content.get(sessionId, key);
  }

  async openContent(sessionId: string, key: string): Promise<AsyncIterable<Buffer> | undefined> {
    checkId('session id', sessionId);
    return this.content.open(sessionId, key);
  }

  async contentInfo(sessionId: string, key: string): Promise<ContentInfo | undefined> {
    checkId('session id', sessionId);
    return this.content.info(sessionId, key);
  }

  async listContent(sessionId: string, prefix?: string): Promise<ContentInfo[]> {
    checkId('session id', sessionId);
    return this.content.list(sessionId, prefix);
  }

  /** Nothing to release: files are opened per call. */
  async close(): Promise<void> {}

  // -------------------------------------------------------------------------------------------

  /** Keeps the records read from one call's directory (most recently used last, bounded). */
  private rememberAttempts(dir: string, records: Map<string, ModelAttemptUsage>): void {
    this.attemptRecords.delete(dir);
    if (records.size === 0) return;
    this.attemptRecords.set(dir, records);
    while (this.attemptRecords.size > MAX_CACHED_ATTEMPT_DIRS) {
      const oldest = this.attemptRecords.keys().next().value;
      if (oldest === undefined) break;
      this.attemptRecords.delete(oldest);
    }
  }

  private attemptDir(sessionId: string, callUuid: string): string {
    checkId('session id', sessionId);
    checkId('call uuid', callUuid);
    return path.join(this.dir, `${sessionId}.attempts`, callUuid);
  }

  /**
   * Appends the lines not stored yet and returns what is stored for each entry; the caller holds
   * the session lock.
   */
  private async write(sessionId: string, entries: TranscriptEntry[]): Promise<AppendResult[]> {
    let cache = await this.refresh(sessionId);
    const fresh: TranscriptEntry[] = [];
    const batch = new Set<string>();
    for (const e of entries) {
      if (cache.byUuid.has(e.uuid) || batch.has(e.uuid)) continue;
      batch.add(e.uuid);
      fresh.push(e);
    }
    if (fresh.length > 0) {
      await this.writeLines(sessionId, cache, fresh);
      // Another process may have written one of these uuids just before us: the first line in
      // the file wins, so read back what the file holds now.
      if (fresh.some((e) => cache.byUuid.get(e.uuid) !== e)) cache = await this.refresh(sessionId);
    }
    const ours = new Map(fresh.map((e) => [e.uuid, e] as const));
    return entries.map((e) => {
      const stored = cache.byUuid.get(e.uuid);
      if (stored === undefined) throw new Error(`append: line ${e.uuid} of session ${sessionId} was not read back`);
      const own = ours.get(e.uuid);
      // Only the first occurrence of a uuid in `entries` counts as written.
      const written = own !== undefined && (stored === own || sameLine(stored, own));
      ours.delete(e.uuid);
      return { entry: stored, written };
    });
  }

  /** Writes `fresh` (none of them stored yet) as one append + fsync; the caller holds the session lock. */
  private async writeLines(sessionId: string, cache: SessionCache, fresh: TranscriptEntry[]): Promise<void> {
    const file = transcriptPath(this.dataDir, sessionId);
    const body = fresh.map((e) => `${JSON.stringify(e)}\n`).join('');
    let created = false;
    const handle = await openForAppend(file, this.dir);
    let before: fs.Stats;
    let after: fs.Stats;
    let prefix = '';
    try {
      before = await handle.stat();
      created = before.size === 0;
      // The cache has read the file up to its end, which is then just after a newline.
      const endsAtNewline = cache.dev === before.dev && cache.ino === before.ino && cache.offset === before.size;
      if (before.size > 0 && !endsAtNewline) {
        // A torn last line (crash mid-write): start a fresh line instead of gluing onto it.
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, before.size - 1);
        if (last[0] !== NEWLINE) prefix = '\n';
      }
      const data = Buffer.from(prefix + body, 'utf8');
      await writeAll(handle, data, before.size);
      await handle.sync();
      after = await handle.stat();
      if (before.size === 0 && cache.offset === 0 && cache.entries.length === 0) {
        // The file is new (or was emptied): adopt its identity.
        cache.dev = before.dev;
        cache.ino = before.ino;
      }
      // Nobody else wrote in between: record our lines without reading them back.
      if (
        cache.dev === after.dev &&
        cache.ino === after.ino &&
        cache.offset === before.size &&
        prefix === '' &&
        after.size === before.size + data.length
      ) {
        for (const e of fresh) this.index(cache, e);
        cache.offset = after.size;
        cache.lines += fresh.length;
      }
    } finally {
      await handle.close();
    }
    if (created) await syncDir(this.dir);
  }

  private async read(sessionId: string): Promise<SessionCache> {
    checkId('session id', sessionId);
    return this.withLock(sessionId, () => this.refresh(sessionId));
  }

  /** Brings the cache of a session up to date with the file; the caller holds the session lock. */
  private async refresh(sessionId: string): Promise<SessionCache> {
    const file = transcriptPath(this.dataDir, sessionId);
    let cache = this.caches.get(sessionId);
    // Most recently used last, for eviction.
    if (cache) {
      this.caches.delete(sessionId);
      this.caches.set(sessionId, cache);
    }
    let handle: fs.promises.FileHandle;
    try {
      if (cache) {
        // The usual case, nothing new: one stat by path instead of open + fstat + close.
        const seen = await fs.promises.stat(file);
        if (seen.dev === cache.dev && seen.ino === cache.ino && seen.size === cache.offset) return cache;
      }
      handle = await fs.promises.open(file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      const empty = emptyCache(0, 0);
      this.remember(sessionId, empty);
      return empty;
    }
    try {
      const st = await handle.stat();
      if (!cache || cache.dev !== st.dev || cache.ino !== st.ino || st.size < cache.offset) {
        cache = emptyCache(st.dev, st.ino);
        this.remember(sessionId, cache);
      }
      if (st.size <= cache.offset) return cache;
      let size = st.size;
      let tail = await this.readNew(handle, file, cache, size);
      // An unterminated last line may be another process's write in progress (a reader can see
      // part of it): look again briefly before calling it torn.
      for (let i = 0; tail > 0 && cache.tornWarnedAt !== cache.offset && i < TORN_RECHECKS; i++) {
        await sleep(TORN_RECHECK_MS);
        const now = (await handle.stat()).size;
        if (now === size) continue;
        size = now;
        tail = await this.readNew(handle, file, cache, size);
      }
      if (tail > 0 && cache.tornWarnedAt !== cache.offset) {
        cache.tornWarnedAt = cache.offset;
        this.warn(`${file}:${cache.lines + 1}: skipped an unterminated last line (${tail} bytes; torn write?)`);
      }
      return cache;
    } finally {
      await handle.close();
    }
  }

  /**
   * Parses the complete lines in [cache.offset, size). Bytes after the last newline are left
   * unconsumed (so that a later "\n" + line makes a torn line complete, and reported once).
   * @returns the number of bytes after the last newline.
   */
  private async readNew(
    handle: fs.promises.FileHandle,
    file: string,
    cache: SessionCache,
    size: number,
  ): Promise<number> {
    let pos = cache.offset;
    let carry = Buffer.alloc(0);
    while (pos < size) {
      const want = Math.min(READ_CHUNK, size - pos);
      const chunk = Buffer.alloc(want);
      const { bytesRead } = await handle.read(chunk, 0, want, pos);
      if (bytesRead === 0) break; // truncated meanwhile; the next read starts over
      pos += bytesRead;
      const buf =
        carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
      let start = 0;
      for (let nl = buf.indexOf(NEWLINE, start); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
        const lineStart = cache.offset;
        cache.lines += 1;
        cache.offset += nl - start + 1;
        this.parseLine(file, cache, buf.subarray(start, nl), cache.lines, lineStart);
        start = nl + 1;
      }
      carry = Buffer.from(buf.subarray(start));
    }
    return carry.length;
  }

  private parseLine(file: string, cache: SessionCache, bytes: Buffer, lineNo: number, lineStart: number): void {
    if (bytes.length === 0 || (bytes.length === 1 && bytes[0] === 0x0d)) return;
    const text = bytes.toString('utf8');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      // Already reported when it was an unterminated last line.
      if (cache.tornWarnedAt !== lineStart) {
        this.warn(`${file}:${lineNo}: skipped a line that is not JSON (${(err as Error).message})`);
      }
      return;
    }
    const parsed = TranscriptEntrySchema.safeParse(value);
    if (!parsed.success) {
      if (cache.tornWarnedAt !== lineStart) {
        const first = parsed.error.issues[0];
        const why = first ? `${first.path.join('.') || '(line)'}: ${first.message}` : 'schema mismatch';
        this.warn(`${file}:${lineNo}: skipped a line that is not a transcript entry (${why})`);
      }
      return;
    }
    this.index(cache, parsed.data);
  }

  private index(cache: SessionCache, entry: TranscriptEntry): void {
    if (cache.byUuid.has(entry.uuid)) return; // first write wins (upsert raced across processes)
    cache.byUuid.set(entry.uuid, entry);
    cache.entries.push(entry);
    for (const id of toolResultIdsOf(entry)) {
      const lines = cache.byToolResultId.get(id);
      if (lines) lines.push(entry);
      else cache.byToolResultId.set(id, [entry]);
    }
    if (carriesAttachments(entry)) cache.withAttachments.push(entry);
  }

  private remember(sessionId: string, cache: SessionCache): void {
    this.caches.delete(sessionId);
    this.caches.set(sessionId, cache);
    while (this.caches.size > this.maxCached) {
      const oldest = this.caches.keys().next().value;
      if (oldest === undefined) break;
      this.caches.delete(oldest);
    }
  }

  /** Runs `fn` after every earlier holder of `key` (a promise-chain mutex). */
  private async withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = prev.then(() => mine);
    this.locks.set(key, tail);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      if (this.locks.get(key) === tail) this.locks.delete(key);
    }
  }
}

/** True when a line read back from the file is `own` (compared as the reader parses lines). */
function sameLine(stored: TranscriptEntry, own: TranscriptEntry): boolean {
  const parsed = TranscriptEntrySchema.safeParse(JSON.parse(JSON.stringify(own)));
  return parsed.success && JSON.stringify(parsed.data) === JSON.stringify(stored);
}

function emptyCache(dev: number, ino: number): SessionCache {
  return {
    dev,
    ino,
    offset: 0,
    lines: 0,
    entries: [],
    byUuid: new Map(),
    byToolResultId: new Map(),
    withAttachments: [],
    tornWarnedAt: -1,
  };
}

/**
 * Appends `data` (the handle is O_APPEND). When a write fails part way (disk full, file size
 * limit), the bytes already written are cut off again, so that the file never keeps part of a
 * line; unless the file grew by more than what we wrote (another process appended meanwhile).
 */
async function writeAll(handle: fs.promises.FileHandle, data: Buffer, sizeBefore: number): Promise<void> {
  let written = 0;
  try {
    while (written < data.length) {
      const { bytesWritten } = await handle.write(data, written, data.length - written, null);
      written += bytesWritten;
    }
  } catch (err) {
    if (written > 0) {
      const now = await handle.stat().catch(() => null);
      if (now?.size === sizeBefore + written) await handle.truncate(sizeBefore).catch(() => undefined);
    }
    throw err;
  }
}

/** Opens a transcript for appending; its directory is made only when it is missing. */
async function openForAppend(file: string, dir: string): Promise<fs.promises.FileHandle> {
  try {
    return await fs.promises.open(file, 'a+', PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await fs.promises.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    return fs.promises.open(file, 'a+', PRIVATE_FILE_MODE);
  }
}

/** Writes a whole new file and fsyncs it. */
async function writeDurable(file: string, data: string): Promise<void> {
  const handle = await fs.promises.open(file, 'wx', PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function readDirOrEmpty(dir: string): Promise<string[]> {
  try {
    return await fs.promises.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

async function readOrUndefined(file: string): Promise<string | undefined> {
  try {
    return await fs.promises.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function parseAttemptUsage(text: string | undefined): ModelAttemptUsage | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = ModelAttemptUsageSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** fsync a directory so that a new entry in it survives a crash (best effort: not on Windows). */
async function syncDir(dir: string): Promise<void> {
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(dir, 'r');
    await handle.sync();
  } catch {
    // not supported on this platform
  } finally {
    await handle?.close();
  }
}

/** The `cwd` field of a file's first line, read without loading the whole file (first 1 MiB). */
async function firstLineCwd(file: string): Promise<string | undefined> {
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(file, 'r');
    const limit = 1024 * 1024;
    const chunks: Buffer[] = [];
    let pos = 0;
    while (pos < limit) {
      const buf = Buffer.alloc(Math.min(64 * 1024, limit - pos));
      const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      const part = buf.subarray(0, bytesRead);
      const nl = part.indexOf(NEWLINE);
      if (nl !== -1) {
        chunks.push(part.subarray(0, nl));
        const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const cwd = typeof value === 'object' && value !== null ? (value as { cwd?: unknown }).cwd : undefined;
        return typeof cwd === 'string' ? cwd : undefined;
      }
      chunks.push(part);
      pos += bytesRead;
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
