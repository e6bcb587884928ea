/**
 * Images of a prompt given as content blocks (stream-json input, the Agent SDK), kept as files as
 * Claude Code 2.1.328 keeps them: each image block is followed by a text block
 * `[Image: source: <file>]` naming a copy in `<tmp>/agent-runner-images/<session>/<N>.<ext>`, so
 * the model can hand the image to a tool. Runs in `recordPrompt`, on the worker whose tools will
 * read the file.
 */
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ContentBlock } from '../common/transcript';
import { ensureOwnDirectory, writeFileThroughHandle } from './tools/safe-write';

const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/** Directory of a session's prompt images. */
export function promptImagesDir(sessionId: string, tmp: string = os.tmpdir()): string {
  return path.join(tmp, 'agent-runner-images', sessionId.replace(/[^A-Za-z0-9._-]/g, '_'));
}

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/**
 * Saves one image (an image already saved, byte for byte, keeps its file: a retried prompt names
 * the same one) and returns its path. Files are numbered from 1 in the order they came.
 */
async function saveImage(dir: string, data: Buffer, ext: string): Promise<string> {
  const names = (await fsp.readdir(dir)).filter((n) => /^\d+\.[a-z]+$/.test(n));
  for (const n of names) {
    const existing = await fsp.readFile(path.join(dir, n)).catch(() => undefined);
    if (existing && existing.length === data.length && sha(existing) === sha(data)) return path.join(dir, n);
  }
  const next = 1 + Math.max(0, ...names.map((n) => Number.parseInt(n, 10)));
  const file = path.join(dir, `${next}.${ext}`);
  await writeFileThroughHandle(file, data, { newFileMode: 0o600 });
  return file;
}

/**
 * The prompt's blocks with a `[Image: source: …]` text block after each base64 image, its file
 * written. An image that cannot be saved keeps its block and gets no note (the model still sees it).
 */
export async function withImageSources(
  sessionId: string,
  blocks: readonly ContentBlock[],
  warn: (message: string) => void,
  tmp?: string,
): Promise<ContentBlock[]> {
  const out: ContentBlock[] = [];
  const dir = promptImagesDir(sessionId, tmp);
  for (const block of blocks) {
    out.push(block);
    const source = block['source'] as { type?: unknown; media_type?: unknown; data?: unknown } | undefined;
    if (block.type !== 'image' || source?.type !== 'base64' || typeof source.data !== 'string') continue;
    const ext = EXTENSIONS[String(source.media_type)];
    if (!ext) continue;
    try {
      await ensureOwnDirectory(path.dirname(dir));
      await ensureOwnDirectory(dir);
      const file = await saveImage(dir, Buffer.from(source.data, 'base64'), ext);
      out.push({ type: 'text', text: `[Image: source: ${file}]` });
    } catch (err) {
      warn(`prompt image not saved: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return out;
}
