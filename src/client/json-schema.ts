/**
 * The caller's side of structured output: reading `--json-schema` (JSON text or a file), checking
 * that the schema is usable, and storing it in the transcript store (a content blob) so that
 * workflow history only carries its key.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { JSON_SCHEMA_KEY_PREFIX } from '../common/structured-output';
import { compileJsonSchema, JsonSchemaError } from '../validation/json-schema';
import type { TranscriptStore } from '../store/transcript-store';
import { AgentRunnerError } from '../common/errors';

/** Thrown for a `--json-schema` value that cannot be used; the message names the flag and the problem. */
export class JsonSchemaOptionError extends AgentRunnerError {
  override readonly name = 'JsonSchemaOptionError';
  readonly kind = 'usage';
}

/**
 * Checks a JSON Schema for use as structured output (an object schema ajv accepts).
 * @throws JsonSchemaOptionError naming `flag` and what is wrong
 */
export function checkJsonSchema(schema: unknown, flag = '--json-schema'): Record<string, unknown> {
  try {
    compileJsonSchema(schema);
  } catch (err) {
    if (err instanceof JsonSchemaError) {
      throw new JsonSchemaOptionError(`${flag} is not a valid JSON Schema: ${err.message}`);
    }
    throw err;
  }
  return schema as Record<string, unknown>;
}

/**
 * Reads the value of `--json-schema`: JSON text (what `claude -p` and the Agent SDK's
 * `outputFormat` pass) or, when it does not start with `{`, the path of a JSON file (relative to
 * `cwd`). The schema is checked with {@link checkJsonSchema}.
 * @throws JsonSchemaOptionError for text that is not JSON, a file that does not exist or is not
 *   JSON, or a schema that is not usable
 */
export function readJsonSchemaOption(value: string, cwd: string, flag = '--json-schema'): Record<string, unknown> {
  const text = value.trim();
  let json: string;
  let source: string;
  if (text.startsWith('{') || text.startsWith('[')) {
    json = text;
    source = flag;
  } else {
    const path = resolve(cwd, text);
    if (text === '' || !existsSync(path)) {
      throw new JsonSchemaOptionError(`${flag}: no schema file ${path} (give the schema as JSON text or a file path)`);
    }
    if (!statSync(path).isFile()) throw new JsonSchemaOptionError(`${flag}: ${path} is not a file`);
    json = readFileSync(path, 'utf8');
    source = `${flag} file ${path}`;
  }
  let schema: unknown;
  try {
    schema = JSON.parse(json);
  } catch (err) {
    throw new JsonSchemaOptionError(`${source} is not valid JSON: ${(err as Error).message}`);
  }
  return checkJsonSchema(schema, source);
}

/** Content key of a schema: derived from its JSON, so one schema is stored once per session. */
export function jsonSchemaKey(schema: Record<string, unknown>): string {
  return `${JSON_SCHEMA_KEY_PREFIX}${createHash('sha256').update(JSON.stringify(schema)).digest('hex')}`;
}

/**
 * Stores `schema` with the session's content (storing it again is a no-op) and returns the key
 * that turn options carry (`TurnOptions.jsonSchemaKey`).
 * @throws JsonSchemaOptionError when the schema is not usable
 */
export async function storeJsonSchema(
  store: TranscriptStore,
  sessionId: string,
  schema: Record<string, unknown>,
): Promise<string> {
  checkJsonSchema(schema, 'jsonSchema');
  const key = jsonSchemaKey(schema);
  await store.putContent(sessionId, key, JSON.stringify(schema));
  return key;
}
