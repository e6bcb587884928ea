/**
 * Jupyter notebooks (`.ipynb`, nbformat 4) as Claude Code 2.1.328 shows them to the model: each
 * cell as `<cell id="…">source</cell id="…">` (a `<cell_type>` tag for cells other than code,
 * a `<language>` tag for code that is not Python), its outputs after it, adjacent text joined
 * by a newline into one text block; image outputs as image blocks.
 */
import path from 'node:path';
import type { ContentBlock } from '../../common/transcript';

/** A notebook cell as stored (nbformat 4). */
export interface NotebookCell {
  cell_type: string;
  id?: string;
  source: string | string[];
  metadata?: Record<string, unknown>;
  execution_count?: number | null;
  outputs?: NotebookOutput[];
  [key: string]: unknown;
}

/** A code cell's output as stored. */
export interface NotebookOutput {
  output_type: string;
  text?: string | string[];
  data?: Record<string, unknown>;
  ename?: string;
  evalue?: string;
  traceback?: string[];
  [key: string]: unknown;
}

/** A notebook as stored. */
export interface Notebook {
  cells: NotebookCell[];
  metadata?: { language_info?: { name?: string }; [key: string]: unknown };
  nbformat?: number;
  nbformat_minor?: number;
  [key: string]: unknown;
}

/** A cell as Read reports it in `tool_use_result.file.cells` (Claude Code's shape). */
export interface NotebookCellView {
  cellType: string;
  source: string;
  execution_count?: number;
  cell_id: string;
  language?: string;
  outputs?: { output_type: string; text?: string; image?: { image_data: string; media_type: string } }[];
}

/** True when Read and NotebookEdit treat the path as a notebook. */
export function isNotebookPath(abs: string): boolean {
  return path.extname(abs).toLowerCase() === '.ipynb';
}

/** Parses a notebook's text, or throws an Error naming what is wrong. */
export function parseNotebook(text: string): Notebook {
  const nb = JSON.parse(text) as Notebook;
  if (nb === null || typeof nb !== 'object' || !Array.isArray(nb.cells)) {
    throw new Error('the file has no "cells" list');
  }
  return nb;
}

/** The notebook's language (its `language_info.name`), Python when it names none. */
export function notebookLanguage(nb: Notebook): string {
  return nb.metadata?.language_info?.name ?? 'python';
}

const joined = (s: string | string[] | undefined): string => (Array.isArray(s) ? s.join('') : (s ?? ''));

/** The id the model uses for a cell: its `id`, or `cell-N` (0-based) for a cell without one. */
export function cellIdOf(cell: NotebookCell, index: number): string {
  return cell.id ?? `cell-${index}`;
}

function outputView(o: NotebookOutput): NonNullable<NotebookCellView['outputs']>[number] {
  switch (o.output_type) {
    case 'stream':
      return { output_type: o.output_type, text: joined(o.text) };
    case 'execute_result':
    case 'display_data': {
      const data = o.data ?? {};
      const text = data['text/plain'] as string | string[] | undefined;
      const png = data['image/png'];
      const jpeg = data['image/jpeg'];
      const image =
        typeof png === 'string'
          ? { image_data: png.replace(/\s/g, ''), media_type: 'image/png' }
          : typeof jpeg === 'string'
            ? { image_data: jpeg.replace(/\s/g, ''), media_type: 'image/jpeg' }
            : undefined;
      return {
        output_type: o.output_type,
        ...(text !== undefined ? { text: joined(text) } : {}),
        ...(image ? { image } : {}),
      };
    }
    case 'error':
      return {
        output_type: o.output_type,
        text: `${o.ename ?? ''}: ${o.evalue ?? ''}\n${(o.traceback ?? []).join('\n')}`,
      };
    default:
      return { output_type: o.output_type };
  }
}

/** The cells as Read reports them in `tool_use_result`. */
export function notebookCellViews(nb: Notebook): NotebookCellView[] {
  const language = notebookLanguage(nb);
  return nb.cells.map((cell, i) => {
    const code = cell.cell_type === 'code';
    const outputs = code && cell.outputs?.length ? cell.outputs.map(outputView) : undefined;
    return {
      cellType: cell.cell_type,
      source: joined(cell.source),
      ...(code && cell.execution_count ? { execution_count: cell.execution_count } : {}),
      cell_id: cellIdOf(cell, i),
      ...(code ? { language } : {}),
      ...(outputs ? { outputs } : {}),
    };
  });
}

/** The tool_result content of a Read of the notebook. */
export function notebookContent(cells: readonly NotebookCellView[]): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  const push = (b: ContentBlock): void => {
    const prev = blocks[blocks.length - 1];
    if (prev && prev.type === 'text' && b.type === 'text')
      prev['text'] = `${String(prev['text'])}\n${String(b['text'])}`;
    else blocks.push(b);
  };
  for (const cell of cells) {
    const tags =
      (cell.cellType !== 'code' ? `<cell_type>${cell.cellType}</cell_type>` : '') +
      (cell.cellType === 'code' && cell.language !== 'python' ? `<language>${cell.language}</language>` : '');
    push({ text: `<cell id="${cell.cell_id}">${tags}${cell.source}</cell id="${cell.cell_id}">`, type: 'text' });
    for (const o of cell.outputs ?? []) {
      if (o.text) push({ text: `\n${o.text}`, type: 'text' });
      if (o.image) {
        push({ type: 'image', source: { data: o.image.image_data, media_type: o.image.media_type, type: 'base64' } });
      }
    }
  }
  return blocks;
}
