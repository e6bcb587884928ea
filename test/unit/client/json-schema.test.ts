import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  JsonSchemaOptionError,
  jsonSchemaKey,
  readJsonSchemaOption,
  storeJsonSchema,
} from '../../../src/client/json-schema';
import { JsonlTranscriptStore } from '../../../src/store/jsonl-store';

const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'json-schema-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('structured output schema (client side)', () => {
  test('readJsonSchemaOption: JSON text or a file path', () => {
    expect(readJsonSchemaOption(JSON.stringify(schema), dir)).toEqual(schema);
    writeFileSync(join(dir, 's.json'), JSON.stringify(schema));
    expect(readJsonSchemaOption('s.json', dir)).toEqual(schema);
    expect(readJsonSchemaOption(join(dir, 's.json'), '/')).toEqual(schema);
  });

  test('readJsonSchemaOption: bad input is an error naming the flag and the problem', () => {
    expect(() => readJsonSchemaOption('{not json', dir)).toThrow(JsonSchemaOptionError);
    expect(() => readJsonSchemaOption('{not json', dir)).toThrow('--json-schema is not valid JSON');
    expect(() => readJsonSchemaOption('missing.json', dir)).toThrow(
      `--json-schema: no schema file ${join(dir, 'missing.json')}`,
    );
    writeFileSync(join(dir, 'bad.json'), '{"type":"object",');
    expect(() => readJsonSchemaOption('bad.json', dir)).toThrow(
      `--json-schema file ${join(dir, 'bad.json')} is not valid JSON`,
    );
    expect(() => readJsonSchemaOption('{"type":"nope"}', dir)).toThrow('--json-schema is not a valid JSON Schema');
    expect(() => readJsonSchemaOption('{"type":"string"}', dir)).toThrow('"type": "object"');
  });

  test('storeJsonSchema: the schema is stored once per session, under a key derived from its content', async () => {
    const store = new JsonlTranscriptStore(dir);
    const a = await storeJsonSchema(store, 's1', schema);
    const b = await storeJsonSchema(store, 's1', { ...schema });
    expect(a).toBe(b);
    expect(a).toBe(jsonSchemaKey(schema));
    expect(a).toMatch(/^json-schema\/[0-9a-f]{64}$/);
    expect(JSON.parse(String(await store.getContent('s1', a)))).toEqual(schema);
    expect(await storeJsonSchema(store, 's1', { ...schema, required: [] })).not.toBe(a);
    // Content, not conversation: the session has no transcript line.
    expect(await store.load('s1')).toEqual([]);
  });
});
