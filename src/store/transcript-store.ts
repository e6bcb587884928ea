import type { TranscriptEntry } from '../common/transcript';

/**
 * Durable storage of session transcripts: the content that workflow history only refers to.
 *
 * Contract:
 * - `append` is an upsert by `entry.uuid`: appending a uuid that is already stored is a no-op
 *   (a retried activity never duplicates a line). It resolves only once the line is on disk.
 * - Readers see every line whose `append` has resolved, in any process on the same data.
 * - A torn last line (a crash mid-write) is skipped on load with a warning, never an error.
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
