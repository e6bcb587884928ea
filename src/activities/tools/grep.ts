/**
 * The `Grep` tool: regular-expression search over file contents, written in JavaScript
 * (ripgrep is not assumed to be installed). Output formats follow ripgrep's as Claude Code
 * shows them: `path:line:text` for matches, `path-line-text` for context, `--` between groups,
 * paths relative to the working directory, no path when the search is of a single file.
 */
import { promises as fsp } from 'node:fs';
import { z } from 'zod';
import { cwdHint, errorOutput, formatBytes, plainErrorOutput } from './format';
import { displayPath, resolveOptionalPath, statOrUndefined } from './file-state';
import { VCS_DIRECTORY_NAMES, anyDepth, sortByMtimeDesc, walkFiles, type WalkEntry } from './file-walk';
import { GREP_FILE_TYPES, fileTypeMatcher } from './grep-types';
import { throttledHeartbeat, throwIfAborted } from './progress';
import { BINARY_SNIFF_BYTES, looksBinary } from './read';
import type { ToolContext, ToolDefinition, ToolOutput } from './types';

/** Output lines/entries returned when `head_limit` is not given (0 means no limit). */
export const GREP_DEFAULT_HEAD_LIMIT = 250;
/** Files larger than this are not searched. */
export const GREP_MAX_FILE_BYTES = 32 * 1024 * 1024;
/**
 * Matched or context lines longer than this (UTF-16 code units, as Claude Code measures them)
 * are replaced in content mode, as ripgrep's `--max-columns 500` does for Claude Code.
 */
export const GREP_MAX_LINE_CHARS = 500;
/** What a matching line over {@link GREP_MAX_LINE_CHARS} shows instead (ripgrep's words). */
export const GREP_OMITTED_MATCH_LINE = '[Omitted long matching line]';
/** What a context line over {@link GREP_MAX_LINE_CHARS} shows instead. */
export const GREP_OMITTED_CONTEXT_LINE = '[Omitted long context line]';

/** A line of content output: itself, or ripgrep's note when it is too long to show. */
export function grepLineText(line: string, isMatch: boolean): string {
  if (line.length <= GREP_MAX_LINE_CHARS) return line;
  return isMatch ? GREP_OMITTED_MATCH_LINE : GREP_OMITTED_CONTEXT_LINE;
}

/** A count input: a JSON number, as in Claude Code's schema (fractions are rounded down). */
const count = z.number().min(0);

/** Input of the Grep tool (Claude Code's schema). */
export const GrepInputSchema = z.strictObject({
  pattern: z.string().describe('Regular expression to search for (JavaScript RegExp syntax), e.g. "function\\s+\\w+".'),
  path: z.string().optional().describe('File or directory to search (default: the working directory).'),
  glob: z
    .string()
    .optional()
    .describe(
      'Only search files whose names match this glob, e.g. "*.js" or "*.{ts,tsx}"; several globs may be separated by spaces or commas, and a leading "!" excludes.',
    ),
  type: z.string().optional().describe('Only search files of this type, e.g. js, ts, py, go, rust, java, json, md.'),
  output_mode: z
    .enum(['content', 'files_with_matches', 'count'])
    .optional()
    .describe(
      '"files_with_matches" (default) lists matching files; "content" shows matching lines; "count" shows match counts per file.',
    ),
  '-i': z.boolean().optional().describe('Case-insensitive search.'),
  '-n': z.boolean().optional().describe('Show line numbers in content mode (default true).'),
  '-o': z
    .boolean()
    .optional()
    .describe('Content mode: print each match on its own line instead of the whole matching line.'),
  '-B': count.optional().describe('Lines of context to show before each match (content mode).'),
  '-A': count.optional().describe('Lines of context to show after each match (content mode).'),
  '-C': count.optional().describe('Lines of context to show before and after each match (content mode).'),
  context: count.optional().describe('Same as -C.'),
  head_limit: count
    .optional()
    .describe(
      `Return at most this many output lines (content mode) or entries (other modes); default ${GREP_DEFAULT_HEAD_LIMIT}, 0 for no limit.`,
    ),
  offset: count.optional().describe('Skip this many output lines or entries first (for paging with head_limit).'),
  multiline: z
    .boolean()
    .optional()
    .describe(
      'Let the pattern span lines ("." also matches newlines). Default false: each line is matched on its own.',
    ),
});
/** Parsed Grep input. */
export type GrepInput = z.infer<typeof GrepInputSchema>;

/** Output mode of Grep. */
export type GrepMode = 'content' | 'files_with_matches' | 'count';

/** Structured Grep result (`tool_use_result`). */
export interface GrepStructured {
  mode: GrepMode;
  numFiles: number;
  filenames: string[];
  content?: string;
  numLines?: number;
  totalLines?: number;
  totalFiles?: number;
  numMatches?: number;
  appliedLimit?: number;
  appliedOffset?: number;
}

const DESCRIPTION = [
  'Searches file contents with a regular expression (JavaScript RegExp syntax) under a file or directory, skipping binary files, version-control directories and files that .gitignore, .ignore or .rgignore ignore (hidden files are searched).',
  'Narrow the files with glob (e.g. "*.ts", "src/**/*.py") or type (e.g. "js", "py", "rust").',
  'output_mode "files_with_matches" (the default) lists matching files, most recently modified first; "content" shows matching lines as path:line:text, with optional context (-A, -B, -C) and case-insensitivity (-i); "count" shows how many matching lines each file has.',
  'Each line is matched separately unless multiline is true. Escape regex special characters to search for them literally (e.g. "interface\\{\\}").',
  `Results are capped at ${GREP_DEFAULT_HEAD_LIMIT} lines or entries unless head_limit says otherwise; page with offset.`,
  'Use Grep rather than running grep or rg through Bash.',
].join(' ');

/** Splits the `glob` input into patterns at spaces/commas that are not inside braces. */
export function splitGlobs(spec: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of spec) {
    if (ch === '{') depth += 1;
    if (ch === '}') depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === ',' || /\s/.test(ch))) {
      if (cur) out.push(cur);
      cur = '';
    } else {
      cur += ch;
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** Builds the search RegExp; a leading `(?i)` (ripgrep syntax) becomes the `i` flag. */
export function buildGrepRegExp(pattern: string, ignoreCase: boolean, multiline: boolean): RegExp {
  let source = pattern;
  let icase = ignoreCase;
  if (source.startsWith('(?i)')) {
    source = source.slice(4);
    icase = true;
  }
  const flags = `g${icase ? 'i' : ''}${multiline ? 'ms' : ''}`;
  return new RegExp(source, flags);
}

/** Matches found in one file: 0-based matching line indexes and the match count. */
interface FileMatches {
  lines: string[];
  matchLines: number[];
  matchCount: number;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

function findMatches(text: string, re: RegExp, multiline: boolean, firstOnly: boolean): FileMatches {
  const lines = splitLines(text);
  const matchLines: number[] = [];
  let matchCount = 0;
  if (!multiline) {
    for (let i = 0; i < lines.length; i++) {
      re.lastIndex = 0;
      if (re.test(lines[i] ?? '')) {
        matchLines.push(i);
        matchCount += 1;
        if (firstOnly) break;
      }
    }
    return { lines, matchLines, matchCount };
  }
  // Multiline: match against the whole text, then map offsets to lines.
  const starts: number[] = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const lineOf = (offset: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const seen = new Set<number>();
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    matchCount += 1;
    const first = lineOf(m.index);
    const last = lineOf(Math.max(m.index, m.index + m[0].length - 1));
    for (let l = first; l <= last && l < lines.length; l++) seen.add(l);
    if (m[0].length === 0) re.lastIndex += 1;
    if (firstOnly) break;
  }
  matchLines.push(...[...seen].sort((a, b) => a - b));
  return { lines, matchLines, matchCount };
}

/** Output lines of `-o` for one file: each match on its own line (no context). */
function onlyMatchingLines(prefix: string, fm: FileMatches, re: RegExp, showNumbers: boolean): string[] {
  const out: string[] = [];
  for (const i of fm.matchLines) {
    const line = fm.lines[i] ?? '';
    re.lastIndex = 0;
    for (let m = re.exec(line); m !== null; m = re.exec(line)) {
      if (m[0].length === 0) {
        re.lastIndex += 1;
        continue;
      }
      const text = grepLineText(m[0], true);
      out.push(showNumbers ? `${prefix}${i + 1}:${text}` : `${prefix}${text}`);
    }
  }
  return out;
}

/**
 * A run of output lines, formatted only when shown: a search can match millions of lines of which
 * `head_limit` are shown, and building every line first costs seconds and memory.
 */
interface LineRun {
  length: number;
  line(k: number): string;
}

/**
 * Output runs for one file in content mode: one per group of matches with their context (groups
 * are separated by `--` when context is asked for). `file` is the shown path (its separator is
 * added per line: `path:`/`path-`), or '' for a single file.
 */
function contentRuns(file: string, fm: FileMatches, before: number, after: number, showNumbers: boolean): LineRun[] {
  const isMatch = new Uint8Array(fm.lines.length);
  for (const m of fm.matchLines) isMatch[m] = 1;
  const format = (i: number): string => {
    const sep = isMatch[i] === 1 ? ':' : '-';
    const text = grepLineText(fm.lines[i] ?? '', isMatch[i] === 1);
    const head = file === '' ? '' : `${file}${sep}`;
    return showNumbers ? `${head}${i + 1}${sep}${text}` : `${head}${text}`;
  };
  // Line ranges [from, to]: a match's context that touches or overlaps the previous one joins it.
  const ranges: Array<[number, number]> = [];
  for (const m of fm.matchLines) {
    const from = Math.max(0, m - before);
    const to = Math.min(fm.lines.length - 1, m + after);
    const last = ranges[ranges.length - 1];
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else ranges.push([from, to]);
  }
  return ranges.map(([from, to]) => ({ length: to - from + 1, line: (k) => format(from + k) }));
}

/** The lines of `runs` in [offset, offset + limit) (limit 0: to the end), and how many there are in all. */
function pageRuns(runs: LineRun[], offset: number, limit: number): { shown: string[]; total: number; cut: boolean } {
  let total = 0;
  for (const r of runs) total += r.length;
  const end = limit === 0 ? total : Math.min(total, offset + limit);
  const shown: string[] = [];
  let pos = 0;
  for (const r of runs) {
    if (pos >= end) break;
    for (let k = Math.max(0, offset - pos); k < r.length && pos + k < end; k++) shown.push(r.line(k));
    pos += r.length;
  }
  return { shown, total, cut: limit !== 0 && total - offset > limit };
}

/** Applies offset and head limit; says whether anything was cut after the window. */
function page<T>(items: T[], offset: number, limit: number): { shown: T[]; cut: boolean } {
  const rest = items.slice(offset);
  if (limit === 0 || rest.length <= limit) return { shown: rest, cut: false };
  return { shown: rest.slice(0, limit), cut: true };
}

async function candidateFiles(
  base: string,
  isFile: boolean,
  input: GrepInput,
  ctx: ToolContext,
): Promise<WalkEntry[] | { error: string }> {
  if (isFile) {
    const st = await fsp.stat(base);
    return [{ path: base, mtimeMs: st.mtimeMs, size: st.size }];
  }
  const globs = input.glob === undefined ? [] : splitGlobs(input.glob);
  const include = globs.filter((g) => !g.startsWith('!')).map(anyDepth);
  const exclude = globs.filter((g) => g.startsWith('!')).map((g) => anyDepth(g.slice(1)));
  // As ripgrep's defaults, which Claude Code's Grep keeps: ignore files honoured, hidden files
  // searched, version-control directories left out.
  let entries = await walkFiles(
    include.length > 0 ? include : ['**/*'],
    { cwd: base, ignore: exclude, ignoreFiles: true, skipNames: VCS_DIRECTORY_NAMES },
    ctx,
  );
  if (input.type !== undefined) {
    const matcher = fileTypeMatcher(input.type);
    if (!matcher) {
      return {
        error: `Unknown file type "${input.type}". Known types: ${Object.keys(GREP_FILE_TYPES).join(', ')}. Use glob for other files.`,
      };
    }
    entries = entries.filter((e) => matcher(e.path));
  }
  return entries;
}

async function runGrep(input: GrepInput, ctx: ToolContext): Promise<ToolOutput> {
  const mode: GrepMode = input.output_mode ?? 'files_with_matches';
  const multiline = input.multiline ?? false;
  let re: RegExp;
  try {
    re = buildGrepRegExp(input.pattern, input['-i'] ?? false, multiline);
  } catch (err) {
    return errorOutput(`Invalid regular expression: ${(err as Error).message}`);
  }
  const base = resolveOptionalPath(ctx.cwd, input.path);
  const st = await statOrUndefined(base);
  // As Claude Code: the message as is, without <tool_use_error> tags.
  if (!st) return plainErrorOutput(`Path does not exist: ${base}. ${cwdHint(ctx.cwd)}`);

  const candidates = await candidateFiles(base, !st.isDirectory(), input, ctx);
  if ('error' in candidates) return errorOutput(candidates.error);
  if (mode === 'files_with_matches') sortByMtimeDesc(candidates);
  else candidates.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  const whole = (n: number | undefined): number | undefined => (n === undefined ? undefined : Math.floor(n));
  const before = whole(input['-B'] ?? input['-C'] ?? input.context) ?? 0;
  const after = whole(input['-A'] ?? input['-C'] ?? input.context) ?? 0;
  const showNumbers = input['-n'] ?? true;
  const onlyMatching = input['-o'] ?? false;
  const offset = whole(input.offset) ?? 0;
  const limit = whole(input.head_limit) ?? GREP_DEFAULT_HEAD_LIMIT;
  const singleFile = !st.isDirectory();
  const beat = throttledHeartbeat(ctx);

  const matchedFiles: string[] = [];
  const countLines: string[] = [];
  const groups: LineRun[] = [];
  let totalMatches = 0;
  let skippedLarge = 0;
  for (const entry of candidates) {
    beat();
    throwIfAborted(ctx.signal, 'Grep');
    if (entry.size > GREP_MAX_FILE_BYTES) {
      skippedLarge += 1;
      continue;
    }
    let bytes: Buffer;
    try {
      bytes = await fsp.readFile(entry.path);
    } catch {
      continue; // vanished or unreadable: skip it like ripgrep does
    }
    if (looksBinary(bytes.subarray(0, BINARY_SNIFF_BYTES))) continue;
    const fm = findMatches(bytes.toString('utf8'), re, multiline, mode === 'files_with_matches');
    if (fm.matchCount === 0) continue;
    const shown = displayPath(ctx.cwd, entry.path);
    matchedFiles.push(shown);
    totalMatches += fm.matchCount;
    if (mode === 'count') countLines.push(`${shown}:${fm.matchCount}`);
    if (mode === 'content') {
      // Like ripgrep, a search of one file shows no path.
      const prefix = singleFile ? '' : shown;
      if (onlyMatching) {
        const lines = onlyMatchingLines(prefix === '' ? '' : `${prefix}:`, fm, re, showNumbers);
        groups.push({ length: lines.length, line: (k) => lines[k] ?? '' });
      } else {
        for (const run of contentRuns(prefix, fm, before, after, showNumbers)) groups.push(run);
      }
    }
  }

  const notes: string[] = [];
  if (skippedLarge > 0) {
    notes.push(`(${skippedLarge} file(s) larger than ${formatBytes(GREP_MAX_FILE_BYTES)} were not searched.)`);
  }
  const structured: GrepStructured = { mode, numFiles: matchedFiles.length, filenames: [] };
  // Claude Code's paging note: `limit: N` when head_limit cut the output, `offset: M` when given.
  const paging = (cut: boolean): string => {
    if (cut) structured.appliedLimit = limit;
    if (offset > 0) structured.appliedOffset = offset;
    return [...(cut ? [`limit: ${limit}`] : []), ...(offset > 0 ? [`offset: ${offset}`] : [])].join(', ');
  };
  const finish = (text: string): ToolOutput => ({
    content: [text, ...notes].join('\n\n'),
    isError: false,
    structured,
  });
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

  if (mode === 'files_with_matches') {
    structured.totalFiles = matchedFiles.length;
    if (matchedFiles.length === 0) return finish('No files found');
    const { shown, cut } = page(matchedFiles, offset, limit);
    structured.filenames = shown;
    structured.numFiles = shown.length;
    const note = paging(cut);
    return finish([`Found ${plural(shown.length, 'file')}${note ? ` ${note}` : ''}`, ...shown].join('\n'));
  }

  if (mode === 'count') {
    structured.numMatches = totalMatches;
    const { shown, cut } = page(countLines, offset, limit);
    structured.content = shown.join('\n');
    const note = paging(cut);
    const summary = `Found ${plural(totalMatches, 'total occurrence')} across ${plural(matchedFiles.length, 'file')}.${note ? ` with pagination = ${note}` : ''}`;
    return finish(`${matchedFiles.length === 0 ? 'No matches found' : shown.join('\n')}\n\n${summary}`);
  }

  // content
  structured.numFiles = 0;
  const useSeparators = !onlyMatching && (before > 0 || after > 0);
  const separator: LineRun = { length: 1, line: () => '--' };
  const runs = useSeparators ? groups.flatMap((g, i) => (i > 0 ? [separator, g] : [g])) : groups;
  const { shown, total, cut } = pageRuns(runs, offset, limit);
  structured.content = shown.join('\n');
  structured.numLines = shown.length;
  structured.totalLines = total;
  if (total === 0) return finish('No matches found');
  const note = paging(cut);
  const body = shown.length > 0 ? shown.join('\n') : '';
  return finish(note ? `${body}\n\n[Showing results with pagination = ${note}]` : body);
}

/** The built-in `Grep` tool. */
export const GrepTool: ToolDefinition<GrepInput> = {
  name: 'Grep',
  description: DESCRIPTION,
  inputSchema: GrepInputSchema,
  readOnly: true,
  idempotent: true,
  run: runGrep,
};
