import { z } from 'zod';
import type { TranscriptEntry } from '../common/transcript';
import { UsageSchema } from '../common/transcript';
import type { Usage } from '../common/usage';

/**
 * What {@link TranscriptStore.append} left in the store for one uuid.
 *
 * First writer wins: `entry` is the line the store holds, which is the caller's own only when
 * `written` is true. Every writer must continue from `entry`, never from the line it tried to
 * write (DESIGN.md rule 8: a superseded or concurrent attempt cannot fork the transcript).
 */
export interface AppendResult {
  /** The stored line for this uuid: the caller's when `written`, else the first writer's. */
  entry: TranscriptEntry;
  /** True when this call wrote the line. */
  written: boolean;
}

/**
 * Usage billed by one attempt of a model call, as the API reported it; no content. An attempt
 * writes a `start` record when its response begins (the input tokens are billed from then on)
 * and an `end` record when it is complete, so that the usage of an attempt whose worker died,
 * or whose result lost to another attempt's, is still counted (see `TranscriptEntry.billing`).
 */
export interface ModelAttemptUsage {
  /** Uuid of the line the call writes (the assistant line; the summary line of a compaction). */
  callUuid: string;
  /** Temporal attempt number of the activity, from 1. */
  attempt: number;
  /** `start`: the usage `message_start` reported; `end`: what the final usage adds to it. */
  phase: 'start' | 'end';
  /** Messages API `request-id`, or null when unknown. */
  requestId: string | null;
  /** Message id (`msg_…`) of the response. */
  messageId: string | null;
  /** Model that answered. */
  model: string;
  /** Tokens billed (for `end`: the final usage minus the `start` usage). */
  usage: Usage;
  /** Set when a Message Batch answered (billed at batch rates): the batch id. */
  messageBatchId?: string | undefined;
}

/** Validates a {@link ModelAttemptUsage} read back from storage (unknown fields are dropped). */
export const ModelAttemptUsageSchema: z.ZodType<ModelAttemptUsage> = z.object({
  callUuid: z.string().min(1),
  attempt: z.number().int().positive(),
  phase: z.enum(['start', 'end']),
  requestId: z.string().nullable(),
  messageId: z.string().nullable(),
  model: z.string(),
  usage: UsageSchema,
  messageBatchId: z.string().optional(),
});

/** Key of a {@link ModelAttemptUsage}: `<callUuid>/<attempt>/<phase>`, as listed in `TranscriptEntry.billing.units`. */
export function attemptUsageKey(r: Pick<ModelAttemptUsage, 'callUuid' | 'attempt' | 'phase'>): string {
  return `${r.callUuid}/${r.attempt}/${r.phase}`;
}
import type { ContentBody, ContentInfo, PutContentOptions, PutContentResult } from './content';
import type { StreamEventChannel } from './stream-events';

/**
 * Durable storage of session transcripts: the content that workflow history only refers to.
 *
 * Contract (every backend: JSONL files, PostgreSQL):
 * - **Lines are first-writer-wins by `entry.uuid`.** `append` of a uuid that is already stored
 *   writes nothing and returns the stored line; this holds across processes and machines (two
 *   attempts of one activity may run at once: a heartbeat timeout does not stop the old one).
 *   Every caller returns what the store holds, never its own unstored line. Writes resolve only
 *   once the line is durable.
 * - Readers see every line whose `append` has resolved, in any process on the same data.
 * - A torn last line (a crash mid-write) is skipped on load with a warning, never an error.
 * - Usage records of model-call attempts (`putModelAttemptUsage`) are upserts by
 *   (callUuid, attempt, phase), durable once written; a reader never sees half a record.
 * - Content blobs (`putContent`) are first-writer-wins by `(sessionId, key)` and immutable once
 *   stored, like lines.
 *
 * Backends: {@link JsonlTranscriptStore} (files under the data directory; one machine) and
 * `PostgresTranscriptStore` (shared by every host of a cluster). `test/unit/store/contract.ts`
 * is the contract both pass.
 */
export interface TranscriptStore {
  /**
   * The store for people, in messages: `PostgreSQL transcript store at postgres://u:***@h/db`,
   * `transcript store at /data/sessions (JSONL files)`. @default "transcript store"
   */
  readonly description?: string;
  /**
   * Stores one line unless its uuid is already stored; resolves after it is durable.
   * @returns the stored line (the first writer's) and whether this call wrote it.
   */
  append(entry: TranscriptEntry): Promise<AppendResult>;
  /**
   * Stores several lines of one session in order, as one durable write, each first-writer-wins.
   * @returns one result per entry, in the order given.
   */
  appendMany(entries: TranscriptEntry[]): Promise<AppendResult[]>;
  /** One line by uuid, or undefined. */
  get(sessionId: string, uuid: string): Promise<TranscriptEntry | undefined>;
  /** Every line of a session in file order (empty when the session is unknown). */
  load(sessionId: string): Promise<TranscriptEntry[]>;
  /**
   * The lines holding a `tool_result` block for `toolUseId`, in write order (usually one; a
   * compaction's kept copy, or an id an API repeated, adds more). Read through an index: the cost
   * does not grow with the session.
   */
  toolResultLines(sessionId: string, toolUseId: string): Promise<TranscriptEntry[]>;
  /**
   * The lines that carry context attachments, in write order: the session's context lines, the
   * summaries of compactions, tool results with nested memory (`carriesAttachments` in
   * src/store/line-keys.ts). Read through an index: a few lines, whatever the session's size.
   */
  attachmentLines(sessionId: string): Promise<TranscriptEntry[]>;
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
  /** Records the usage of one phase of a model-call attempt; durable once resolved. */
  putModelAttemptUsage(sessionId: string, record: ModelAttemptUsage): Promise<void>;
  /**
   * The usage records of one call (`callUuid`), or of every call of the session when omitted;
   * ordered by call, attempt, then phase (`start` first).
   */
  modelAttemptUsage(sessionId: string, callUuid?: string): Promise<ModelAttemptUsage[]>;
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
