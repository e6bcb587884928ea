import Anthropic from '@anthropic-ai/sdk';
import type { FakeModelServer } from '../../../src/fake-model';
import { startFakeModelServer } from '../../../src/fake-model';

let server: FakeModelServer;
let client: Anthropic;

beforeEach(async () => {
  server = await startFakeModelServer({
    responder: (_req, ctx) => ({ content: [{ text: `answer ${ctx.step}` }] }),
  });
  client = new Anthropic({ apiKey: 'test', baseURL: server.baseUrl, maxRetries: 0 });
});
afterEach(async () => {
  await server.close();
});

const SYSTEM_TEXT = 'You are a careful coding agent. '.repeat(125); // 4000 chars = 1000 tokens

function system(): Anthropic.TextBlockParam[] {
  return [{ type: 'text', text: SYSTEM_TEXT, cache_control: { type: 'ephemeral' } }];
}

function send(messages: Anthropic.MessageParam[], model = 'claude-test-1'): Promise<Anthropic.Message> {
  return client.messages.stream({ model, max_tokens: 100, system: system(), messages }).finalMessage();
}

test('fake model: cache simulation reads a shared prefix on the second request', async () => {
  const first = await send([{ role: 'user', content: 'question one' }]);
  expect(first.usage.cache_read_input_tokens).toBe(0);
  const written = first.usage.cache_creation_input_tokens ?? 0;
  expect(written).toBeGreaterThanOrEqual(1000);
  expect(first.usage.input_tokens).toBeGreaterThan(0);

  const second = await send([{ role: 'user', content: 'a different question' }]);
  expect(second.usage.cache_read_input_tokens).toBe(written);
  expect(second.usage.cache_creation_input_tokens).toBe(0);

  // Another model has its own cache.
  const other = await send([{ role: 'user', content: 'question one' }], 'claude-other');
  expect(other.usage.cache_read_input_tokens).toBe(0);
  expect(other.usage.cache_creation_input_tokens).toBe(written);

  const stats = server.cacheStats();
  expect(stats.cacheReadTokens).toBe(written);
  expect(stats.cacheCreationTokens).toBe(2 * written);
  expect(stats.readShare).toBeGreaterThan(0);
  expect(stats.readShare).toBeLessThan(1);
  expect(server.requests()[1]).toMatchObject({ cacheReadTokens: written, cacheCreationTokens: 0 });
});

test('fake model: a moving breakpoint reads the old prefix and writes only the new part', async () => {
  const turn1: Anthropic.MessageParam[] = [
    { role: 'user', content: [{ type: 'text', text: 'x'.repeat(400), cache_control: { type: 'ephemeral' } }] },
  ];
  const a = await send(turn1);
  const prefix1 = (a.usage.cache_creation_input_tokens ?? 0) + (a.usage.cache_read_input_tokens ?? 0);
  expect(a.usage.input_tokens).toBe(0); // everything is up to the last breakpoint

  const turn2: Anthropic.MessageParam[] = [
    { role: 'user', content: [{ type: 'text', text: 'x'.repeat(400) }] },
    { role: 'assistant', content: [{ type: 'text', text: 'answer 0' }] },
    {
      role: 'user',
      content: [{ type: 'text', text: 'y'.repeat(800), cache_control: { type: 'ephemeral', ttl: '1h' } }],
    },
    // not cached: after the last breakpoint
  ];
  const b = await send(turn2);
  expect(b.usage.cache_read_input_tokens).toBe(prefix1);
  expect(b.usage.cache_creation_input_tokens).toBeGreaterThanOrEqual(200);
  expect(b.usage.cache_creation?.ephemeral_1h_input_tokens).toBe(b.usage.cache_creation_input_tokens);
  expect(b.usage.input_tokens).toBe(0);
});

test('fake model: no cache_control means no cache reads or writes', async () => {
  const req = { model: 'm', max_tokens: 10, system: 'plain', messages: [{ role: 'user' as const, content: 'hi' }] };
  await client.messages.create(req);
  const again = await client.messages.create(req);
  expect(again.usage.cache_read_input_tokens).toBe(0);
  expect(again.usage.cache_creation_input_tokens).toBe(0);
  expect(again.usage.input_tokens).toBeGreaterThan(0);
});

test('fake model: a tool sent with defer_loading is outside the cached prefix; a tool_reference counts its definition where it stands', async () => {
  const { PromptCacheSimulator, promptParts } = await import('../../../src/fake-model/prompt-cache');
  const big = { name: 'mcp__a__b', description: 'x'.repeat(4000), input_schema: { type: 'object' } };
  const first = {
    model: 'm',
    max_tokens: 1,
    system: [{ type: 'text', text: SYSTEM_TEXT, cache_control: { type: 'ephemeral' } }],
    messages: [{ role: 'user' as const, content: 'go' }],
    tools: [{ name: 'Read', description: 'read', input_schema: { type: 'object' } }],
  };
  const loaded = {
    ...first,
    tools: [...first.tools, { ...big, defer_loading: true }],
    messages: [
      { role: 'user' as const, content: 'go' },
      { role: 'assistant' as const, content: [{ type: 'tool_use', id: 't', name: 'ToolSearch', input: {} }] },
      {
        role: 'user' as const,
        content: [
          { type: 'tool_result', tool_use_id: 't', content: [{ type: 'tool_reference', tool_name: 'mcp__a__b' }] },
          { type: 'text', text: 'Tool loaded.', cache_control: { type: 'ephemeral' } },
        ],
      },
    ],
  };
  const sim = new PromptCacheSimulator();
  sim.account(first as never);
  const second = sim.account(loaded as never);
  // The prefix (tools, system) is read from the cache although a tool joined the request.
  expect(second.cacheReadTokens).toBeGreaterThanOrEqual(1000);
  // The loaded definition is in the prompt, at the tool_reference.
  expect(promptParts(loaded as never).some((p) => p.key.includes('"tool_reference","tool":{"name":"mcp__a__b"'))).toBe(
    true,
  );
  expect(second.promptTokens).toBeGreaterThan(1000 + 1000);
});
