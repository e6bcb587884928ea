/**
 * The StructuredOutput tool on the activity side: the tool offered to the model (its input
 * schema is the caller's JSON Schema, read from the transcript store by its content key) and the check of
 * each call. A valid call's object is kept on its tool_result line (`structuredOutput`), where
 * the client reads it for `result.structured_output`.
 */
import { ApplicationFailure } from '@temporalio/common';
import { ModelErrorType } from '../common/model';
import {
  STRUCTURED_OUTPUT_DESCRIPTION,
  STRUCTURED_OUTPUT_MISMATCH_PREFIX,
  STRUCTURED_OUTPUT_SUCCESS_TEXT,
  STRUCTURED_OUTPUT_TOOL,
} from '../common/structured-output';
import type { TranscriptStore } from '../store/transcript-store';
import type { CompiledJsonSchema } from '../validation/json-schema';
import { compileJsonSchema, JsonSchemaError } from '../validation/json-schema';
import type { ModelToolSpec } from './tools/registry';
import type { ToolOutput } from './tools/types';

/** A schema read from the store, with its compiled validator. */
export interface StoredJsonSchema {
  schema: Record<string, unknown>;
  compiled: CompiledJsonSchema;
}

/** Schemas compiled in this process, by content key (the key is derived from the schema). */
const compiledByKey = new Map<string, StoredJsonSchema>();
const MAX_CACHED_SCHEMAS = 100;

function unusable(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: ModelErrorType.Transcript, nonRetryable: true, message });
}

/**
 * The JSON Schema stored under `key` with the session's content, compiled (cached per process).
 * @throws ApplicationFailure `TranscriptError` (non-retryable) when it is missing or not a usable
 *   schema: the turn cannot offer the tool it was asked to.
 */
export async function loadJsonSchema(
  store: TranscriptStore,
  sessionId: string,
  key: string,
): Promise<StoredJsonSchema> {
  const cached = compiledByKey.get(key);
  if (cached) return cached;
  const body = await store.getContent(sessionId, key);
  if (!body) throw unusable(`session ${sessionId} has no JSON Schema ${key} (structured output cannot be offered)`);
  let schema: unknown;
  let compiled: CompiledJsonSchema;
  try {
    schema = JSON.parse(body.toString('utf8'));
    compiled = compileJsonSchema(schema);
  } catch (err) {
    if (!(err instanceof JsonSchemaError) && !(err instanceof SyntaxError)) throw err;
    throw unusable(`the JSON Schema ${key} of session ${sessionId} is not usable: ${err.message}`);
  }
  const stored = { schema: schema as Record<string, unknown>, compiled };
  if (compiledByKey.size >= MAX_CACHED_SCHEMAS) {
    const oldest = compiledByKey.keys().next().value;
    if (oldest !== undefined) compiledByKey.delete(oldest);
  }
  compiledByKey.set(key, stored);
  return stored;
}

/** The StructuredOutput tool as sent to the model: the caller's schema is its input schema. */
export function structuredOutputTool(schema: Record<string, unknown>): ModelToolSpec {
  return {
    name: STRUCTURED_OUTPUT_TOOL,
    description: STRUCTURED_OUTPUT_DESCRIPTION,
    input_schema: { ...schema, type: 'object' },
  };
}

/** The tools a call adds for structured output: the StructuredOutput tool when a schema is set. */
export async function structuredOutputTools(
  store: TranscriptStore,
  input: { sessionId: string; jsonSchemaKey?: string },
): Promise<ModelToolSpec[]> {
  if (input.jsonSchemaKey === undefined) return [];
  const { schema } = await loadJsonSchema(store, input.sessionId, input.jsonSchemaKey);
  return [structuredOutputTool(schema)];
}

/** Result of one StructuredOutput call. */
export type StructuredOutputRun = ToolOutput & {
  outcome: 'ok' | 'error';
  /** The validated object (valid calls only). */
  structuredOutput?: unknown;
};

/**
 * Checks one StructuredOutput call. Valid: `Structured output provided successfully`. Invalid: an
 * `is_error` result listing every violation (Claude Code's wording, not wrapped in
 * `<tool_use_error>`), e.g. `Output does not match required schema: root: must have required
 * property 'count', /name: must be string`.
 */
export function runStructuredOutput(compiled: CompiledJsonSchema, toolInput: unknown): StructuredOutputRun {
  const violations = compiled.violations(toolInput);
  if (violations === undefined) {
    return {
      content: STRUCTURED_OUTPUT_SUCCESS_TEXT,
      isError: false,
      structured: STRUCTURED_OUTPUT_SUCCESS_TEXT,
      outcome: 'ok',
      structuredOutput: toolInput,
    };
  }
  const text = `${STRUCTURED_OUTPUT_MISMATCH_PREFIX}${violations}`;
  return { content: text, isError: true, structured: `Error: ${text}`, outcome: 'error' };
}
