/**
 * The `Write` tool: creates a file, or replaces the content of one the model has read.
 */
import { z } from 'zod';
import { FILE_STATE_CURRENT_NOTE, errorOutput } from './format';
import { checkWritable, loadForModification, resolveToolPath, statOrUndefined, writeTextFile } from './file-state';
import { diffHunks, type PatchHunk } from './patch';
import { refusedWriteAsError } from './safe-write';
import type { ToolContext, ToolDefinition, ToolOutput } from './types';

/** Input of the Write tool (Claude Code's schema). */
export const WriteInputSchema = z.strictObject({
  file_path: z
    .string()
    .describe(
      'Path of the file to write. Prefer an absolute path; a relative one is taken from the working directory.',
    ),
  content: z.string().describe('The complete new content of the file.'),
});
/** Parsed Write input. */
export type WriteInput = z.infer<typeof WriteInputSchema>;

/** Structured Write result (`tool_use_result`). */
export interface WriteStructured {
  type: 'create' | 'update';
  filePath: string;
  content: string;
  structuredPatch: PatchHunk[];
  originalFile: string | null;
  userModified: false;
}

const DESCRIPTION = [
  'Writes a file to the local filesystem, replacing it completely if it already exists.',
  'Missing parent directories are created.',
  'To overwrite an existing file you must have Read it first in this session, and it must not have changed since; otherwise the write is refused.',
  'For changes to part of an existing file prefer Edit, which sends only the changed text.',
  'Prefer absolute paths, and do not create documentation or README files unless asked to.',
].join(' ');

async function runWrite(input: WriteInput, ctx: ToolContext): Promise<ToolOutput> {
  const abs = resolveToolPath(ctx.cwd, input.file_path);
  const st = await statOrUndefined(abs);
  let originalFile: string | null = null;
  if (st?.isDirectory()) {
    return errorOutput(
      `${abs} is a directory, not a file. To create a file inside it, include the file name in file_path.`,
    );
  }
  if (st) {
    const loaded = await loadForModification(abs, st);
    if ('error' in loaded) return errorOutput(loaded.error);
    const refusal = checkWritable(abs, loaded.state, ctx, { unreadAllowed: ctx.approved === true });
    if (refusal) return errorOutput(refusal);
    originalFile = loaded.text;
  }
  const state = await writeTextFile(abs, input.content, ctx);
  const structured: WriteStructured = {
    type: originalFile === null ? 'create' : 'update',
    filePath: abs,
    content: input.content,
    structuredPatch: originalFile === null ? [] : diffHunks(abs, originalFile, input.content),
    originalFile,
    userModified: false,
  };
  return {
    content:
      originalFile === null
        ? `File created successfully at: ${abs} ${FILE_STATE_CURRENT_NOTE}`
        : `The file ${abs} has been updated successfully. ${FILE_STATE_CURRENT_NOTE}`,
    isError: false,
    structured,
    fileState: { path: abs, state },
  };
}

/** The built-in `Write` tool. */
export const WriteTool: ToolDefinition<WriteInput> = {
  name: 'Write',
  description: DESCRIPTION,
  inputSchema: WriteInputSchema,
  readOnly: false,
  idempotent: false,
  run: (input, ctx) => refusedWriteAsError(runWrite(input, ctx)),
};
