/**
 * Structured diffs for Write and Edit results, in the hunk shape Claude Code reports
 * (`{oldStart, oldLines, newStart, newLines, lines}`).
 */
import { structuredPatch } from 'diff';

/** One hunk of a structured patch. */
export interface PatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** Lines of context around each change. */
const CONTEXT_LINES = 3;
/** Give up diffing (and report no hunks) after this long, so huge rewrites stay cheap. */
const DIFF_TIMEOUT_MS = 2000;

/**
 * Hunks turning `oldText` into `newText`. Returns `[]` when nothing changed, or when the diff
 * takes too long to compute (the hunks are informational only).
 */
export function diffHunks(filePath: string, oldText: string, newText: string): PatchHunk[] {
  if (oldText === newText) return [];
  const patch = structuredPatch(filePath, filePath, oldText, newText, undefined, undefined, {
    context: CONTEXT_LINES,
    timeout: DIFF_TIMEOUT_MS,
  });
  if (!patch) return [];
  return patch.hunks.map((h) => ({
    oldStart: h.oldStart,
    oldLines: h.oldLines,
    newStart: h.newStart,
    newLines: h.newLines,
    lines: [...h.lines],
  }));
}
