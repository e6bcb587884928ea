/**
 * Structured output (`--json-schema`, the Agent SDK's `outputFormat`): names and texts shared by
 * the turn workflow, the activities and the client. Pure constants and string builders only.
 *
 * The model returns its answer by calling the `StructuredOutput` tool, whose input schema is the
 * caller's JSON Schema; the schema itself is content and lives in the transcript store (a content
 * blob under `json-schema/<sha256>`), referred to by its key.
 */

/** Name of the tool the model calls to return structured output (Claude Code's name). */
export const STRUCTURED_OUTPUT_TOOL = 'StructuredOutput';

/** Prefix of the content keys of stored JSON Schemas (`json-schema/<sha256 of the JSON>`). */
export const JSON_SCHEMA_KEY_PREFIX = 'json-schema/';

/**
 * Attempts per turn before the turn ends with `error_max_structured_output_retries` (Claude
 * Code's default). A failed StructuredOutput call and a text answer without it each count as one.
 */
export const DEFAULT_MAX_STRUCTURED_OUTPUT_RETRIES = 5;

/** Description of the StructuredOutput tool (Claude Code's words). */
export const STRUCTURED_OUTPUT_DESCRIPTION =
  'Use this tool to return your final response in the requested structured format. You MUST call this tool ' +
  'exactly once at the end of your response to provide the structured output.';

/** tool_result of a valid StructuredOutput call (Claude Code's words). */
export const STRUCTURED_OUTPUT_SUCCESS_TEXT = 'Structured output provided successfully';

/** Prefix of the tool_result of an invalid call (Claude Code's words); the violations follow. */
export const STRUCTURED_OUTPUT_MISMATCH_PREFIX = 'Output does not match required schema: ';

/** The nudge sent when the model answers with text instead of calling the tool (Claude Code's words). */
export const STRUCTURED_OUTPUT_NUDGE =
  `[structured-output-enforce] You MUST call the ${STRUCTURED_OUTPUT_TOOL} tool to complete this request. ` +
  'Call this tool now.';

/** Most characters of a validation error carried in workflow state (the whole text is in the store). */
export const MAX_STRUCTURED_OUTPUT_ERROR_CHARS = 1000;

/**
 * The `errors` entry of an `error_max_structured_output_retries` result (Claude Code's words),
 * with the last validation error when there was one.
 */
export function structuredOutputRetriesError(attempts: number, lastError: string | null): string {
  const base = `Failed to provide valid structured output after ${attempts} attempts`;
  return lastError ? `${base} \u2014 last ${STRUCTURED_OUTPUT_TOOL} error: ${lastError}` : base;
}

/** Progress of a turn's structured output, kept in workflow state. */
export interface StructuredOutputProgress {
  /** Failed attempts so far in this turn. */
  attempts: number;
  /** The last validation error (at most 1000 characters), or what went wrong instead. */
  lastError: string | null;
  /** Tool_result line of the valid call, once there is one. */
  resultUuid: string | null;
}
