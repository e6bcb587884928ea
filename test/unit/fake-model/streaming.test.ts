import Anthropic from '@anthropic-ai/sdk';
import type { FakeModelServer, ScenarioInput } from '../../../src/fake-model';
import { startFakeModelServer } from '../../../src/fake-model';

type Msg = Anthropic.MessageParam;

const TOOLS: Anthropic.Tool[] = [
  { name: 'Read', description: 'read a file', input_schema: { type: 'object', properties: {} } },
  { name: 'Write', description: 'write a file', input_schema: { type: 'object', properties: {} } },
];

const scenario: ScenarioInput = {
  scripts: [
    {
      name: 'edit',
      match: { promptContains: 'fix the file' },
      steps: [
        {
          content: [
            { text: 'Reading the file now, then I will fix it.' },
            {
              tool_use: {
                name: 'Read',
                input: { file_path: '{{cwd}}/a.txt', options: { limit: 10, tags: ['x', 'y'] }, note: 'step {{step}}' },
              },
            },
          ],
        },
        { content: [{ text: 'All fixed.' }] },
      ],
    },
    { name: 'fallback', steps: [{ content: [{ thinking: 'hmm' }, { text: 'fallback answer' }] }] },
  ],
};

let server: FakeModelServer;
let client: Anthropic;

beforeAll(async () => {
  server = await startFakeModelServer({ scenario });
  client = new Anthropic({ apiKey: 'test', baseURL: server.baseUrl, maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
});

function ask(
  messages: Msg[],
  extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {},
): Promise<Anthropic.Message> {
  return client.messages
    .stream({
      model: 'claude-test-1',
      max_tokens: 1024,
      system: [{ type: 'text', text: 'You are a coding agent.\nWorking directory: /tmp/proj\n' }],
      tools: TOOLS,
      messages,
      ...extra,
    })
    .finalMessage();
}

test('fake model: replays tool_use with input_json_delta', async () => {
  const rawEvents: string[] = [];
  const stream = client.messages.stream({
    model: 'claude-test-1',
    max_tokens: 1024,
    system: 'Working directory: /tmp/proj',
    messages: [{ role: 'user', content: 'please fix the file' }],
  });
  let jsonDeltas = 0;
  stream.on('streamEvent', (e) => {
    rawEvents.push(e.type);
    if (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta') jsonDeltas += 1;
  });
  const msg = await stream.finalMessage();
  expect(msg.model).toBe('claude-test-1');
  expect(msg.stop_reason).toBe('tool_use');
  expect(msg.content).toHaveLength(2);
  expect(msg.content[0]).toMatchObject({ type: 'text', text: 'Reading the file now, then I will fix it.' });
  const tool = msg.content[1];
  expect(tool?.type).toBe('tool_use');
  if (tool?.type !== 'tool_use') throw new Error('no tool_use');
  expect(tool.name).toBe('Read');
  expect(tool.id).toMatch(/^toolu_/);
  expect(tool.input).toEqual({
    file_path: '/tmp/proj/a.txt',
    options: { limit: 10, tags: ['x', 'y'] },
    note: 'step 0',
  });
  expect(jsonDeltas).toBeGreaterThan(1);
  expect(rawEvents[0]).toBe('message_start');
  expect(rawEvents[rawEvents.length - 1]).toBe('message_stop');
  expect(rawEvents).toContain('message_delta');
  expect(msg.usage.input_tokens).toBeGreaterThan(0);
  expect(msg.usage.output_tokens).toBeGreaterThan(1);
});

test('fake model: step index is the number of assistant messages', async () => {
  const first = await ask([{ role: 'user', content: 'fix the file please' }]);
  const tool = first.content.find((b) => b.type === 'tool_use');
  if (tool?.type !== 'tool_use') throw new Error('no tool_use');
  const history: Msg[] = [
    { role: 'user', content: 'fix the file please' },
    { role: 'assistant', content: first.content },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: tool.id, content: 'hello' }] },
  ];
  const second = await ask(history);
  expect(second.content).toEqual([{ type: 'text', text: 'All fixed.' }]);
  expect(second.stop_reason).toBe('end_turn');
  // A retry of the first request gets step 0 again, with the same tool_use id.
  const again = await ask([{ role: 'user', content: 'fix the file please' }]);
  const tool2 = again.content.find((b) => b.type === 'tool_use');
  expect(tool2?.type === 'tool_use' && tool2.id).toBe(tool.id);
});

test('fake model: falls back to the script without match; thinking blocks stream', async () => {
  const msg = await ask([{ role: 'user', content: 'something else' }]);
  expect(msg.content[0]).toMatchObject({ type: 'thinking', thinking: 'hmm' });
  expect(msg.content[1]).toMatchObject({ type: 'text', text: 'fallback answer' });
});

test('fake model: stream false returns a JSON Message with a request-id', async () => {
  const { data, response } = await client.messages
    .create({ model: 'claude-x', max_tokens: 10, messages: [{ role: 'user', content: 'fix the file' }] })
    .withResponse();
  expect(response.headers.get('request-id')).toMatch(/^req_/);
  expect(data.type).toBe('message');
  expect(data.content[1]).toMatchObject({ type: 'tool_use', name: 'Read' });
  expect(data.stop_reason).toBe('tool_use');
});

test('fake model: request log records steps, attempts and tool_result ids', async () => {
  const log = server.requests();
  expect(log.length).toBeGreaterThanOrEqual(5);
  const step1 = log.find((e) => e.script === 'edit' && e.step === 1);
  expect(step1).toMatchObject({
    outcome: 'completed',
    status: 200,
    attempt: 1,
    messagesCount: 3,
    model: 'claude-test-1',
  });
  expect(step1?.toolResultIds).toHaveLength(1);
  expect(step1?.toolResultIds[0]).toMatch(/^toolu_/);
  const seqs = log.map((e) => e.seq);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  expect(log.every((e) => e.requestBytes > 0 && !Number.isNaN(Date.parse(e.at)))).toBe(true);
});

test('fake model: unknown routes give 404 in the API error shape', async () => {
  const res = await fetch(`${server.baseUrl}/v1/nope`);
  expect(res.status).toBe(404);
  expect(res.headers.get('request-id')).toMatch(/^req_/);
  const body = (await res.json()) as { type: string; error: { type: string }; request_id: string };
  expect(body.type).toBe('error');
  expect(body.error.type).toBe('not_found_error');
  expect(body.request_id).toMatch(/^req_/);
});
