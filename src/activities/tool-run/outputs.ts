/** The tool_results of calls that do not run (or whose run is unknown), in the model's words. */
import type { ToolOutput } from '../tools/types';
import { toolUseError } from '../tools/format';

/** Text of the tool_result of a non-idempotent tool whose earlier attempt died mid-run. */
export const UNKNOWN_OUTCOME_TEXT =
  '<tool_use_error>The worker running this tool stopped while the tool was running, so its outcome is unknown: ' +
  'it may have completed, partly completed, or not run at all. It was not re-run automatically. ' +
  'Check the current state before running it again.</tool_use_error>';

const MAX_DENIED_INPUT_BYTES = 1024;
/** Bytes of an unparsable tool input quoted back to the model. */
const MAX_QUOTED_INVALID_JSON_BYTES = 500;

/** The tool_result for a tool call whose input is not valid JSON (Claude Code's wording). */
export function invalidJsonOutput(toolName: string, raw: string): ToolOutput & { outcome: 'invalid' } {
  const bytes = Buffer.from(raw, 'utf8');
  const shown = bytes.subarray(0, MAX_QUOTED_INVALID_JSON_BYTES).toString('utf8');
  return {
    content:
      `<tool_use_error>InputValidationError: ${toolName} was called with input that could not be parsed as JSON.\n` +
      `You sent (first ${Math.min(bytes.length, MAX_QUOTED_INVALID_JSON_BYTES)} of ${bytes.length} bytes): ${shown}\n` +
      'Common causes: unescaped backslashes in file paths (use / or \\\\), unescaped control characters, or truncated output. ' +
      'Retry with valid JSON.</tool_use_error>',
    isError: true,
    structured: `InputValidationError: JSON parse failed (${bytes.length} bytes)`,
    outcome: 'invalid',
  };
}

/** A denied call's input as `permission_denials` keep it: cut past {@link MAX_DENIED_INPUT_BYTES}. */
export function truncatedInput(input: unknown): unknown {
  const json = JSON.stringify(input ?? {});
  if (json.length <= MAX_DENIED_INPUT_BYTES) return input ?? {};
  return { truncated: true, json: json.slice(0, MAX_DENIED_INPUT_BYTES) };
}

/** A fault of the call (see tool-faults.ts; `message` from `toolFaultMessage`) as its tool_result: the run goes on to record it. */
export function faultOutput(message: string): ToolOutput & { outcome: 'error' } {
  return { content: toolUseError(message), isError: true, structured: message, outcome: 'error' };
}
