/**
 * Content blobs kept beside a session's transcript: the shared part of both backends (key rules,
 * size limits, hashing a body while it streams).
 */
import { createHash } from 'node:crypto';

/**
 * What {@link TranscriptStore.putContent} accepts: bytes, a string (stored as UTF-8), or a stream
 * of chunks (a Node `Readable` is one), consumed once and never held whole in memory by the store.
 */
export type ContentBody = Uint8Array | string | AsyncIterable<Uint8Array | string>;

/** What the store knows of one stored blob. */
export interface ContentInfo {
  /** The key given to `putContent`. */
  key: string;
  /** Size in bytes. */
  size: number;
  /** SHA-256 of the bytes, lowercase hex. */
  sha256: string;
  /** When the first writer stored it (ISO 8601). */
  createdAt: string;
}

/** Result of {@link TranscriptStore.putContent}: the blob the store holds under the key. */
export interface PutContentResult extends ContentInfo {
  /**
   * True when this call stored its bytes; false when the key was already held. The first writer
   * wins: `size` and `sha256` then describe the stored blob, which may differ from the body given.
   */
  created: boolean;
}

/** Options of {@link TranscriptStore.putContent}. */
export interface PutContentOptions {
  /**
   * Refuse a body larger than this many bytes (a lower bound than the store's own limit, e.g. the
   * workspace snapshot limit). @default the store's `maxContentBytes`
   */
  maxBytes?: number;
}

/** Largest blob a store accepts unless configured otherwise: 256 MiB. */
export const DEFAULT_MAX_CONTENT_BYTES = 256 * 1024 * 1024;

/** Size of the chunks a stored blob is read back in (and stored in, by the PostgreSQL backend): 1 MiB. */
export const CONTENT_CHUNK_BYTES = 1024 * 1024;

/** Longest content key, in characters. */
export const MAX_CONTENT_KEY_LENGTH = 512;

const SEGMENT_RE = /^[A-Za-z0-9_][A-Za-z0-9._:=+@-]{0,127}$/;

/**
 * Thrown by `putContent`/`getContent` for a key that is not 1-512 characters of `/`-separated
 * segments, each 1-128 of `A-Z a-z 0-9 _ . : = + @ -` and not starting with `.` or `-`.
 */
export class InvalidContentKeyError extends Error {
  override readonly name = 'InvalidContentKeyError';
  constructor(readonly key: string) {
    super(
      `invalid content key ${JSON.stringify(key)}: expected "/"-separated segments of A-Z a-z 0-9 _ . : = + @ - ` +
        `(each 1-128 characters, not starting with "." or "-"), at most ${MAX_CONTENT_KEY_LENGTH} characters`,
    );
  }
}

/**
 * Thrown by `putContent` when a body is larger than the limit; nothing is stored under the key
 * (a later put with a smaller body can still take it).
 */
export class ContentTooLargeError extends Error {
  override readonly name = 'ContentTooLargeError';
  constructor(
    readonly sessionId: string,
    readonly key: string,
    /** The limit, in bytes. */
    readonly limitBytes: number,
    /** Bytes seen before giving up: the body is at least this large. */
    readonly seenBytes: number,
  ) {
    super(
      `content ${key} of session ${sessionId} is larger than the limit of ${formatBytes(limitBytes)} ` +
        `(at least ${formatBytes(seenBytes)}); nothing was stored`,
    );
  }
}

/** @throws InvalidContentKeyError when `key` breaks the key rules. */
export function checkContentKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_CONTENT_KEY_LENGTH) {
    throw new InvalidContentKeyError(String(key));
  }
  for (const segment of key.split('/')) {
    if (!SEGMENT_RE.test(segment) || segment.startsWith('-')) throw new InvalidContentKeyError(key);
  }
}

/** The effective byte limit of one put: the smaller of the store's and the call's. */
export function contentLimit(storeMax: number, opts: PutContentOptions | undefined): number {
  const asked = opts?.maxBytes;
  return asked !== undefined && asked >= 0 ? Math.min(storeMax, asked) : storeMax;
}

/**
 * The chunks of a body, as Buffers, with a running size and hash. Throws
 * {@link ContentTooLargeError} as soon as the body passes `limit` (before yielding the chunk
 * that crosses it), so a backend can give up without storing anything.
 */
export class HashingReader {
  private readonly hash = createHash('sha256');
  /** Bytes yielded so far. */
  size = 0;

  constructor(
    private readonly sessionId: string,
    private readonly key: string,
    private readonly limit: number,
  ) {}

  /** Yields `body` as Buffers of at most {@link CONTENT_CHUNK_BYTES} each. */
  async *chunks(body: ContentBody): AsyncGenerator<Buffer> {
    for await (const piece of asIterable(body)) {
      const buf =
        typeof piece === 'string'
          ? Buffer.from(piece, 'utf8')
          : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
      for (let off = 0; off < buf.length; off += CONTENT_CHUNK_BYTES) {
        const part = buf.subarray(off, Math.min(buf.length, off + CONTENT_CHUNK_BYTES));
        if (this.size + part.length > this.limit) {
          throw new ContentTooLargeError(this.sessionId, this.key, this.limit, this.size + part.length);
        }
        this.size += part.length;
        this.hash.update(part);
        yield part;
      }
    }
  }

  /** SHA-256 of everything yielded, lowercase hex (call once, after the last chunk). */
  digest(): string {
    return this.hash.digest('hex');
  }
}

async function* asIterable(body: ContentBody): AsyncGenerator<Uint8Array | string> {
  if (typeof body === 'string' || body instanceof Uint8Array) {
    yield body;
    return;
  }
  yield* body;
}

/** Reads a stream of chunks into one Buffer. */
export async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of chunks) parts.push(Buffer.from(c.buffer, c.byteOffset, c.byteLength));
  return Buffer.concat(parts);
}

/** `1.5 MiB`, `300 B`: sizes in messages. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}
