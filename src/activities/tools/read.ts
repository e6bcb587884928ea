/**
 * The `Read` tool: returns a text file's lines, numbered, in Claude Code's `N\tline` format;
 * images, PDFs (read-media.ts) and notebooks (notebook.ts) as Claude Code returns them.
 * Large files are streamed: only the requested lines are kept in memory while the whole
 * file is hashed for the session's read-file state.
 */
import { promises as fsp } from 'node:fs';
import type { Stats } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { FileReadState } from '../../common/tools';
import { errorOutput, cwdHint, formatBytes, plainErrorOutput, systemReminder } from './format';
import { FILE_CHUNK_BYTES, resolveToolPath, statOrUndefined } from './file-state';
import { throttledHeartbeat, throwIfAborted } from './progress';
import type { ToolContext, ToolDefinition, ToolOutput } from './types';
import { MAX_PDF_PAGES_PER_READ, imageMediaType, isPdfPath, readImage, readPdfPages, readWholePdf } from './read-media';
import { isNotebookPath, notebookCellViews, notebookContent, parseNotebook } from './notebook';
import { loadForModification } from './file-state';

/** Lines returned when `limit` is not given. */
export const READ_DEFAULT_LIMIT = 2000;
/** Lines longer than this many characters are cut. */
export const READ_MAX_LINE_CHARS = 2000;
/** Files larger than this must be read with `offset`/`limit`; also the cap on returned text. */
export const READ_MAX_WHOLE_FILE_BYTES = 256 * 1024;
/** How many leading bytes are checked for NUL to detect a binary file. */
export const BINARY_SNIFF_BYTES = 8 * 1024;

/** Input of the Read tool (Claude Code's schema; `allow_large` is not supported). */
export const ReadInputSchema = z.strictObject({
  file_path: z
    .string()
    .describe('Path of the file to read. Prefer an absolute path; a relative one is taken from the working directory.'),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Line number to start reading from (1 = first line). Use it with limit for large files.'),
  limit: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(`Maximum number of lines to return (default ${READ_DEFAULT_LIMIT}).`),
  pages: z
    .string()
    .optional()
    .describe(
      `Page range of a PDF to return as page images (e.g. "1-5", "3"); at most ${MAX_PDF_PAGES_PER_READ} pages per request. PDF files only.`,
    ),
});
/** Parsed Read input. */
export type ReadInput = z.infer<typeof ReadInputSchema>;

/** Structured Read result (`tool_use_result`), as Claude Code reports it. */
export interface ReadStructured {
  type: 'text';
  file: { filePath: string; content: string; numLines: number; startLine: number; totalLines: number };
}

const DESCRIPTION = [
  'Reads a file from the local filesystem. A text file comes back as its lines, each prefixed by its line number and a tab (`12\\tcontent`).',
  'Images (PNG, JPEG, GIF, WebP) come back as images; a PDF comes back whole as a document, or with pages (e.g. "1-5") as one image per page; a Jupyter notebook (.ipynb) comes back as its cells with their outputs.',
  `By default it returns up to ${READ_DEFAULT_LIMIT} lines from the start of the file; for longer files pass offset (1-based first line) and limit to read a window.`,
  `Lines longer than ${READ_MAX_LINE_CHARS} characters are cut short, and files over ${READ_MAX_WHOLE_FILE_BYTES / 1024} KB must be read in windows with offset/limit (or searched with Grep).`,
  'Prefer absolute paths. It reads files only: list a directory with Glob or Bash `ls`; other binary files are refused.',
  'You must Read a file before you can Edit it or overwrite it with Write, and reading several likely-relevant files at once is often useful.',
  'The line-number prefix is not part of the file: never include it in Edit strings.',
].join(' ');

/** True when `buf` contains a NUL byte (our test for binary content). */
export function looksBinary(buf: Buffer): boolean {
  return buf.indexOf(0) !== -1;
}

interface ScanResult {
  lines: string[];
  totalLines: number;
  state: FileReadState;
}

/**
 * Streams the file once: hashes every byte, counts lines, and keeps only lines
 * `[startLine, startLine + limit)`, each cut to {@link READ_MAX_LINE_CHARS} characters.
 */
async function scanLines(
  fh: fsp.FileHandle,
  startLine: number,
  limit: number,
  ctx: ToolContext,
  first: Buffer,
): Promise<ScanResult> {
  const st = await fh.stat();
  const hash = createHash('sha256');
  const decoder = new StringDecoder('utf8');
  const beat = throttledHeartbeat(ctx);
  const endLine = startLine + limit; // exclusive
  const lines: string[] = [];
  let lineNo = 1;
  let cur = '';
  let curLen = 0;

  const finishLine = (): void => {
    if (lineNo >= startLine && lineNo < endLine) {
      if (curLen > READ_MAX_LINE_CHARS) {
        lines.push(`${cur}… [line truncated, ${curLen - READ_MAX_LINE_CHARS} more characters]`);
      } else {
        lines.push(cur.endsWith('\r') ? cur.slice(0, -1) : cur);
      }
    }
    cur = '';
    curLen = 0;
  };

  const feed = (text: string): void => {
    let pos = 0;
    for (;;) {
      const nl = text.indexOf('\n', pos);
      const segEnd = nl === -1 ? text.length : nl;
      if (lineNo >= startLine && lineNo < endLine) {
        if (cur.length < READ_MAX_LINE_CHARS) {
          cur += text.slice(pos, Math.min(segEnd, pos + READ_MAX_LINE_CHARS - cur.length));
        }
        curLen += segEnd - pos;
      }
      if (nl === -1) return;
      finishLine();
      lineNo += 1;
      pos = nl + 1;
    }
  };

  let chunk: Buffer = first;
  const buf = Buffer.allocUnsafe(FILE_CHUNK_BYTES);
  while (chunk.length > 0) {
    hash.update(chunk);
    feed(decoder.write(chunk));
    beat();
    throwIfAborted(ctx.signal, 'Read');
    const { bytesRead } = await fh.read(buf, 0, buf.length, null);
    chunk = buf.subarray(0, bytesRead);
  }
  feed(decoder.end());
  finishLine();
  return {
    lines,
    totalLines: lineNo,
    state: { mtimeMs: st.mtimeMs, size: st.size, sha256: hash.digest('hex') },
  };
}

async function runRead(input: ReadInput, ctx: ToolContext): Promise<ToolOutput> {
  const abs = resolveToolPath(ctx.cwd, input.file_path);
  const st = await statOrUndefined(abs);
  // Claude Code reports these two as plain failures (not <tool_use_error>), in these words.
  if (!st) return plainErrorOutput(`File does not exist. ${cwdHint(ctx.cwd)}`);
  if (st.isDirectory()) return plainErrorOutput(`EISDIR: illegal operation on a directory, read '${abs}'`);
  if (!st.isFile()) return errorOutput(`${abs} is not a regular file and cannot be read.`);
  const mediaType = imageMediaType(abs);
  if (mediaType) return readImage(abs, st, mediaType);
  if (isPdfPath(abs)) {
    return input.pages !== undefined ? readPdfPages(abs, st.size, input.pages, ctx) : readWholePdf(abs, st);
  }
  if (input.pages !== undefined) {
    return errorOutput(
      `The pages parameter applies to PDF files only; ${abs} is not a PDF. Use offset and limit for text files.`,
    );
  }
  if (isNotebookPath(abs)) return readNotebook(abs, st);
  const windowed = input.offset !== undefined || input.limit !== undefined;
  if (!windowed && st.size > READ_MAX_WHOLE_FILE_BYTES) {
    return errorOutput(
      `File is too large to read at once (${formatBytes(st.size)}; the limit without offset/limit is ${READ_MAX_WHOLE_FILE_BYTES / 1024} KB). Pass offset and limit to read part of it, or use Grep to find the lines you need.`,
    );
  }

  const fh = await fsp.open(abs, 'r');
  try {
    const firstBuf = Buffer.allocUnsafe(FILE_CHUNK_BYTES);
    const { bytesRead } = await fh.read(firstBuf, 0, firstBuf.length, null);
    const first = firstBuf.subarray(0, bytesRead);
    if (looksBinary(first.subarray(0, BINARY_SNIFF_BYTES))) {
      return errorOutput(
        `${abs} looks like a binary file (it contains NUL bytes), so Read will not show it. Inspect it with Bash instead (e.g. \`file\`, \`xxd | head\`).`,
      );
    }
    const startLine = Math.max(1, input.offset ?? 1);
    const limit = input.limit ?? READ_DEFAULT_LIMIT;
    const scan = await scanLines(fh, startLine, limit, ctx, first);
    const fileState = { path: abs, state: scan.state };

    if (scan.state.size === 0) {
      return {
        content: systemReminder('Warning: the file exists but the contents are empty.'),
        isError: false,
        structured: textStructured(abs, '', 1, 1, 1),
        fileState,
      };
    }
    if (scan.lines.length === 0) {
      return {
        content: systemReminder(
          `Warning: the file exists but is shorter than the provided offset (${input.offset ?? startLine}). The file has ${scan.totalLines} lines.`,
        ),
        isError: false,
        structured: textStructured(abs, '', 0, startLine, scan.totalLines),
        fileState,
      };
    }

    let content = scan.lines.map((line, i) => `${startLine + i}\t${line}`).join('\n');
    if (content.length > READ_MAX_WHOLE_FILE_BYTES) {
      return errorOutput(
        `The requested lines are too long to return (${formatBytes(content.length)} of text; the limit is ${READ_MAX_WHOLE_FILE_BYTES / 1024} KB). Ask for fewer lines with a smaller limit, or use Grep.`,
      );
    }
    const lastLine = startLine + scan.lines.length - 1;
    // Only our default window needs saying: a caller that chose limit knows it (Claude Code adds nothing).
    if (input.limit === undefined && lastLine < scan.totalLines) {
      content += `\n\n(Showing lines ${startLine}-${lastLine} of ${scan.totalLines}. Use offset and limit to read more.)`;
    }
    return {
      content,
      isError: false,
      structured: textStructured(abs, scan.lines.join('\n'), scan.lines.length, startLine, scan.totalLines),
      fileState,
    };
  } finally {
    await fh.close();
  }
}

/** Read of a notebook: its cells (one text block, images apart); the read state lets NotebookEdit change it. */
async function readNotebook(abs: string, st: Stats): Promise<ToolOutput> {
  const loaded = await loadForModification(abs, st);
  if ('error' in loaded) return errorOutput(loaded.error);
  let nb;
  try {
    nb = parseNotebook(loaded.text);
  } catch (err) {
    return errorOutput(`${abs} is not a valid Jupyter notebook: ${err instanceof Error ? err.message : String(err)}`);
  }
  const cells = notebookCellViews(nb);
  return {
    content: notebookContent(cells),
    isError: false,
    structured: { type: 'notebook', file: { filePath: abs, cells } },
    fileState: { path: abs, state: loaded.state },
  };
}

function textStructured(
  filePath: string,
  content: string,
  numLines: number,
  startLine: number,
  totalLines: number,
): ReadStructured {
  return { type: 'text', file: { filePath, content, numLines, startLine, totalLines } };
}

/** The built-in `Read` tool. */
export const ReadTool: ToolDefinition<ReadInput> = {
  name: 'Read',
  description: DESCRIPTION,
  inputSchema: ReadInputSchema,
  readOnly: true,
  idempotent: true,
  run: runRead,
};
