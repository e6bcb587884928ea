/**
 * Read of images and PDFs, as Claude Code 2.1.328 returns them: an image as one `image` block, a
 * whole PDF as a `document` block, PDF pages (`pages`) as one JPEG `image` block per page rendered
 * by poppler's `pdftoppm` (docs/reference/claude-code-commands-skills-model.md). The blocks go to
 * the tool_result line in the transcript store; the workflow only learns the result's size.
 */
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import type { Stats } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatFileSize } from '../large-result';
import { sha256Hex } from './file-state';
import { plainErrorOutput } from './format';
import { imageDimensions } from './image-size';
import type { ToolContext, ToolOutput } from './types';

/** Media types by file extension (lower case) that Read returns as an image block. */
export const IMAGE_MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/** Largest image file Read sends (bytes): the Messages API takes images up to 5 MB of base64. */
export const MAX_IMAGE_BYTES = 3_750_000;
/** Largest PDF Read sends whole (bytes), below the Messages API's 32 MB request limit. */
export const MAX_PDF_BYTES = 20 * 1024 * 1024;
/** Pages one Read with `pages` may render (Claude Code's limit). */
export const MAX_PDF_PAGES_PER_READ = 20;
/** Resolution of rendered PDF pages (dots per inch; the value giving Claude Code's JPEGs byte for byte). */
export const PDF_PAGE_DPI = 100;

const NO_PDFTOPPM =
  'pdftoppm is not installed. Install poppler-utils (e.g. `brew install poppler` or `apt-get install poppler-utils`) to enable PDF page rendering.';

/** The media type Read gives a path's image, or undefined when the extension is not an image's. */
export function imageMediaType(abs: string): string | undefined {
  return IMAGE_MEDIA_TYPES[path.extname(abs).toLowerCase()];
}

/** True when Read treats the path as a PDF. */
export function isPdfPath(abs: string): boolean {
  return path.extname(abs).toLowerCase() === '.pdf';
}

/** The read state of a file whose bytes were read whole (Write may then replace it). */
function fileStateOf(abs: string, st: Stats, data: Buffer): NonNullable<ToolOutput['fileState']> {
  return { path: abs, state: { mtimeMs: st.mtimeMs, size: data.length, sha256: sha256Hex(data) } };
}

/** Read of an image: one `image` block; `tool_use_result` `{type: 'image', file}` as in Claude Code. */
export async function readImage(abs: string, st: Stats, mediaType: string): Promise<ToolOutput> {
  const size = st.size;
  if (size > MAX_IMAGE_BYTES) {
    return plainErrorOutput(
      `Image file is too large to read (${formatFileSize(size)}; the limit is ${formatFileSize(MAX_IMAGE_BYTES)}). Make a smaller copy with Bash (e.g. ImageMagick \`convert -resize\`) and read that.`,
    );
  }
  const data = await fsp.readFile(abs);
  const base64 = data.toString('base64');
  const dims = imageDimensions(data, mediaType);
  return {
    content: [{ type: 'image', source: { type: 'base64', data: base64, media_type: mediaType } }],
    isError: false,
    structured: {
      type: 'image',
      file: {
        base64,
        type: mediaType,
        originalSize: data.length,
        ...(dims
          ? {
              dimensions: {
                originalWidth: dims.width,
                originalHeight: dims.height,
                displayWidth: dims.width,
                displayHeight: dims.height,
              },
            }
          : {}),
      },
    },
    fileState: fileStateOf(abs, st, data),
  };
}

/** Read of a whole PDF: a text line and a `document` block. */
export async function readWholePdf(abs: string, st: Stats): Promise<ToolOutput> {
  const size = st.size;
  if (size > MAX_PDF_BYTES) {
    return plainErrorOutput(
      `PDF file is too large to read whole (${formatFileSize(size)}; the limit is ${formatFileSize(MAX_PDF_BYTES)}). Read it in parts with pages (e.g. pages: "1-5"), at most ${MAX_PDF_PAGES_PER_READ} pages per request.`,
    );
  }
  const data = await fsp.readFile(abs);
  const base64 = data.toString('base64');
  return {
    content: [
      { type: 'text', text: `PDF file read: ${abs} (${formatFileSize(size)})` },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: base64 } },
    ],
    isError: false,
    structured: { type: 'pdf', file: { filePath: abs, base64, originalSize: size } },
    fileState: fileStateOf(abs, st, data),
  };
}

/** A `pages` value: `"3"` or `"2-5"` (1-based, inclusive), or an error text. */
export function parsePageRange(pages: string): { first: number; last: number } | { error: string } {
  const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(pages);
  const first = m ? Number(m[1]) : NaN;
  const last = m ? Number(m[2] ?? m[1]) : NaN;
  if (!m || first < 1 || last < first) {
    return {
      error: `Invalid pages parameter: "${pages}". Use a page number or a range like "1-5" (first page 1, at most ${MAX_PDF_PAGES_PER_READ} pages per request).`,
    };
  }
  if (last - first + 1 > MAX_PDF_PAGES_PER_READ) {
    return {
      error: `Page range "${pages}" has ${last - first + 1} pages; at most ${MAX_PDF_PAGES_PER_READ} pages can be read per request (e.g. pages: "${first}-${first + MAX_PDF_PAGES_PER_READ - 1}").`,
    };
  }
  return { first, last };
}

interface Run {
  stdout: string;
  stderr: string;
  /** The command is not on PATH. */
  missing: boolean;
  code: number;
}

function run(cmd: string, args: string[], ctx: ToolContext): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { env: ctx.env ?? process.env, signal: ctx.signal, maxBuffer: 1024 * 1024 },
      (err, stdout, stderr) => {
        const e = err as (NodeJS.ErrnoException & { code?: unknown }) | null;
        resolve({
          stdout: String(stdout),
          stderr: String(stderr),
          missing: e?.code === 'ENOENT',
          code: e ? (typeof e.code === 'number' ? e.code : 1) : 0,
        });
      },
    );
  });
}

/** Page count from `pdfinfo`, or undefined when it cannot be told. */
async function pdfPageCount(abs: string, ctx: ToolContext): Promise<number | undefined> {
  const info = await run('pdfinfo', [abs], ctx);
  const m = /^Pages:\s+(\d+)/m.exec(info.stdout);
  return m ? Number(m[1]) : undefined;
}

/**
 * Read of PDF pages: each page of the range rendered by `pdftoppm` as a JPEG at
 * {@link PDF_PAGE_DPI} dpi, kept in a new directory under the temporary directory (named in
 * `tool_use_result.file.outputDir`, as Claude Code keeps its own).
 */
export async function readPdfPages(abs: string, size: number, pages: string, ctx: ToolContext): Promise<ToolOutput> {
  const range = parsePageRange(pages);
  if ('error' in range) return plainErrorOutput(range.error);
  const probe = await run('pdftoppm', ['-v'], ctx);
  if (probe.missing) return plainErrorOutput(NO_PDFTOPPM);
  const count = await pdfPageCount(abs, ctx);
  if (count !== undefined && range.last > count) {
    const outside = range.first > count ? range.first : range.last;
    return plainErrorOutput(
      `Requested page ${outside} is outside the document (PDF has ${count} pages). Use a range within 1-${count}, maximum ${MAX_PDF_PAGES_PER_READ} pages per request (e.g. pages: "1-${Math.min(count, 3)}").`,
    );
  }
  const outputDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'agent-runner-pdf-'));
  const rendered = await run(
    'pdftoppm',
    [
      '-jpeg',
      '-r',
      String(PDF_PAGE_DPI),
      '-f',
      String(range.first),
      '-l',
      String(range.last),
      abs,
      path.join(outputDir, 'page'),
    ],
    ctx,
  );
  if (rendered.code !== 0) {
    await fsp.rm(outputDir, { recursive: true, force: true });
    return plainErrorOutput(
      `pdftoppm could not render ${abs}: ${rendered.stderr.trim() || `exit code ${rendered.code}`}`,
    );
  }
  // pdftoppm names pages page-N.jpg, N zero-padded to the page count's width: sort by N.
  const files = (await fsp.readdir(outputDir))
    .filter((f) => f.endsWith('.jpg'))
    .sort((a, b) => Number(/(\d+)\.jpg$/.exec(a)?.[1]) - Number(/(\d+)\.jpg$/.exec(b)?.[1]));
  const images = [];
  for (const f of files) {
    ctx.heartbeat();
    const data = await fsp.readFile(path.join(outputDir, f));
    images.push({ type: 'image', source: { type: 'base64', data: data.toString('base64'), media_type: 'image/jpeg' } });
  }
  return {
    content: [
      { type: 'text', text: `PDF pages extracted: ${images.length} page(s) from ${abs} (${formatFileSize(size)})` },
      ...images,
    ],
    isError: false,
    structured: {
      type: 'parts',
      file: { filePath: abs, originalSize: size, outputDir, count: images.length },
      firstPage: range.first,
    },
  };
}
