import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  JsonSchemaOptionError,
  jsonSchemaUuid,
  readJsonSchemaOption,
  storeJsonSchema,
} from '../../../src/client/json-schema';
import { JsonlTranscriptStore } from '../../../src/store/jsonl-store';
import { createLoadSession } from '../../../src/activities/transcript';

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

  test('storeJsonSchema: the schema is stored once per session, by a uuid derived from its content', async () => {
    const store = new JsonlTranscriptStore(dir);
    const a = await storeJsonSchema(store, 's1', schema, '/work');
    const b = await storeJsonSchema(store, 's1', { ...schema });
    expect(a).toBe(b);
    expect(a).toBe(jsonSchemaUuid(schema));
    expect(await store.load('s1')).toHaveLength(1);
    expect(await storeJsonSchema(store, 's1', { ...schema, required: [] })).not.toBe(a);
    // The stored schema is not a conversation line: the session has no leaf and no turn yet.
    const loaded = await createLoadSession(store, () => null)('s1');
    expect(loaded).toMatchObject({ leafUuid: null, turnCount: 0 });
    expect((await store.listSessions())[0]?.cwd).toBe('/work');
  });
});
