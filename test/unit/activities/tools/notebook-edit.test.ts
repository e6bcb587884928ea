import { promises as fsp } from 'node:fs';
import { executeTool } from '../../../../src/activities/tools/execute';
import { ALL_BUILTIN_TOOLS, toolsForModel } from '../../../../src/activities/tools/registry';
import { makeSession, text, type TestSession } from './helpers';

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
  ],
  metadata: {},
  nbformat: 4,
  nbformat_minor: 5,
};

let s: TestSession;
let nbPath: string;
beforeEach(async () => {
  s = await makeSession();
  nbPath = await s.write('a.ipynb', JSON.stringify(NOTEBOOK, null, 1));
});
afterEach(async () => {
  await s.cleanup();
});

/** Runs NotebookEdit with the opt-in tool table (as a turn offering it does), recording file state. */
async function edit(input: Record<string, unknown>): Promise<Awaited<ReturnType<typeof executeTool>>> {
  const out = await executeTool('NotebookEdit', { notebook_path: nbPath, ...input }, s.ctx, ALL_BUILTIN_TOOLS);
  if (out.fileState) s.states.set(out.fileState.path, out.fileState.state);
  return out;
}
const onDisk = async (): Promise<typeof NOTEBOOK> => JSON.parse(await fsp.readFile(nbPath, 'utf8'));

describe('NotebookEdit', () => {
  test('NotebookEdit: refused before the notebook is Read', async () => {
    const out = await edit({ cell_id: 'calc', new_source: 'x' });
    expect(out.isError).toBe(true);
    expect(text(out)).toBe(
      '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>',
    );
  });

  test('NotebookEdit: replace sets the source as a string and clears a code cell outputs (one-space JSON)', async () => {
    await s.run('Read', { file_path: nbPath });
    const out = await edit({ cell_id: 'calc', new_source: 'x = 7 * 6\nprint(x)' });
    expect(text(out)).toBe('Updated cell calc with x = 7 * 6\nprint(x)');
    const raw = await fsp.readFile(nbPath, 'utf8');
    expect(raw).toBe(JSON.stringify(JSON.parse(raw), null, 1));
    expect((await onDisk()).cells[1]).toEqual({
      cell_type: 'code',
      id: 'calc',
      metadata: {},
      execution_count: null,
      source: 'x = 7 * 6\nprint(x)',
      outputs: [],
    });
    expect(out.structured).toMatchObject({
      old_source: 'x = 6 * 7\nprint(x)',
      edit_mode: 'replace',
      cell_id: 'calc',
      error: '',
    });
  });

  test('NotebookEdit: insert adds a cell with a new 8-hex id after cell_id; edits chain without another Read', async () => {
    await s.run('Read', { file_path: nbPath });
    const out = await edit({ cell_id: 'intro', edit_mode: 'insert', cell_type: 'code', new_source: 'import math' });
    const id = /^Inserted cell ([0-9a-f]{8}) with import math$/.exec(text(out))?.[1];
    expect(id).toBeDefined();
    expect((await onDisk()).cells.map((c) => c.id)).toEqual(['intro', id, 'calc']);
    expect((await onDisk()).cells[1]).toEqual({
      cell_type: 'code',
      id,
      source: 'import math',
      metadata: {},
      execution_count: null,
      outputs: [],
    });
    expect(text(await edit({ cell_id: 'intro', edit_mode: 'delete', new_source: '' }))).toBe('Deleted cell intro');
    expect((await onDisk()).cells.map((c) => c.id)).toEqual([id, 'calc']);
  });

  test('NotebookEdit: insert without cell_id goes first; insert without cell_type is refused', async () => {
    await s.run('Read', { file_path: nbPath });
    expect(text(await edit({ edit_mode: 'insert', new_source: 'x' }))).toBe(
      '<tool_use_error>Cell type is required when using edit_mode=insert.</tool_use_error>',
    );
    await edit({ edit_mode: 'insert', cell_type: 'markdown', new_source: 'First' });
    expect((await onDisk()).cells[0]).toMatchObject({ cell_type: 'markdown', source: 'First', metadata: {} });
    expect((await onDisk()).cells[0]).not.toHaveProperty('outputs');
  });

  test('NotebookEdit: errors in Claude Code words: unknown cell, not a notebook, no cell_id, changed since Read', async () => {
    await s.run('Read', { file_path: nbPath });
    expect(text(await edit({ cell_id: 'nope', new_source: 'x' }))).toBe(
      '<tool_use_error>Cell with ID "nope" not found in notebook.</tool_use_error>',
    );
    expect(text(await edit({ new_source: 'x' }))).toBe(
      '<tool_use_error>Cell ID must be specified when not inserting a new cell.</tool_use_error>',
    );
    const md = await s.write('README.md', '# x\n');
    const notNb = await executeTool(
      'NotebookEdit',
      { notebook_path: md, cell_id: 'a', new_source: 'x' },
      s.ctx,
      ALL_BUILTIN_TOOLS,
    );
    expect(text(notNb)).toBe(
      '<tool_use_error>File must be a Jupyter notebook (.ipynb file). For editing other file types, use the FileEdit tool.</tool_use_error>',
    );
    await fsp.writeFile(nbPath, JSON.stringify(NOTEBOOK));
    expect(text(await edit({ cell_id: 'calc', new_source: 'x' }))).toContain(
      'File has been modified since it was read',
    );
  });

  test('NotebookEdit: a cell without an id is named cell-N, as Read shows it', async () => {
    const nb = {
      ...NOTEBOOK,
      nbformat_minor: 4,
      cells: NOTEBOOK.cells.map((c) => Object.fromEntries(Object.entries(c).filter(([k]) => k !== 'id'))),
    };
    await fsp.writeFile(nbPath, JSON.stringify(nb));
    await s.run('Read', { file_path: nbPath });
    expect(text(await edit({ cell_id: 'cell-1', new_source: 'y = 1' }))).toBe('Updated cell cell-1 with y = 1');
    expect((await onDisk()).cells[1]!.source).toBe('y = 1');
    // nbformat 4.4 has no cell ids: an inserted cell gets none.
    await edit({ cell_id: 'cell-0', edit_mode: 'insert', cell_type: 'code', new_source: 'z' });
    expect((await onDisk()).cells[1]).not.toHaveProperty('id');
  });

  test('executeTool: AskUserQuestion and ExitPlanMode are disabled in Claude Code words (no one can answer them)', async () => {
    for (const name of ['AskUserQuestion', 'ExitPlanMode']) {
      expect(text(await executeTool(name, {}, s.ctx))).toBe(
        `<tool_use_error>Error: No such tool available: ${name}. ${name} is disabled for this session, in subagents as well as here.</tool_use_error>`,
      );
    }
  });

  test('NotebookEdit: without the opt-in table it is not a tool (a turn that does not offer it)', async () => {
    const out = await executeTool('NotebookEdit', { notebook_path: nbPath, cell_id: 'calc', new_source: 'x' }, s.ctx);
    expect(text(out)).toBe('<tool_use_error>Error: No such tool available: NotebookEdit</tool_use_error>');
  });

  test("toolsForModel: NotebookEdit has Claude Code's input schema", () => {
    const [spec] = toolsForModel(['NotebookEdit']);
    const schema = spec!.input_schema as unknown as {
      properties: Record<string, { type: string; enum?: string[] }>;
      required: string[];
    };
    expect(Object.keys(schema.properties)).toEqual([
      'notebook_path',
      'cell_id',
      'new_source',
      'cell_type',
      'edit_mode',
    ]);
    expect(schema.required).toEqual(['notebook_path', 'new_source']);
    expect(schema.properties['cell_type']!.enum).toEqual(['code', 'markdown']);
    expect(schema.properties['edit_mode']!.enum).toEqual(['replace', 'insert', 'delete']);
  });
});
