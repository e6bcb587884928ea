/**
 * The `Glob` tool: finds files by name pattern, oldest first (Claude Code's order), as paths
 * relative to the working directory.
 */
import { z } from 'zod';
import { cwdHint, errorOutput, plainErrorOutput } from './format';
import { displayPath, resolveOptionalPath, statOrUndefined } from './file-state';
import { anyDepth, envTruthy, sortByMtimeAsc, walkFiles } from './file-walk';
import type { ToolContext, ToolDefinition, ToolOutput } from './types';

/** Most paths Glob returns. */
export const GLOB_MAX_RESULTS = 100;
/** Line appended when more files matched than were returned. */
export const GLOB_TRUNCATED_NOTE = '(Results are truncated. Consider using a more specific path or pattern.)';

/** Input of the Glob tool (Claude Code's schema). */
export const GlobInputSchema = z.strictObject({
  pattern: z.string().describe('Glob pattern to match file paths against, e.g. "**/*.ts" or "src/**/test_*.py".'),
  path: z
    .string()
    .optional()
    .describe(
      'Directory to search in (default: the working directory). Omit it rather than passing "undefined" or "null".',
    ),
});
/** Parsed Glob input. */
export type GlobInput = z.infer<typeof GlobInputSchema>;

/** Structured Glob result (`tool_use_result`). */
export interface GlobStructured {
  filenames: string[];
  numFiles: number;
  truncated: boolean;
  durationMs: number;
  totalMatches: number;
  countIsComplete: true;
}

const DESCRIPTION = [
  'Finds files whose paths match a glob pattern (such as "**/*.js" or "src/**/*.{ts,tsx}"; a pattern without "/" matches file names at any depth) and returns their paths (relative to the working directory when inside it), least recently modified first.',
  `It lists files only, hidden and git-ignored ones included, and returns at most ${GLOB_MAX_RESULTS} paths.`,
  'Use it to locate files by name; use Grep to search file contents.',
  'Several independent searches can be issued together in one response.',
].join(' ');

async function runGlob(input: GlobInput, ctx: ToolContext): Promise<ToolOutput> {
  const started = Date.now();
  const base = resolveOptionalPath(ctx.cwd, input.path);
  const st = await statOrUndefined(base);
  // As Claude Code: the message as is, without <tool_use_error> tags.
  if (!st) return plainErrorOutput(`Directory does not exist: ${base}. ${cwdHint(ctx.cwd)}`);
  if (!st.isDirectory()) return errorOutput(`Path is not a directory: ${base}`);

  // As Claude Code's Glob (ripgrep's `--files --glob <pattern> --no-ignore --hidden`): every file,
  // ignored and hidden ones too, unless CLAUDE_CODE_GLOB_NO_IGNORE / CLAUDE_CODE_GLOB_HIDDEN say no.
  const env = ctx.env ?? process.env;
  const found = await walkFiles(
    [anyDepth(input.pattern)],
    {
      cwd: base,
      ignoreFiles: !envTruthy(env['CLAUDE_CODE_GLOB_NO_IGNORE'] ?? 'true'),
      hidden: envTruthy(env['CLAUDE_CODE_GLOB_HIDDEN'] ?? 'true'),
    },
    ctx,
  );
  const entries = sortByMtimeAsc(found);
  const truncated = entries.length > GLOB_MAX_RESULTS;
  const filenames = entries.slice(0, GLOB_MAX_RESULTS).map((e) => displayPath(ctx.cwd, e.path));
  const structured: GlobStructured = {
    filenames,
    numFiles: filenames.length,
    truncated,
    durationMs: Date.now() - started,
    totalMatches: entries.length,
    countIsComplete: true,
  };
  if (filenames.length === 0) return { content: 'No files found', isError: false, structured };
  const lines = [...filenames];
  if (truncated) lines.push(GLOB_TRUNCATED_NOTE);
  return { content: lines.join('\n'), isError: false, structured };
}

/** The built-in `Glob` tool. */
export const GlobTool: ToolDefinition<GlobInput> = {
  name: 'Glob',
  description: DESCRIPTION,
  inputSchema: GlobInputSchema,
  readOnly: true,
  idempotent: true,
  run: runGlob,
};
