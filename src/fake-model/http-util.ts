import type { IncomingMessage, ServerResponse } from 'node:http';

/** Small node:http helpers for the fake model server. */

/** Result of {@link readBody}. */
export type ReadBodyResult = { ok: true; body: Buffer } | { ok: false; tooLarge: true };

/** Reads a request body, giving up (and draining the rest) past `limitBytes`. */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<ReadBodyResult> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? { ok: false, tooLarge: true } : { ok: true, body: Buffer.concat(chunks) }));
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new Error('client disconnected while sending the body'));
    });
  });
}

/** Sends a JSON response (no-op if the response was already started or destroyed). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/** Writes a chunk and resolves once it is flushed (or the response is gone). */
export function writeChunk(res: ServerResponse, text: string | Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) {
      resolve();
      return;
    }
    res.write(text, () => resolve());
  });
}

/** Waits `ms` milliseconds, or less if `signal` aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted === true) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Ends a response and resolves once it is flushed, or when `signal` aborts. */
export function endResponse(res: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || res.destroyed) {
      resolve();
      return;
    }
    signal.addEventListener('abort', () => resolve(), { once: true });
    res.end(() => resolve());
  });
}
