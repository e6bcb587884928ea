import Anthropic, { APIError } from '@anthropic-ai/sdk';
import path from 'node:path';
import type { FakeModelServer } from '../../../src/fake-model';
import { EXPECTATION_FAILED_PREFIX, startFakeModelServer } from '../../../src/fake-model';

const FAULTS = path.join(__dirname, '../../fixtures/scenarios/faults.yaml');

let server: FakeModelServer;
let client: Anthropic;

beforeEach(async () => {
  server = await startFakeModelServer({ scenarioPath: FAULTS });
  // logLevel off: the SDK logs the malformed SSE line with console.error
  client = new Anthropic({ apiKey: 'test', baseURL: server.baseUrl, maxRetries: 0, logLevel: 'off' });
});

/** The API error message inside an SDK error's body. */
function apiMessage(err: unknown): string {
  const body = (err as APIError).error as { error?: { message?: string } } | undefined;
  return body?.error?.message ?? '';
}
afterEach(async () => {
  await server.close();
});

function ask(prompt = 'go'): Promise<Anthropic.Message> {
  return client.messages
    .stream({ model: 'claude-test-1', max_tokens: 100, messages: [{ role: 'user', content: prompt }] })
    .finalMessage();
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

test('fake model: scripted faults map to the SDK error classes, attempt by attempt', async () => {
  const e429 = await caught(ask());
  expect(e429).toBeInstanceOf(Anthropic.RateLimitError);
  expect((e429 as APIError).headers?.get('retry-after')).toBe('1');
  expect((e429 as APIError).requestID).toMatch(/^req_/);

  const e529 = await caught(ask());
  expect(e529).toBeInstanceOf(Anthropic.InternalServerError);
  expect((e529 as APIError).status).toBe(529);
  expect((e529 as APIError).type).toBe('overloaded_error');

  const e500 = await caught(ask());
  expect(e500).toBeInstanceOf(Anthropic.InternalServerError);
  expect((e500 as APIError).status).toBe(500);

  const e400 = await caught(ask());
  expect(e400).toBeInstanceOf(Anthropic.BadRequestError);
  expect(apiMessage(e400)).toBe('prompt is too long: 250000 tokens > 200000 maximum');

  // cut_after_events: 3 -> the socket dies mid-stream
  const cut = await caught(ask());
  expect(cut).toBeInstanceOf(Error);
  expect(cut).not.toBeInstanceOf(APIError);
  expect(String(cut)).toMatch(/terminated/);

  // malformed_sse -> the SDK cannot parse a data line
  const malformed = await caught(ask());
  expect(malformed).toBeInstanceOf(Error);
  expect((malformed as Error).cause).toBeInstanceOf(SyntaxError);

  // sse_error -> 200, then an error event
  const sseErr = await caught(ask());
  expect(sseErr).toBeInstanceOf(Anthropic.APIError);
  expect((sseErr as APIError).type).toBe('overloaded_error');

  // attempt 8: the normal response
  const ok = await ask();
  expect(ok.content).toEqual([{ type: 'text', text: 'finally' }]);

  const log = server.requests();
  expect(log.map((e) => [e.attempt, e.outcome, e.status])).toEqual([
    [1, 'http_error', 429],
    [2, 'http_error', 529],
    [3, 'http_error', 500],
    [4, 'http_error', 400],
    [5, 'cut', 200],
    [6, 'malformed', 200],
    [7, 'sse_error', 200],
    [8, 'completed', 200],
  ]);
  expect(log.every((e) => e.step === 0 && e.script === 'faults')).toBe(true);
  expect(server.completedCalls()).toHaveLength(1);
});

test('fake model: attempts are counted per conversation', async () => {
  await expect(ask('first conversation')).rejects.toBeInstanceOf(Anthropic.RateLimitError);
  await expect(ask('second conversation')).rejects.toBeInstanceOf(Anthropic.RateLimitError);
  await expect(ask('first conversation')).rejects.toBeInstanceOf(Anthropic.InternalServerError);
  const keys = new Set(server.requests().map((e) => e.conversationKey));
  expect(keys.size).toBe(2);
});

test('fake model: expectation failure answers 400 with what was expected and what came', async () => {
  const s = await startFakeModelServer({
    scenario: {
      steps: [
        { content: [{ tool_use: { name: 'Bash', input: { command: 'ls' } } }] },
        { expect: { lastToolResultContains: 'README.md', systemContains: 'agent' }, content: [{ text: 'ok' }] },
      ],
    },
  });
  try {
    const c = new Anthropic({ apiKey: 'test', baseURL: s.baseUrl, maxRetries: 0 });
    const first = await c.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    const tool = first.content[0];
    if (tool?.type !== 'tool_use') throw new Error('no tool_use');
    const err = await caught(
      c.messages
        .stream({
          model: 'm',
          max_tokens: 10,
          system: 'You are an agent.',
          messages: [
            { role: 'user', content: 'hi' },
            { role: 'assistant', content: first.content },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: tool.id, content: 'package.json' }] },
          ],
        })
        .finalMessage(),
    );
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    const msg = apiMessage(err);
    expect(msg.startsWith(EXPECTATION_FAILED_PREFIX)).toBe(true);
    expect(msg).toContain('"README.md"');
    expect(msg).toContain('"package.json"');
    expect(msg).not.toContain('systemContains');
    const entry = s.requests()[1];
    expect(entry?.outcome).toBe('expectation_failed');
    expect(entry?.error).toContain('lastToolResultContains');
  } finally {
    await s.close();
  }
});

test('fake model: a script that runs out of steps answers a loud 400', async () => {
  const s = await startFakeModelServer({ scenario: { name: 'short', steps: [{ content: [{ text: 'only' }] }] } });
  try {
    const c = new Anthropic({ apiKey: 'test', baseURL: s.baseUrl, maxRetries: 0 });
    const err = await caught(
      c.messages.create({
        model: 'm',
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'only' },
          { role: 'user', content: 'more' },
        ],
      }),
    );
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect(apiMessage(err)).toMatch(/^fake-model: script "short" has no step 1/);
  } finally {
    await s.close();
  }
});

test('fake model: unpaired tool_use is rejected like the real API', async () => {
  const err = await caught(
    client.messages.create({
      model: 'm',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x', name: 'Bash', input: {} }] },
        { role: 'user', content: 'no result' },
      ],
    }),
  );
  expect(err).toBeInstanceOf(Anthropic.BadRequestError);
  expect((err as Error).message).toContain('`tool_use` ids were found without `tool_result` blocks');
});
