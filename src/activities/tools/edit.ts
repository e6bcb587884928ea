/**
 * The `Edit` tool: exact string replacement in a file the model has read.
 */
import { z } from 'zod';
import { FILE_STATE_CURRENT_NOTE, cwdHint, errorOutput } from './format';
import { checkWritable, loadForModification, resolveToolPath, statOrUndefined, writeTextFile } from './file-state';
import { diffHunks, type PatchHunk } from './patch';
import { refusedWriteAsError } from './safe-write';
import type { ToolContext, ToolDefinition, ToolOutput } from './types';

/** Input of the Edit tool (Claude Code's schema). */
export const EditInputSchema = z.strictObject({
  file_path: z
    .string()
    .describe(
      'Path of the file to change. Prefer an absolute path; a relative one is taken from the working directory.',
    ),
  old_string: z.string().describe('The exact text to find in the file (whitespace and indentation included).'),
  new_string: z.string().describe('The text to put in its place; must differ from old_string.'),
  replace_all: z
    .boolean()
    .optional()
    .describe('Replace every occurrence of old_string instead of requiring exactly one (default false).'),
});
/** Parsed Edit input. */
export type EditInput = z.infer<typeof EditInputSchema>;

/** Structured Edit result (`tool_use_result`), as in Claude Code's output. */
export interface EditStructured {
  filePath: string;
  oldString: string;
  newString: string;
  originalFile: string;
  structuredPatch: PatchHunk[];
  userModified: false;
  replaceAll: boolean;
  /** The file was changed without a Read in the session (an approved call): the model has not seen it. */
  contentNotInModelContext?: true;
}

const DESCRIPTION = [
  'Replaces an exact piece of text in a file.',
  'You must Read the file in this session before editing it, and the edit is refused if the file changed since that Read.',
  'old_string must match the file exactly, including indentation and line breaks; copy it from the Read output without the line-number-and-tab prefix.',
  'By default old_string must occur exactly once: include enough surrounding lines to make it unique, or set replace_all to true to change every occurrence (handy for renames).',
  'An empty old_string creates a new file containing new_string.',
  'Prefer absolute paths, and prefer Edit over Write for changes to existing files.',
].join(' ');

/** Number of non-overlapping occurrences of `needle` (non-empty) in `haystack`. */
export function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  let pos = haystack.indexOf(needle);
  while (pos !== -1) {
    count += 1;
    pos = haystack.indexOf(needle, pos + needle.length);
  }
  return count;
}

/** Replaces the first (or every) occurrence literally, without `$` pattern expansion. */
function replaceLiteral(text: string, oldS: string, newS: string, all: boolean): string {
  if (all) return text.split(oldS).join(newS);
  const i = text.indexOf(oldS);
  return i === -1 ? text : text.slice(0, i) + newS + text.slice(i + oldS.length);
}

function success(
  abs: string,
  message: string,
  structured: EditStructured,
  state: Awaited<ReturnType<typeof writeTextFile>>,
): ToolOutput {
  return { content: message, isError: false, structured, fileState: { path: abs, state } };
}

async function runEdit(input: EditInput, ctx: ToolContext): Promise<ToolOutput> {
  const abs = resolveToolPath(ctx.cwd, input.file_path);
  const replaceAll = input.replace_all ?? false;
  if (input.old_string === input.new_string) {
    return errorOutput('No changes to make: old_string and new_string are exactly the same.');
  }
  const st = await statOrUndefined(abs);

  if (!st) {
    if (input.old_string !== '') return errorOutput(`File does not exist. ${cwdHint(ctx.cwd)}`);
    const state = await writeTextFile(abs, input.new_string, ctx);
    return success(
      abs,
      `The file ${abs} has been updated successfully. ${FILE_STATE_CURRENT_NOTE}`,
      {
        filePath: abs,
        oldString: '',
        newString: input.new_string,
        originalFile: '',
        structuredPatch: diffHunks(abs, '', input.new_string),
        userModified: false,
        replaceAll,
      },
      state,
    );
  }

  const loaded = await loadForModification(abs, st);
  if ('error' in loaded) return errorOutput(loaded.error);
  const refusal = checkWritable(abs, loaded.state, ctx, { unreadAllowed: ctx.approved === true });
  if (refusal) return errorOutput(refusal);
  const original = loaded.text;
  if (!Buffer.from(original, 'utf8').equals(loaded.bytes)) {
    return errorOutput(
      `${abs} is not valid UTF-8 text (it may be binary or use another encoding), so Edit would corrupt it. Change it with Bash instead.`,
    );
  }

  let oldS = input.old_string;
  let newS = input.new_string;
  if (oldS === '') {
    if (original !== '') {
      return errorOutput(
        'old_string is empty, which only works to create a new file (or fill an empty one), but this file already has content. Put the text to replace in old_string, or use Write to replace the whole file.',
      );
    }
  } else {
    let count = countOccurrences(original, oldS);
    if (count === 0 && original.includes('\r\n') && /(?<!\r)\n/.test(oldS)) {
      // The file uses CRLF line endings; the model usually sends LF.
      const crlfOld = oldS.replace(/\r?\n/g, '\r\n');
      const crlfCount = countOccurrences(original, crlfOld);
      if (crlfCount > 0) {
        oldS = crlfOld;
        newS = newS.replace(/\r?\n/g, '\r\n');
        count = crlfCount;
      }
    }
    if (count === 0) {
      return errorOutput(`String to replace not found in file.\nString: ${input.old_string}`);
    }
    if (count > 1 && !replaceAll) {
      return errorOutput(
        `Found ${count} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: ${input.old_string}`,
      );
    }
  }

  const updated = oldS === '' ? newS : replaceLiteral(original, oldS, newS, replaceAll);
  const state = await writeTextFile(abs, updated, ctx);
  // Claude Code's wording, including its shorter first sentence for replace_all; the note that the
  // model's view is current only when it had one (a Read), as in 2.1.328.
  const unread = !ctx.readState(abs);
  const note = unread ? '' : ` ${FILE_STATE_CURRENT_NOTE}`;
  const message = replaceAll
    ? `The file ${abs} has been updated. All occurrences were successfully replaced.${note}`
    : `The file ${abs} has been updated successfully.${note}`;
  return success(
    abs,
    message,
    {
      filePath: abs,
      oldString: input.old_string,
      newString: input.new_string,
      originalFile: original,
      structuredPatch: diffHunks(abs, original, updated),
      userModified: false,
      replaceAll,
      ...(unread ? { contentNotInModelContext: true as const } : {}),
    },
    state,
  );
}

/** The built-in `Edit` tool. */
export const EditTool: ToolDefinition<EditInput> = {
  name: 'Edit',
  description: DESCRIPTION,
  inputSchema: EditInputSchema,
  readOnly: false,
  idempotent: false,
  run: (input, ctx) => refusedWriteAsError(runEdit(input, ctx)),
};
