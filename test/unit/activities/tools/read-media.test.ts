import { promises as fsp, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parsePageRange } from '../../../../src/activities/tools/read-media';
import { imageDimensions } from '../../../../src/activities/tools/image-size';
import { makeSession, text, type TestSession } from './helpers';

const MEDIA = path.join(__dirname, '..', '..', '..', 'fixtures', 'media');
const PNG = readFileSync(path.join(MEDIA, 'red-4x4.png'));
const PDF = readFileSync(path.join(MEDIA, 'three-pages.pdf'));

let s: TestSession;
beforeEach(async () => {
  s = await makeSession();
});
afterEach(async () => {
  await s.cleanup();
});

type Block = { type: string; text?: string; source?: { type: string; media_type: string; data: string } };
const blocks = (out: { content: unknown }): Block[] => out.content as Block[];

describe('Read of images', () => {
  test('Read: a PNG is one base64 image block, tool_use_result {type: image} with its dimensions', async () => {
    const abs = await s.write('red.png', PNG);
    const out = await s.run('Read', { file_path: abs });
    expect(out.outcome).toBe('ok');
    expect(out.content).toEqual([
      { type: 'image', source: { type: 'base64', data: PNG.toString('base64'), media_type: 'image/png' } },
    ]);
    expect(out.structured).toEqual({
      type: 'image',
      file: {
        base64: PNG.toString('base64'),
        type: 'image/png',
        originalSize: PNG.length,
        dimensions: { originalWidth: 4, originalHeight: 4, displayWidth: 4, displayHeight: 4 },
      },
    });
    expect(out.fileState?.path).toBe(abs);
  });

  test('Read: an image over the size limit is refused with a clear error, not sent', async () => {
    const abs = await s.write('big.png', Buffer.concat([PNG, Buffer.alloc(4_000_000)]));
    const out = await s.run('Read', { file_path: abs });
    expect(out.isError).toBe(true);
    expect(text(out)).toMatch(/^Image file is too large to read \(3\.8MB; the limit is 3\.6MB\)/);
  });

  test('imageDimensions: reads PNG, GIF and JPEG headers', () => {
    expect(imageDimensions(PNG, 'image/png')).toEqual({ width: 4, height: 4 });
    const gif = Buffer.from('GIF89a\x0a\x00\x05\x00', 'latin1');
    expect(imageDimensions(gif, 'image/gif')).toEqual({ width: 10, height: 5 });
    // SOI, an APP0 segment of 4 bytes, then SOF0 with height 3 and width 7.
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 11, 8, 0, 3, 0, 7, 3]);
    expect(imageDimensions(jpeg, 'image/jpeg')).toEqual({ width: 7, height: 3 });
    expect(imageDimensions(Buffer.from('nope'), 'image/png')).toBeUndefined();
  });
});

describe('Read of PDFs', () => {
  test('Read: a whole PDF is a text line and a document block', async () => {
    const abs = await s.write('doc.pdf', PDF);
    const out = await s.run('Read', { file_path: abs });
    expect(out.outcome).toBe('ok');
    expect(out.content).toEqual([
      { type: 'text', text: `PDF file read: ${abs} (1.1KB)` },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF.toString('base64') } },
    ]);
    expect(out.structured).toEqual({
      type: 'pdf',
      file: { filePath: abs, base64: PDF.toString('base64'), originalSize: PDF.length },
    });
  });

  test('Read: pages "2-3" renders each page as a JPEG with pdftoppm, in page order', async () => {
    const abs = await s.write('doc.pdf', PDF);
    const out = await s.run('Read', { file_path: abs, pages: '2-3' });
    expect(out.outcome).toBe('ok');
    const b = blocks(out);
    expect(b[0]).toEqual({ type: 'text', text: `PDF pages extracted: 2 page(s) from ${abs} (1.1KB)` });
    expect(b.slice(1).map((x) => [x.type, x.source?.media_type])).toEqual([
      ['image', 'image/jpeg'],
      ['image', 'image/jpeg'],
    ]);
    // Pages 2 and 3 differ (their text says which page they are): both are real renders.
    expect(b[1]!.source!.data).not.toBe(b[2]!.source!.data);
    expect(Buffer.from(b[1]!.source!.data, 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    const st = out.structured as { type: string; file: { outputDir: string; count: number }; firstPage: number };
    expect(st).toMatchObject({
      type: 'parts',
      file: { filePath: abs, originalSize: PDF.length, count: 2 },
      firstPage: 2,
    });
    expect((await fsp.readdir(st.file.outputDir)).sort()).toEqual(['page-2.jpg', 'page-3.jpg']);
    await fsp.rm(st.file.outputDir, { recursive: true, force: true });
  });

  test('Read: a page outside the document is an error in Claude Code words', async () => {
    const abs = await s.write('doc.pdf', PDF);
    const out = await s.run('Read', { file_path: abs, pages: '9' });
    expect(out.isError).toBe(true);
    expect(text(out)).toBe(
      'Requested page 9 is outside the document (PDF has 3 pages). Use a range within 1-3, maximum 20 pages per request (e.g. pages: "1-3").',
    );
  });

  test('Read: without pdftoppm on PATH, pages fail with the install hint; the whole PDF still reads', async () => {
    const abs = await s.write('doc.pdf', PDF);
    s.ctx.env = { ...process.env, PATH: s.dir };
    const out = await s.run('Read', { file_path: abs, pages: '1' });
    expect(out.isError).toBe(true);
    expect(text(out)).toBe(
      'pdftoppm is not installed. Install poppler-utils (e.g. `brew install poppler` or `apt-get install poppler-utils`) to enable PDF page rendering.',
    );
    expect((await s.run('Read', { file_path: abs })).outcome).toBe('ok');
  });

  test('Read: pages on a file that is not a PDF is an input error', async () => {
    const abs = await s.write('a.txt', 'x\n');
    const out = await s.run('Read', { file_path: abs, pages: '1' });
    expect(out.isError).toBe(true);
    expect(text(out)).toContain('The pages parameter applies to PDF files only');
  });

  test('parsePageRange: one page, a range, and bad or too long ranges', () => {
    expect(parsePageRange('3')).toEqual({ first: 3, last: 3 });
    expect(parsePageRange(' 2 - 5 ')).toEqual({ first: 2, last: 5 });
    for (const bad of ['0', '5-2', 'a', '1,2', '']) expect(parsePageRange(bad)).toHaveProperty('error');
    expect(parsePageRange('1-21')).toEqual({
      error: 'Page range "1-21" has 21 pages; at most 20 pages can be read per request (e.g. pages: "1-20").',
    });
  });
});

const NOTEBOOK = {
  cells: [
    { cell_type: 'markdown', id: 'intro', metadata: {}, source: ['# Title\n', 'Some text.'] },
    {
      cell_type: 'code',
      id: 'calc',
      metadata: {},
      execution_count: 1,
      source: ['x = 6 * 7\n', 'print(x)'],
      outputs: [{ output_type: 'stream', name: 'stdout', text: ['42\n'] }],
    },
    {
      cell_type: 'code',
      metadata: {},
      execution_count: 2,
      source: 'plot()',
      outputs: [
        { output_type: 'display_data', data: { 'text/plain': ['<Figure>'], 'image/png': 'iVBO\nRw==' }, metadata: {} },
        { output_type: 'error', ename: 'ValueError', evalue: 'bad', traceback: ['line 1', 'line 2'] },
      ],
    },
  ],
  metadata: { kernelspec: { name: 'python3' } },
  nbformat: 4,
  nbformat_minor: 5,
};

describe('Read of notebooks', () => {
  test('Read: a notebook is its cells as <cell id> text (Claude Code form), outputs after each cell', async () => {
    const abs = await s.write('a.ipynb', JSON.stringify(NOTEBOOK, null, 1));
    const out = await s.run('Read', { file_path: abs });
    expect(out.outcome).toBe('ok');
    expect(out.content).toEqual([
      {
        type: 'text',
        text:
          '<cell id="intro"><cell_type>markdown</cell_type># Title\nSome text.</cell id="intro">\n' +
          '<cell id="calc">x = 6 * 7\nprint(x)</cell id="calc">\n\n42\n\n' +
          '<cell id="cell-2">plot()</cell id="cell-2">\n\n<Figure>',
      },
      { type: 'image', source: { data: 'iVBORw==', media_type: 'image/png', type: 'base64' } },
      { type: 'text', text: '\nValueError: bad\nline 1\nline 2' },
    ]);
    const cells = (out.structured as { file: { cells: unknown[] } }).file.cells;
    expect(cells[1]).toEqual({
      cellType: 'code',
      source: 'x = 6 * 7\nprint(x)',
      execution_count: 1,
      cell_id: 'calc',
      language: 'python',
      outputs: [{ output_type: 'stream', text: '42\n' }],
    });
    expect(out.fileState?.path).toBe(abs);
  });

  test('Read: a notebook that is not JSON is an error naming the file', async () => {
    const abs = await s.write('bad.ipynb', '{ nope');
    const out = await s.run('Read', { file_path: abs });
    expect(out.isError).toBe(true);
    expect(text(out)).toContain(`${abs} is not a valid Jupyter notebook`);
  });

  test('Read: a code cell of another language is tagged with it', async () => {
    const nb = { ...NOTEBOOK, cells: [NOTEBOOK.cells[1]], metadata: { language_info: { name: 'julia' } } };
    const abs = await s.write('j.ipynb', JSON.stringify(nb));
    const out = await s.run('Read', { file_path: abs });
    expect((out.content as Block[])[0]!.text).toBe(
      '<cell id="calc"><language>julia</language>x = 6 * 7\nprint(x)</cell id="calc">\n\n42\n',
    );
  });
});
