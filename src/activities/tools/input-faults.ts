/**
 * Checks of a built-in tool's input that its schema cannot express and that the operating system
 * would otherwise reject with an exception: a NUL byte in a path, a pattern or a command. Such an
 * input can never succeed, so the model is told at once (an `is_error` tool_result), before the
 * permission check or the tool touch the file system.
 */
import { toolUseError } from './format';
import type { ToolOutput } from './types';

/**
 * The fields of each built-in tool that name a path, a pattern or a command: a NUL byte in any of
 * them makes the system call (open, realpath, spawn) throw. File contents and replacement text
 * (`content`, `old_string`, `new_string`) may hold any character and are not checked.
 */
export const NUL_CHECKED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  Read: ['file_path'],
  Write: ['file_path'],
  Edit: ['file_path'],
  Glob: ['pattern', 'path'],
  Grep: ['pattern', 'path', 'glob', 'type'],
  Bash: ['command'],
};

/**
 * The input fault of one call, or undefined when there is none (also for tools without checked
 * fields, and for fields that are not strings: the schema reports those).
 * The message names the tool and the field, as Claude Code words it:
 * `Write file_path cannot contain null bytes`.
 */
export function inputFaultOf(toolName: string, input: unknown): string | undefined {
  const fields = NUL_CHECKED_FIELDS[toolName];
  if (!fields || input === null || typeof input !== 'object') return undefined;
  for (const field of fields) {
    const value = (input as Record<string, unknown>)[field];
    if (typeof value === 'string' && value.includes('\0')) return `${toolName} ${field} cannot contain null bytes`;
  }
  return undefined;
}

/** The tool_result of a call with an input fault (see {@link inputFaultOf}); `outcome: 'invalid'`. */
export function inputFaultOutput(fault: string): ToolOutput & { outcome: 'invalid' } {
  return { content: toolUseError(fault), isError: true, structured: `Error: ${fault}`, outcome: 'invalid' };
}
