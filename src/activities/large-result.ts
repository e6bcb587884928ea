/**
 * Large tool results by reference, as Claude Code keeps large outputs: a result longer than
 * `tools.largeResultChars` is kept whole in the transcript store (a content blob under
 * `tool-result/<tool_use_id>`, named on the tool_result line's `largeResult`), written to a file,
 * and the model gets a preview and the file's path, which it can `Read` (in windows, with
 * offset/limit) or search.
 *
 * The file lives under the temporary directory, at a path that does not depend on the host or the
 * checkout (`<tmp>/agent-runner-results/<session>/<tool_use_id>.txt`; workers of one deployment
 * share the temporary directory's path, `/tmp` by default). A host that runs a later tool call of
 * the session writes the file again from the store when that call names it and the host lacks it
 * ({@link materializeLargeResults}).
 */
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TranscriptStore } from '../store/transcript-store';
import type { ToolOutput } from './tools/types';
import { ensureOwnDirectory, writeFileThroughHandle } from './tools/safe-write';

/** Characters of a tool result above which it is kept by reference (Claude Code's limit for Bash). */
export const DEFAULT_LARGE_RESULT_CHARS = 30_000;
/** Characters of the preview the model gets (Claude Code's "first 2KB"). */
export const LARGE_RESULT_PREVIEW_CHARS = 2_000;
/** Name of the directory (under the temporary directory) that holds the result files. */
export const LARGE_RESULTS_DIR_NAME = 'agent-runner-results';

/** What the tool_result line keeps of a large result (`largeResult`); the result itself is a content blob. */
export interface LargeResultRecord {
  /** File the model was told to read. */
  path: string;
  /** Size of the whole result, UTF-8 bytes. */
  bytes: number;
  /** Content key of the whole result in the session's store. */
  key: string;
}

/** Content key of one tool call's whole result. */
export function largeResultKey(toolUseId: string): string {
  return `tool-result/${safeName(toolUseId)}`;
}

function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** Directory of a session's result files. */
export function largeResultsDir(sessionId: string, tmp: string = os.tmpdir()): string {
  return path.join(tmp, LARGE_RESULTS_DIR_NAME, safeName(sessionId));
}

/** File of one tool call's result. */
export function largeResultPath(sessionId: string, toolUseId: string, tmp: string = os.tmpdir()): string {
  return path.join(largeResultsDir(sessionId, tmp), `${safeName(toolUseId)}.txt`);
}

/** A size as Claude Code shows it: `512 bytes`, `106.3KB`, `2MB`. */
export function formatFileSize(bytes: number): string {
  const kb = bytes / 1024;
  if (kb < 1) return `${bytes} bytes`;
  if (kb < 1024) return `${kb.toFixed(1).replace(/\.0$/, '')}KB`;
  const mb = kb / 1024;
  if (mb < 1024) return `${mb.toFixed(1).replace(/\.0$/, '')}MB`;
  return `${(mb / 1024).toFixed(1).replace(/\.0$/, '')}GB`;
}

/**
 * The tool_result the model gets instead of a large result (Claude Code's form): the size, the
 * path, and the first 2,000 characters cut back to a line end.
 */
export function persistedOutputText(file: string, bytes: number, content: string): string {
  let preview = content.slice(0, LARGE_RESULT_PREVIEW_CHARS);
  const nl = preview.lastIndexOf('\n');
  if (nl > 0) preview = preview.slice(0, nl + 1);
  return (
    '<persisted-output>\n' +
    `Output too large (${formatFileSize(bytes)}). Full output saved to: ${file}\n\n` +
    `Preview (first ${formatFileSize(LARGE_RESULT_PREVIEW_CHARS)}):\n` +
    `${preview}${preview.endsWith('\n') ? '' : '\n'}...\n</persisted-output>`
  );
}

/**
 * Writes a result file in `<tmp>/agent-runner-results/<session>/`: both directories must be this
 * user's own (others can write to the temporary directory and could plant a link there), and the
 * file is written through a handle on its directory, owner-only (src/activities/tools/safe-write.ts).
 */
async function writeResultFile(file: string, content: string): Promise<void> {
  const sessionDir = path.dirname(file);
  await ensureOwnDirectory(path.dirname(sessionDir));
  await ensureOwnDirectory(sessionDir);
  await writeFileThroughHandle(file, Buffer.from(content, 'utf8'), { newFileMode: 0o600 });
}

/** Options of {@link keepLargeResult}. */
export interface LargeResultOptions {
  store: TranscriptStore;
  sessionId: string;
  toolUseId: string;
  toolName: string;
  /** @default {@link DEFAULT_LARGE_RESULT_CHARS} */
  thresholdChars?: number;
  /** Temporary directory. @default os.tmpdir() */
  tmpDir?: string;
}

/**
 * Replaces a result longer than the threshold by its preview and path, writes the file, and
 * returns what the tool_result line keeps. Read's own results are never replaced (they are
 * already bounded, and reading the file must not produce another file). Bash's structured
 * result keeps the first `threshold` characters of stdout plus `persistedOutputPath` and
 * `persistedOutputSize`, as in Claude Code.
 */
export async function keepLargeResult<T extends ToolOutput>(
  out: T,
  opts: LargeResultOptions,
): Promise<{ out: T; record?: LargeResultRecord }> {
  const threshold = opts.thresholdChars ?? DEFAULT_LARGE_RESULT_CHARS;
  if (opts.toolName === 'Read' || typeof out.content !== 'string' || out.content.length <= threshold) return { out };
  const content = out.content;
  const { record } = await persistResultFile(opts.store, opts.sessionId, opts.toolUseId, content, opts.tmpDir);
  const { path: file, bytes } = record;
  const s = out.structured as Record<string, unknown> | undefined;
  const structured =
    s !== null && typeof s === 'object' && typeof s['stdout'] === 'string'
      ? { ...s, stdout: s['stdout'].slice(0, threshold), persistedOutputPath: file, persistedOutputSize: bytes }
      : out.structured;
  return { out: { ...out, content: persistedOutputText(file, bytes, content), structured }, record };
}

/**
 * Keeps one tool call's whole result by reference: in the store (first writer wins, so a
 * retried run keeps the result stored first) and as the session's result file.
 * @returns what the tool_result line keeps, and the `<persisted-output>` text the model gets
 */
export async function persistResultFile(
  store: TranscriptStore,
  sessionId: string,
  toolUseId: string,
  content: string,
  tmpDir?: string,
): Promise<{ record: LargeResultRecord; replacement: string }> {
  const file = largeResultPath(sessionId, toolUseId, tmpDir);
  const key = largeResultKey(toolUseId);
  const stored = await store.putContent(sessionId, key, content);
  await writeResultFile(file, content);
  return {
    record: { path: file, bytes: stored.size, key },
    replacement: persistedOutputText(file, stored.size, content),
  };
}

/**
 * Writes again, from the store, the result files of this session that a tool call names in its
 * input (a `file_path`, a `path`, a Bash command…) and that this host does not have: the case
 * of a session that moved to another host, or of a cleaned temporary directory. Only files at
 * this host's result location are written (a path elsewhere is not the runner's to create).
 * @returns the files written
 */
export async function materializeLargeResults(
  store: TranscriptStore,
  sessionId: string,
  toolInput: unknown,
  tmpDir: string = os.tmpdir(),
): Promise<string[]> {
  const text = JSON.stringify(toolInput ?? {});
  const marker = `${LARGE_RESULTS_DIR_NAME}/${safeName(sessionId)}/`;
  if (!text.includes(marker)) return [];
  const names = new Set<string>();
  const re = new RegExp(`${escapeRe(marker)}([A-Za-z0-9_-]+)\\.txt`, 'g');
  for (const m of text.matchAll(re)) if (m[1]) names.add(m[1]);
  const written: string[] = [];
  for (const name of names) {
    const file = largeResultPath(sessionId, name, tmpDir);
    if (!text.includes(file)) continue;
    const exists = await fsp.stat(file).then(
      () => true,
      () => false,
    );
    if (exists) continue;
    const content = await store.getContent(sessionId, largeResultKey(name));
    if (!content) continue;
    await writeResultFile(file, content.toString('utf8'));
    written.push(file);
  }
  return written;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
