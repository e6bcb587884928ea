/**
 * Content blobs of the JSONL backend: one file per blob under `<dataDir>/sessions/<id>.content/`.
 *
 * A key's segments map to directories (`a/b/c` → `a~/b~/c`: `~` cannot appear in a segment, so
 * the key `a` and the prefix `a/` never collide). Each file starts with a fixed 256-byte header
 * (`{"v":1,"size":…,"sha256":…,"createdAt":…}` padded with spaces, ending in a newline) and then
 * the bytes. A put writes a temporary file beside the target, fsyncs it and `link()`s it into
 * place: the link fails when the key is taken, which makes the first writer win across processes,
 * and readers never see a partial blob.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './data-dir';
import {
  CONTENT_CHUNK_BYTES,
  HashingReader,
  checkContentKey,
  contentLimit,
  type ContentBody,
  type ContentInfo,
  type PutContentOptions,
  type PutContentResult,
} from './content';

const HEADER_BYTES = 256;
const DIR_SUFFIX = '~';

/** Content files of every session under one sessions directory. */
export class JsonlContentFiles {
  /**
   * @param sessionsDir `<dataDir>/sessions`
   * @param maxBytes the largest blob accepted, in bytes.
   */
  constructor(
    private readonly sessionsDir: string,
    private readonly maxBytes: number,
  ) {}

  /** The file of a blob (the session id must already be checked). */
  filePath(sessionId: string, key: string): string {
    checkContentKey(key);
    const segments = key.split('/');
    const leaf = segments.pop() as string;
    return path.join(this.rootOf(sessionId), ...segments.map((s) => s + DIR_SUFFIX), leaf);
  }

  async put(sessionId: string, key: string, body: ContentBody, opts?: PutContentOptions): Promise<PutContentResult> {
    const file = this.filePath(sessionId, key);
    const existing = await this.info(sessionId, key);
    if (existing) return { ...existing, created: false };

    const dir = path.dirname(file);
    await fs.promises.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const tmp = path.join(dir, `.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
    const reader = new HashingReader(sessionId, key, contentLimit(this.maxBytes, opts));
    const handle = await fs.promises.open(tmp, 'wx', PRIVATE_FILE_MODE);
    let info: ContentInfo;
    try {
      let pos = HEADER_BYTES;
      for await (const chunk of reader.chunks(body)) {
        let off = 0;
        while (off < chunk.length) {
          const { bytesWritten } = await handle.write(chunk, off, chunk.length - off, pos);
          off += bytesWritten;
          pos += bytesWritten;
        }
      }
      info = { key, size: reader.size, sha256: reader.digest(), createdAt: new Date().toISOString() };
      await handle.write(encodeHeader(info), 0, HEADER_BYTES, 0);
      await handle.sync();
    } catch (err) {
      await handle.close().catch(() => undefined);
      await fs.promises.unlink(tmp).catch(() => undefined);
      throw err;
    }
    await handle.close();
    try {
      await fs.promises.link(tmp, file);
    } catch (err) {
      await fs.promises.unlink(tmp).catch(() => undefined);
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const stored = await this.info(sessionId, key);
      if (!stored) throw err;
      return { ...stored, created: false };
    }
    await fs.promises.unlink(tmp).catch(() => undefined);
    await syncDir(dir);
    return { ...info, created: true };
  }

  async get(sessionId: string, key: string): Promise<Buffer | undefined> {
    const file = this.filePath(sessionId, key);
    let data: Buffer;
    try {
      data = await fs.promises.readFile(file);
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
    const info = decodeHeader(file, key, data.subarray(0, HEADER_BYTES));
    return data.subarray(HEADER_BYTES, HEADER_BYTES + info.size);
  }

  async open(sessionId: string, key: string): Promise<AsyncIterable<Buffer> | undefined> {
    const file = this.filePath(sessionId, key);
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(file, 'r');
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
    let info: ContentInfo;
    try {
      info = await readHeader(handle, file, key);
    } catch (err) {
      await handle.close();
      throw err;
    }
    return chunksOf(handle, info.size);
  }

  async info(sessionId: string, key: string): Promise<ContentInfo | undefined> {
    const file = this.filePath(sessionId, key);
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(file, 'r');
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
    try {
      return await readHeader(handle, file, key);
    } finally {
      await handle.close();
    }
  }

  async list(sessionId: string, prefix = ''): Promise<ContentInfo[]> {
    const keys: string[] = [];
    await walk(this.rootOf(sessionId), [], keys);
    const out: ContentInfo[] = [];
    for (const key of keys.filter((k) => k.startsWith(prefix)).sort()) {
      const info = await this.info(sessionId, key);
      if (info) out.push(info);
    }
    return out;
  }

  private rootOf(sessionId: string): string {
    return path.join(this.sessionsDir, `${sessionId}.content`);
  }
}

/** Version (`v`) of a content file's header. */
const CONTENT_HEADER_VERSION = 1;

function encodeHeader(info: ContentInfo): Buffer {
  const json = JSON.stringify({
    v: CONTENT_HEADER_VERSION,
    size: info.size,
    sha256: info.sha256,
    createdAt: info.createdAt,
  });
  const buf = Buffer.alloc(HEADER_BYTES, 0x20);
  buf.write(json, 0, 'utf8');
  buf[HEADER_BYTES - 1] = 0x0a;
  return buf;
}

function decodeHeader(file: string, key: string, header: Buffer): ContentInfo {
  try {
    const v = JSON.parse(header.toString('utf8')) as { size?: unknown; sha256?: unknown; createdAt?: unknown };
    if (typeof v.size === 'number' && typeof v.sha256 === 'string' && typeof v.createdAt === 'string') {
      return { key, size: v.size, sha256: v.sha256, createdAt: v.createdAt };
    }
  } catch {
    // reported below
  }
  throw new Error(`${file}: not a content file of agent-runner (bad header)`);
}

async function readHeader(handle: fs.promises.FileHandle, file: string, key: string): Promise<ContentInfo> {
  const header = Buffer.alloc(HEADER_BYTES);
  const { bytesRead } = await handle.read(header, 0, HEADER_BYTES, 0);
  if (bytesRead < HEADER_BYTES) throw new Error(`${file}: not a content file of agent-runner (short header)`);
  return decodeHeader(file, key, header);
}

async function* chunksOf(handle: fs.promises.FileHandle, size: number): AsyncGenerator<Buffer> {
  try {
    let pos = 0;
    while (pos < size) {
      const want = Math.min(CONTENT_CHUNK_BYTES, size - pos);
      const buf = Buffer.alloc(want);
      const { bytesRead } = await handle.read(buf, 0, want, HEADER_BYTES + pos);
      if (bytesRead === 0) throw new Error(`content file ended after ${pos} of ${size} bytes`);
      pos += bytesRead;
      yield bytesRead === want ? buf : buf.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

async function walk(dir: string, prefix: string[], out: string[]): Promise<void> {
  let names: fs.Dirent[];
  try {
    names = await fs.promises.readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (isMissing(err)) return;
    throw err;
  }
  for (const d of names) {
    if (d.name.startsWith('.')) continue; // temporary files of puts in progress
    if (d.isDirectory() && d.name.endsWith(DIR_SUFFIX)) {
      await walk(path.join(dir, d.name), [...prefix, d.name.slice(0, -DIR_SUFFIX.length)], out);
    } else if (d.isFile()) {
      out.push([...prefix, d.name].join('/'));
    }
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

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
