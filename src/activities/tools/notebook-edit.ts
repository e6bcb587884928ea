/**
 * The `NotebookEdit` tool: replaces, inserts or deletes one cell of a Jupyter notebook the model
 * has read, with Claude Code 2.1.328's schema, result texts and file format (one-space JSON
 * indentation, the changed cell's `source` as one string; a code cell's outputs cleared).
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { cwdHint, errorOutput } from './format';
import { checkWritable, loadForModification, resolveToolPath, statOrUndefined, writeTextFile } from './file-state';
import {
  cellIdOf,
  isNotebookPath,
  notebookLanguage,
  parseNotebook,
  type Notebook,
  type NotebookCell,
} from './notebook';
import { refusedWriteAsError } from './safe-write';
import type { ToolContext, ToolDefinition, ToolOutput } from './types';

/** Input of the NotebookEdit tool (Claude Code's schema). */
export const NotebookEditInputSchema = z.strictObject({
  notebook_path: z.string().describe('Absolute path of the notebook (.ipynb) to change.'),
  cell_id: z
    .string()
    .optional()
    .describe(
      'Id of the cell to change, as Read shows it (`<cell id="…">`). For insert: the new cell goes after this cell, or first when it is left out.',
    ),
  new_source: z.string().describe('The new source of the cell (ignored for delete).'),
  cell_type: z
    .enum(['code', 'markdown'])
    .optional()
    .describe('Type of the cell; required for insert, and for replace it defaults to the cell’s current type.'),
  edit_mode: z
    .enum(['replace', 'insert', 'delete'])
    .optional()
    .describe('What to do with the cell: replace (default), insert a new cell, or delete it.'),
});
/** Parsed NotebookEdit input. */
export type NotebookEditInput = z.infer<typeof NotebookEditInputSchema>;

const DESCRIPTION = [
  'Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb).',
  'Read the notebook in this session first: the edit is refused otherwise, or when the file changed since.',
  'cell_id is the id Read shows in `<cell id="…">`; it is required for replace and delete.',
  'edit_mode defaults to replace; insert adds a new cell after cell_id (or at the start without one) and needs cell_type; delete removes the cell.',
  'Replacing a code cell clears its outputs and execution count.',
].join(' ');

/** `tool_use_result` of a NotebookEdit, as Claude Code reports it. */
export interface NotebookEditStructured {
  new_source: string;
  old_source?: string;
  cell_type: string;
  language: string;
  edit_mode: string;
  cell_id: string;
  error: string;
  notebook_path: string;
  original_file: string;
  updated_file: string;
}

/** Index of the cell the model named: by `id`, else by the `cell-N` form Read shows for cells without one. */
function cellIndex(nb: Notebook, id: string): number {
  const byId = nb.cells.findIndex((c, i) => cellIdOf(c, i) === id);
  if (byId !== -1) return byId;
  const m = /^cell-(\d+)$/.exec(id);
  const n = m ? Number(m[1]) : -1;
  return n >= 0 && n < nb.cells.length && nb.cells[n]!.id === undefined ? n : -1;
}

/** A new cell; it gets an id when the notebook format has cell ids (nbformat 4.5 and later). */
function newCell(nb: Notebook, cellType: string, source: string): NotebookCell {
  const withIds = (nb.nbformat ?? 4) > 4 || ((nb.nbformat ?? 4) === 4 && (nb.nbformat_minor ?? 0) >= 5);
  return {
    cell_type: cellType,
    ...(withIds ? { id: randomBytes(4).toString('hex') } : {}),
    source,
    metadata: {},
    ...(cellType === 'code' ? { execution_count: null, outputs: [] } : {}),
  };
}

async function runNotebookEdit(input: NotebookEditInput, ctx: ToolContext): Promise<ToolOutput> {
  const abs = resolveToolPath(ctx.cwd, input.notebook_path);
  if (!isNotebookPath(abs)) {
    return errorOutput(
      'File must be a Jupyter notebook (.ipynb file). For editing other file types, use the FileEdit tool.',
    );
  }
  const mode = input.edit_mode ?? 'replace';
  if (mode !== 'insert' && input.cell_id === undefined) {
    return errorOutput('Cell ID must be specified when not inserting a new cell.');
  }
  if (mode === 'insert' && input.cell_type === undefined) {
    return errorOutput('Cell type is required when using edit_mode=insert.');
  }
  const st = await statOrUndefined(abs);
  if (!st) return errorOutput(`Notebook file does not exist. ${cwdHint(ctx.cwd)}`);
  const loaded = await loadForModification(abs, st);
  if ('error' in loaded) return errorOutput(loaded.error);
  const refusal = checkWritable(abs, loaded.state, ctx);
  if (refusal) return errorOutput(refusal);
  let nb: Notebook;
  try {
    nb = parseNotebook(loaded.text);
  } catch {
    return errorOutput('Notebook is not valid JSON.');
  }

  let index = -1;
  if (input.cell_id !== undefined) {
    index = cellIndex(nb, input.cell_id);
    if (index === -1) return errorOutput(`Cell with ID "${input.cell_id}" not found in notebook.`);
  }
  let message: string;
  let cellId = input.cell_id ?? '';
  let oldSource: string | undefined;
  if (mode === 'insert') {
    const cell = newCell(nb, input.cell_type!, input.new_source);
    nb.cells.splice(index + 1, 0, cell);
    cellId = cellIdOf(cell, index + 1);
    message = `Inserted cell ${cellId} with ${input.new_source}`;
  } else {
    const cell = nb.cells[index]!;
    oldSource = Array.isArray(cell.source) ? cell.source.join('') : cell.source;
    if (mode === 'delete') {
      nb.cells.splice(index, 1);
      message = `Deleted cell ${input.cell_id}`;
    } else {
      cell.source = input.new_source;
      if (cell.cell_type === 'code') {
        cell.execution_count = null;
        cell.outputs = [];
      }
      if (input.cell_type !== undefined) cell.cell_type = input.cell_type;
      message = `Updated cell ${input.cell_id} with ${input.new_source}`;
    }
  }
  const updated = JSON.stringify(nb, null, 1);
  const state = await writeTextFile(abs, updated, ctx);
  const structured: NotebookEditStructured = {
    new_source: input.new_source,
    ...(oldSource !== undefined ? { old_source: oldSource } : {}),
    cell_type: input.cell_type ?? 'code',
    language: notebookLanguage(nb),
    edit_mode: mode,
    cell_id: cellId,
    error: '',
    notebook_path: abs,
    original_file: loaded.text,
    updated_file: updated,
  };
  return { content: message, isError: false, structured, fileState: { path: abs, state } };
}

/** The built-in `NotebookEdit` tool (opt-in: offered when `--tools` names it). */
export const NotebookEditTool: ToolDefinition<NotebookEditInput> = {
  name: 'NotebookEdit',
  description: DESCRIPTION,
  inputSchema: NotebookEditInputSchema,
  readOnly: false,
  idempotent: false,
  run: (input, ctx) => refusedWriteAsError(runNotebookEdit(input, ctx)),
};
