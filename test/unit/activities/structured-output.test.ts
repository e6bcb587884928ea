import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadJsonSchema, runStructuredOutput, structuredOutputTool } from '../../../src/activities/structured-output';
import { storeJsonSchema } from '../../../src/client/json-schema';
import { JsonlTranscriptStore } from '../../../src/store/jsonl-store';

const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'structured-output-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('StructuredOutput tool (activity side)', () => {
  test('loadJsonSchema: reads and compiles the stored schema; runStructuredOutput checks a call', async () => {
    const store = new JsonlTranscriptStore(dir);
    const key = await storeJsonSchema(store, 's1', schema);
    const loaded = await loadJsonSchema(store, 's1', key);
    expect(structuredOutputTool(loaded.schema)).toMatchObject({ name: 'StructuredOutput', input_schema: schema });
    expect(runStructuredOutput(loaded.compiled, { n: 1 })).toMatchObject({
      isError: false,
      content: 'Structured output provided successfully',
      structuredOutput: { n: 1 },
    });
    expect(runStructuredOutput(loaded.compiled, { n: 'x' })).toEqual({
      content: 'Output does not match required schema: /n: must be integer',
      isError: true,
      structured: 'Error: Output does not match required schema: /n: must be integer',
      outcome: 'error',
    });
    await expect(loadJsonSchema(store, 's1', 'json-schema/none')).rejects.toThrow(
      'has no JSON Schema json-schema/none',
    );
  });
});
