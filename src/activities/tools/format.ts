/**
 * Small text helpers shared by the built-in tools: error wrapping, size formatting and
 * head/tail truncation of long text.
 */
import type { ToolOutput } from './types';

/** Wraps a message the way Claude Code marks tool failures for the model. */
export function toolUseError(message: string): string {
  return `<tool_use_error>${message}</tool_use_error>`;
}

/**
 * A failed tool run whose content is `message` wrapped in `<tool_use_error>` (Claude Code's form
 * for input that fails a tool's checks). `tool_use_result` is `Error: <message>`, as in Claude Code.
 */
export function errorOutput(message: string, structured?: unknown): ToolOutput {
  return { content: toolUseError(message), isError: true, structured: structured ?? `Error: ${message}` };
}

/**
 * A failed tool run whose content is `message` as is (Claude Code's form for a failure while the
 * tool ran: a missing file for Read, a non-zero exit for Bash). `tool_use_result` is `Error: <message>`.
 */
export function plainErrorOutput(message: string): ToolOutput {
  return { content: message, isError: true, structured: `Error: ${message}` };
}

/** Wraps a note to the model the way Claude Code marks harness remarks inside tool results. */
export function systemReminder(text: string): string {
  return `<system-reminder>${text}</system-reminder>`;
}

/** Suffix of a successful Edit or Write: the model's view of the file is up to date. */
export const FILE_STATE_CURRENT_NOTE = '(file state is current in your context — no need to Read it back)';

/** Human-readable byte size: `512 bytes`, `12.3 KB`, `4.0 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}

/** Hint appended to "not found" errors so the model can tell what a relative path meant. */
export function cwdHint(cwd: string): string {
  return `Note: your current working directory is ${cwd}.`;
}

/** Joins kept head and tail of a long text with a marker saying how many characters were cut. */
export function joinHeadTail(head: string, tail: string, cut: number): string {
  if (cut <= 0) return head + tail;
  return `${head}\n\n... [${cut} characters truncated] ...\n\n${tail}`;
}

/** Human-readable duration in ms: `900 ms`, `2.5 s`, `2 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
  const min = Math.floor(ms / 60_000);
  const sec = Math.round((ms % 60_000) / 1000);
  return sec === 0 ? `${min} min` : `${min} min ${sec} s`;
}
