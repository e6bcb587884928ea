import { compileJsonSchema, JsonSchemaError } from '../../../src/validation/json-schema';

const schema = {
  type: 'object',
  properties: { name: { type: 'string' }, count: { type: 'integer' } },
  required: ['name', 'count'],
  additionalProperties: false,
};

describe('compileJsonSchema', () => {
  test('compileJsonSchema: a matching value has no violations', () => {
    expect(compileJsonSchema(schema).violations({ name: 'x', count: 3 })).toBeUndefined();
  });

  test('compileJsonSchema: every violation is listed, worded as Claude Code words it', () => {
    const c = compileJsonSchema(schema);
    expect(c.violations({ name: 5 })).toBe("root: must have required property 'count', /name: must be string");
    expect(c.violations({ name: 'x', count: 'three', extra: true })).toBe(
      "root: must NOT have additional properties ('extra' is not allowed), /count: must be integer",
    );
  });

  test('compileJsonSchema: lengths, sizes, enum and const say what was found or allowed', () => {
    const c = compileJsonSchema({
      type: 'object',
      properties: {
        s: { type: 'string', minLength: 3 },
        a: { type: 'array', maxItems: 1 },
        o: { type: 'object', minProperties: 2 },
        e: { enum: ['a', 'b'] },
        k: { const: 1 },
      },
    });
    expect(c.violations({ s: 'ab', a: [1, 2], o: { x: 1 }, e: 'c', k: 2 })).toBe(
      [
        '/s: must NOT have fewer than 3 characters (got 2)',
        '/a: must NOT have more than 1 items (got 2)',
        '/o: must NOT have fewer than 2 properties (got 1)',
        '/e: must be equal to one of the allowed values: ["a","b"]',
        '/k: must be equal to constant: 1',
      ].join(', '),
    );
  });

  test('compileJsonSchema: known formats are validated', () => {
    const c = compileJsonSchema({ type: 'object', properties: { mail: { type: 'string', format: 'email' } } });
    expect(c.violations({ mail: 'a@example.com' })).toBeUndefined();
    expect(c.violations({ mail: 'not-an-email' })).toBe('/mail: must match format "email"');
  });

  test('compileJsonSchema: draft 2020-12 schemas are understood by their $schema', () => {
    const c = compileJsonSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { t: { type: 'array', prefixItems: [{ type: 'number' }] } },
    });
    expect(c.violations({ t: ['x'] })).toBe('/t/0: must be number');
  });

  test.each([
    [[], 'must be a JSON object'],
    [{ type: 'string' }, 'the root schema must declare "type": "object"'],
    [{ type: 'object', properties: { a: { type: 'nope' } } }, 'must be equal to one of the allowed values'],
    [{ type: 'object', 'x-foo': 1 }, 'unknown keyword: "x-foo"'],
    [{ type: 'object', properties: { a: { type: 'string', format: 'no-such-format' } } }, 'unknown format'],
  ])('compileJsonSchema: an unusable schema is refused (%j)', (bad, message) => {
    expect(() => compileJsonSchema(bad)).toThrow(JsonSchemaError);
    expect(() => compileJsonSchema(bad)).toThrow(message);
  });
});
