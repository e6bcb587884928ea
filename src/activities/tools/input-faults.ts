/**
 * Checks of a built-in tool's input that its schema cannot express and that the operating system
 * would otherwise reject with an exception: a NUL byte in a path, a pattern or a command. Such an
 * input can never succeed, so the model is told at once (an `is_error` tool_result), before the
 * permission check or the tool touch the file system.
 */
import { toolUseError } from './format';
import type { ToolOutput } from './types';

/**
 * Control characters a Bash command may not hold, as Claude Code 2.1.328 refuses them (the
 * `nul-bytes` conformance scenario): C0 controls but tab and newline, DEL, and C1 controls; they
 * would hide part of the command from whoever reads it. Tab and other Unicode pass.
 */
export const HIDDEN_CONTROL_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Claude Code's words for a Bash command with {@link HIDDEN_CONTROL_CHARS} (a zod `custom` issue on `command`). */
export const BASH_CONTROL_CHARS_MESSAGE =
  'command contains control characters that would be hidden in the approval dialog';

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
  // Bash: every hidden control character of its command, NUL included (HIDDEN_CONTROL_CHARS).
};

/**
 * What the model is told about a NUL byte in a field, in Claude Code's words (2.1.328, the
 * `nul-bytes` conformance scenario): `Write file_path cannot contain null bytes (\0). Remove the
 * null byte and try again.`
 */
export function nulByteMessage(toolName: string, field: string): string {
  return `${toolName} ${field} cannot contain null bytes (\\0). Remove the null byte and try again.`;
}

/**
 * The input fault of one call ({@link nulByteMessage}), or undefined when there is none (also for
 * tools without checked fields, and for fields that are not strings: the schema reports those).
 */
export function inputFaultOf(toolName: string, input: unknown): string | undefined {
  if (input === null || typeof input !== 'object') return undefined;
  const command = (input as Record<string, unknown>)['command'];
  if (toolName === 'Bash' && typeof command === 'string' && HIDDEN_CONTROL_CHARS.test(command)) {
    return `InputValidationError: ${JSON.stringify([{ code: 'custom', path: ['command'], message: BASH_CONTROL_CHARS_MESSAGE }], null, 2)}`;
  }
  const fields = NUL_CHECKED_FIELDS[toolName];
  if (!fields) return undefined;
  for (const field of fields) {
    const value = (input as Record<string, unknown>)[field];
    if (typeof value === 'string' && value.includes('\0')) return nulByteMessage(toolName, field);
  }
  return undefined;
}

/** The tool_result of a call with an input fault (see {@link inputFaultOf}); `outcome: 'invalid'`. */
export function inputFaultOutput(fault: string): ToolOutput & { outcome: 'invalid' } {
  const structured = fault.startsWith('InputValidationError:') ? fault : `Error: ${fault}`;
  return { content: toolUseError(fault), isError: true, structured, outcome: 'invalid' };
}
