/**
 * The StructuredOutput tool on the activity side: the tool offered to the model (its input
 * schema is the caller's JSON Schema, read from the transcript store by uuid) and the check of
 * each call. A valid call's object is kept on its tool_result line (`structuredOutput`), where
 * the client reads it for `result.structured_output`.
 */
import { ApplicationFailure } from '@temporalio/common';
import { ModelErrorType } from '../common/model';
import {
  JSON_SCHEMA_SUBTYPE,
  STRUCTURED_OUTPUT_DESCRIPTION,
  STRUCTURED_OUTPUT_MISMATCH_PREFIX,
  STRUCTURED_OUTPUT_SUCCESS_TEXT,
  STRUCTURED_OUTPUT_TOOL,
} from '../common/structured-output';
import type { TranscriptStore } from '../store/transcript-store';
import type { CompiledJsonSchema } from './tools/json-schema';
import { compileJsonSchema, JsonSchemaError } from './tools/json-schema';
import type { ModelToolSpec } from './tools/registry';
import type { ToolOutput } from './tools/types';

/** A schema read from the store, with its compiled validator. */
export interface StoredJsonSchema {
  schema: Record<string, unknown>;
  compiled: CompiledJsonSchema;
}

/** Schemas compiled in this process, by line uuid (the uuid is derived from the schema's content). */
const compiledByUuid = new Map<string, StoredJsonSchema>();
const MAX_CACHED_SCHEMAS = 100;

/**
 * The JSON Schema stored on line `uuid` of the session, compiled (cached per process).
 * @throws ApplicationFailure `TranscriptError` (non-retryable) when the line is missing or holds
 *   no usable schema: the turn cannot offer the tool it was asked to.
 */
export async function loadJsonSchema(
  store: TranscriptStore,
  sessionId: string,
  uuid: string,
): Promise<StoredJsonSchema> {
  const cached = compiledByUuid.get(uuid);
  if (cached) return cached;
  const line = await store.get(sessionId, uuid);
  const schema = (line as Record<string, unknown> | undefined)?.['jsonSchema'];
  if (!line || line.type !== 'system' || line.subtype !== JSON_SCHEMA_SUBTYPE || schema === undefined) {
    throw ApplicationFailure.create({
      type: ModelErrorType.Transcript,
      nonRetryable: true,
      message: `session ${sessionId} has no JSON Schema line ${uuid} (structured output cannot be offered)`,
    });
  }
  let compiled: CompiledJsonSchema;
  try {
    compiled = compileJsonSchema(schema);
  } catch (err) {
    if (!(err instanceof JsonSchemaError)) throw err;
    throw ApplicationFailure.create({
      type: ModelErrorType.Transcript,
      nonRetryable: true,
      message: `the JSON Schema on line ${uuid} is not usable: ${err.message}`,
    });
  }
  const stored = { schema: schema as Record<string, unknown>, compiled };
  if (compiledByUuid.size >= MAX_CACHED_SCHEMAS) {
    const oldest = compiledByUuid.keys().next().value;
    if (oldest !== undefined) compiledByUuid.delete(oldest);
  }
  compiledByUuid.set(uuid, stored);
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
  input: { sessionId: string; jsonSchemaUuid?: string },
): Promise<ModelToolSpec[]> {
  if (input.jsonSchemaUuid === undefined) return [];
  const { schema } = await loadJsonSchema(store, input.sessionId, input.jsonSchemaUuid);
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
