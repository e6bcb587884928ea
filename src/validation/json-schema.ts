/**
 * JSON Schema checking with ajv (and ajv-formats): is a schema usable as the StructuredOutput
 * tool's input schema, and does a value match it. Violations are worded as Claude Code words
 * them (`root: must have required property 'count', /name: must be string`). Shared by the client
 * (checking `--json-schema` before anything runs) and the activities (checking each call).
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** Thrown by {@link compileJsonSchema} for a schema that cannot be used; the message says why. */
export class JsonSchemaError extends Error {
  override readonly name = 'JsonSchemaError';
}

/** A compiled schema. */
export interface CompiledJsonSchema {
  /** The violations of `value`, worded for the model and joined by ", "; undefined when it matches. */
  violations(value: unknown): string | undefined;
}

/** Most characters of a property name quoted in a violation (Claude Code's limit). */
const MAX_QUOTED_NAME = 80;
/** Most characters of an allowed value quoted in a violation (Claude Code's limit). */
const MAX_QUOTED_VALUE = 300;

function ajvFor(schema: Record<string, unknown>): Ajv {
  const dialect = typeof schema['$schema'] === 'string' ? schema['$schema'] : '';
  // Strict-mode warnings (not errors) are not printed: the worker's stderr is no place for them.
  const options = { allErrors: true, multipleOfPrecision: 6, logger: false as const };
  const ajv = dialect.includes('2020-12')
    ? new Ajv2020(options)
    : dialect.includes('2019-09')
      ? new Ajv2019(options)
      : new Ajv(options);
  addFormats(ajv);
  return ajv;
}

/**
 * Checks that `schema` is a JSON Schema (draft-07 by default; 2019-09 and 2020-12 by `$schema`)
 * that a tool can take as its input schema, and compiles it. Unknown keywords and formats are
 * errors (ajv's strict mode), as in Claude Code; known formats (`email`, `date-time`, …) are
 * validated, which Claude Code does not do.
 * @throws JsonSchemaError when it is not an object schema with `type: "object"` at its root, or
 *   ajv rejects it
 */
export function compileJsonSchema(schema: unknown): CompiledJsonSchema {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new JsonSchemaError('a JSON Schema must be a JSON object');
  }
  const root = schema as Record<string, unknown>;
  if (root['type'] !== 'object') {
    throw new JsonSchemaError(
      `the root schema must declare "type": "object" (a tool input is an object), got ${JSON.stringify(root['type'] ?? null)}`,
    );
  }
  let validate: ValidateFunction;
  try {
    const ajv = ajvFor(root);
    if (!ajv.validateSchema(root)) throw new JsonSchemaError(ajv.errorsText(ajv.errors));
    validate = ajv.compile(root);
  } catch (err) {
    if (err instanceof JsonSchemaError) throw err;
    throw new JsonSchemaError(err instanceof Error ? err.message : String(err));
  }
  return {
    violations(value: unknown): string | undefined {
      if (validate(value)) return undefined;
      return (validate.errors ?? []).map((e) => describeViolation(e, value)).join(', ');
    },
  };
}

function cut(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}\u2026` : s;
}

function quoted(v: unknown): string | undefined {
  try {
    const s = JSON.stringify(v);
    return typeof s === 'string' ? cut(s, MAX_QUOTED_VALUE) : undefined;
  } catch {
    return undefined;
  }
}

function valueAt(root: unknown, pointer: string): unknown {
  let cur = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(cur)) cur = cur[Number(key)];
    else if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, key))
      cur = (cur as Record<string, unknown>)[key];
    else return undefined;
  }
  return cur;
}

/** One violation as Claude Code words it: `<path or root>: <ajv message>` plus what was found. */
export function describeViolation(e: ErrorObject, value: unknown): string {
  const base = `${e.instancePath || 'root'}: ${e.message ?? e.keyword}`;
  const at = (): unknown => valueAt(value, e.instancePath);
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties': {
      const name = params['additionalProperty'];
      return typeof name === 'string' ? `${base} ('${cut(name, MAX_QUOTED_NAME)}' is not allowed)` : base;
    }
    case 'minLength':
    case 'maxLength': {
      const v = at();
      return typeof v === 'string' ? `${base} (got ${[...v].length})` : base;
    }
    case 'minItems':
    case 'maxItems': {
      const v = at();
      return Array.isArray(v) ? `${base} (got ${v.length})` : base;
    }
    case 'minProperties':
    case 'maxProperties': {
      const v = at();
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? `${base} (got ${Object.keys(v).length})` : base;
    }
    case 'enum': {
      const allowed = Array.isArray(params['allowedValues']) ? quoted(params['allowedValues']) : undefined;
      return allowed === undefined ? base : `${base}: ${allowed}`;
    }
    case 'const': {
      const allowed = 'allowedValue' in params ? quoted(params['allowedValue']) : undefined;
      return allowed === undefined ? base : `${base}: ${allowed}`;
    }
    default:
      return base;
  }
}
