import type { TranscriptEntry } from '../common/transcript';
import type { ContentBody, ContentInfo, PutContentOptions, PutContentResult } from './content';
import type { StreamEventChannel } from './stream-events';

/**
 * Durable storage of session transcripts: the content that workflow history only refers to.
 *
 * Contract:
 * - `append` is an upsert by `entry.uuid`: appending a uuid that is already stored is a no-op
 *   (a retried activity never duplicates a line). It resolves only once the line is on disk.
 * - Readers see every line whose `append` has resolved, in any process on the same data.
 * - A torn last line (a crash mid-write) is skipped on load with a warning, never an error.
 * - Content blobs (`putContent`) are first-writer-wins by `(sessionId, key)` and immutable once
 *   stored, like lines.
 *
 * Backends: {@link JsonlTranscriptStore} (files under the data directory; one machine) and
 * `PostgresTranscriptStore` (shared by every host of a cluster). `test/unit/store/contract.ts`
 * is the contract both pass.
 */
export interface TranscriptStore {
  /** Stores one line; resolves after it is durable. Returns false when the uuid already existed. */
  append(entry: TranscriptEntry): Promise<boolean>;
  /** Stores several lines of one session in order, as one durable write. */
  appendMany(entries: TranscriptEntry[]): Promise<number>;
  /** One line by uuid, or undefined. */
  get(sessionId: string, uuid: string): Promise<TranscriptEntry | undefined>;
  /** Every line of a session in file order (empty when the session is unknown). */
  load(sessionId: string): Promise<TranscriptEntry[]>;
  /**
   * The conversation chain ending at `leafUuid`, oldest first, starting after the most recent
   * compact boundary on the chain (the boundary itself excluded).
   * @throws TranscriptChainError when a uuid on the chain is missing from the store.
   */
  chain(sessionId: string, leafUuid: string): Promise<TranscriptEntry[]>;
  /** True when the session has at least one line. */
  exists(sessionId: string): Promise<boolean>;
  /** Session ids, most recently modified first. */
  listSessions(): Promise<Array<{ sessionId: string; modifiedMs: number; cwd?: string }>>;
  /**
   * Marks the start of a run of a non-idempotent tool, before it has side effects.
   * @returns true when a run of this `toolUseId` had already been marked (a previous attempt
   *   started and may have had effects).
   */
  markToolRunStarted(sessionId: string, toolUseId: string): Promise<boolean>;
  /** The tool-use ids of a session with a run marker (any order); for copying a session. */
  listToolRuns(sessionId: string): Promise<string[]>;

  // --- Content blobs ----------------------------------------------------------------------------
  // Content that workflow history only refers to and that is not a transcript line: prompts and
  // system-prompt parts passed by reference, large tool results kept whole, workspace snapshots,
  // git bundles. Keys are chosen by the writer and scoped to the session (`/`-separated segments
  // of `A-Z a-z 0-9 _ . : = + @ -`, at most 512 characters; e.g. `snapshot/toolu_01ab`).
  // A blob is at most the store's `maxContentBytes` (256 MiB by default; `store.maxContentBytes`).

  /**
   * Stores a blob under `key` unless the key is already held: the first writer wins and every
   * writer gets back what the store holds (`created` tells which case it was). A body given as
   * a stream is consumed chunk by chunk (1 MiB chunks) and never held whole; a put is atomic:
   * readers see all of it or nothing. Resolves once the blob is durable.
   * @throws ContentTooLargeError when the body passes `opts.maxBytes` or the store's limit
   *   (nothing is stored).
   * @throws InvalidContentKeyError for a key that breaks the key rules.
   */
  putContent(sessionId: string, key: string, body: ContentBody, opts?: PutContentOptions): Promise<PutContentResult>;
  /** The whole blob, or undefined when nothing is stored under the key. */
  getContent(sessionId: string, key: string): Promise<Buffer | undefined>;
  /**
   * The blob as a stream of chunks (at most 1 MiB each), for blobs too large to hold whole
   * (workspace snapshots, bundles); undefined when nothing is stored under the key.
   */
  openContent(sessionId: string, key: string): Promise<AsyncIterable<Buffer> | undefined>;
  /** Size, hash and time of a stored blob, without reading it; undefined when absent. */
  contentInfo(sessionId: string, key: string): Promise<ContentInfo | undefined>;
  /** The blobs of a session whose key starts with `prefix` (all when omitted), sorted by key. */
  listContent(sessionId: string, prefix?: string): Promise<ContentInfo[]>;

  /**
   * Side channel for the stream events of model calls (`--include-partial-messages`): best
   * effort, never durable. Absent when the backend has none (then no partial messages are shown).
   */
  readonly streamEvents?: StreamEventChannel;

  /** Releases connections and file handles; the store is not used afterwards. */
  close(): Promise<void>;
}

/** Thrown by `TranscriptStore.chain` when a line of the chain cannot be found. */
export class TranscriptChainError extends Error {
  override readonly name = 'TranscriptChainError';
  constructor(
    readonly sessionId: string,
    readonly missingUuid: string,
  ) {
    super(`transcript of session ${sessionId} has no line ${missingUuid} (broken parentUuid chain)`);
  }
}

/** Thrown by `TranscriptStore.chain` when the parentUuid links of a session loop back on themselves. */
export class TranscriptCycleError extends Error {
  override readonly name = 'TranscriptCycleError';
  constructor(
    readonly sessionId: string,
    readonly uuid: string,
  ) {
    super(`transcript of session ${sessionId} has a parentUuid cycle through ${uuid}`);
  }
}
