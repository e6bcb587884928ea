import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RequestLogEntry } from '../../../src/fake-model';
import { repeatedCompletedCalls, startFakeModelServer } from '../../../src/fake-model';

const DIR = path.join(__dirname, '../../fixtures/scenarios');

test('fake model: a responder serves 50 concurrent conversations keyed by metadata.user_id', async () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'fake-model-'));
  const logPath = path.join(tmp, 'log.jsonl');
  const server = await startFakeModelServer({
    logPath,
    responder: (req, ctx) =>
      ctx.step === 0
        ? {
            content: [{ tool_use: { name: 'Echo', input: { who: ctx.conversationKey } } }],
            ...(ctx.conversationKey.endsWith('-7') && ctx.attempt === 1 ? { errors: [{ status: 529 }] } : {}),
          }
        : { content: [{ text: `done ${ctx.conversationKey} after ${req.messages.length} messages` }] },
  });
  try {
    const client = new Anthropic({ apiKey: 'test', baseURL: server.baseUrl, maxRetries: 2 });
    const run = async (i: number): Promise<string> => {
      const base = { model: 'm', max_tokens: 50, metadata: { user_id: `conv-${i}` } };
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'same prompt for everyone' }];
      const first = await client.messages.stream({ ...base, messages }).finalMessage();
      const tool = first.content[0];
      if (tool?.type !== 'tool_use') throw new Error('no tool_use');
      expect(tool.input).toEqual({ who: `conv-${i}` });
      messages.push({ role: 'assistant', content: first.content });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: tool.id, content: 'ok' }] });
      const second = await client.messages.stream({ ...base, messages }).finalMessage();
      return second.content[0]?.type === 'text' ? second.content[0].text : '';
    };
    const texts = await Promise.all(Array.from({ length: 50 }, (_, i) => run(i)));
    expect(texts[3]).toBe('done conv-3 after 3 messages');
    expect(server.completedCalls()).toHaveLength(100);
    expect(server.requests()).toHaveLength(101); // conv-7 step 0 got one 529 and a retry
    expect(repeatedCompletedCalls(server.requests())).toEqual([]);

    const lines = readFileSync(logPath, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(101);
    const parsed = lines.map((l) => JSON.parse(l) as RequestLogEntry);
    expect(
      parsed
        .filter((e) => e.conversationKey === 'conv-7')
        .map((e) => e.outcome)
        .sort(),
    ).toEqual(['completed', 'completed', 'http_error']);
  } finally {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('fake model: repeatedCompletedCalls finds a completed call made twice', () => {
  const entry = (seq: number, step: number, outcome: RequestLogEntry['outcome']): RequestLogEntry => ({
    seq,
    at: new Date(0).toISOString(),
    requestId: `req_${seq}`,
    conversationKey: 'c',
    script: 's',
    step,
    attempt: 1,
    model: 'm',
    messagesCount: 1,
    requestBytes: 1,
    stream: true,
    outcome,
    status: 200,
    toolResultIds: [],
    inputTokens: 1,
    outputTokens: 1,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    durationMs: 1,
  });
  const log = [entry(1, 0, 'completed'), entry(2, 1, 'cut'), entry(3, 1, 'completed'), entry(4, 0, 'completed')];
  expect(repeatedCompletedCalls(log)).toEqual([{ conversationKey: 'c', step: 0, count: 2 }]);
});

test('fake model: a client disconnect mid-stream is logged as aborted', async () => {
  const server = await startFakeModelServer({
    scenario: { steps: [{ chunk_delay_ms: 20, content: [{ text: 'slow '.repeat(40) }] }] },
  });
  try {
    const client = new Anthropic({ apiKey: 'test', baseURL: server.baseUrl, maxRetries: 0 });
    const stream = client.messages.stream({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    await new Promise<void>((resolve) => stream.on('text', () => resolve()));
    stream.abort();
    await expect(stream.finalMessage()).rejects.toThrow();
    for (let i = 0; i < 50 && server.requests().length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(server.requests()[0]?.outcome).toBe('aborted');
  } finally {
    await server.close();
  }
});

test('fake model: templates, raw_tool_use, /_fake/log and /_fake/reset', async () => {
  const server = await startFakeModelServer({ scenarioPath: path.join(DIR, 'malformed-tool.json') });
  try {
    const client = new Anthropic({ apiKey: 'test', baseURL: server.baseUrl, maxRetries: 0 });
    const deltas: string[] = [];
    const stream = client.messages.stream({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    stream.on('streamEvent', (e) => {
      if (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta') deltas.push(e.delta.partial_json);
    });
    const msg = await stream.finalMessage();
    expect(deltas.join('')).toBe('{"command": "ls -la');
    expect(msg.stop_reason).toBe('tool_use');
    expect(msg.content[1]).toMatchObject({ type: 'tool_use', name: 'Bash' });

    const logRes = await fetch(`${server.baseUrl}/_fake/log`);
    const log = (await logRes.json()) as { requests: RequestLogEntry[]; cacheStats: { readShare: number } };
    expect(log.requests).toHaveLength(1);
    expect(log.requests[0]?.outcome).toBe('completed');

    const resetRes = await fetch(`${server.baseUrl}/_fake/reset`, { method: 'POST' });
    expect(resetRes.status).toBe(200);
    expect(server.requests()).toHaveLength(0);
  } finally {
    await server.close();
  }
});

test('fake model: the example coding session runs end to end with {{cwd}}', async () => {
  const server = await startFakeModelServer({ scenarioPath: path.join(DIR, 'coding-session.yaml') });
  try {
    const client = new Anthropic({ apiKey: 'test', baseURL: server.baseUrl, maxRetries: 1 });
    const tools: Anthropic.Tool[] = ['Read', 'Write'].map((name) => ({
      name,
      input_schema: { type: 'object' as const, properties: {} },
    }));
    const base = {
      model: 'm',
      max_tokens: 100,
      tools,
      system: 'You are a coding agent.\nWorking directory: /w/repo\n',
    };
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'fix the greeting in hello.txt' }];
    const results = ['hello wrld', 'wrote 14 bytes'];
    for (const result of results) {
      const m = await client.messages.stream({ ...base, messages }).finalMessage();
      const tool = m.content.find((b) => b.type === 'tool_use');
      if (tool?.type !== 'tool_use') throw new Error('no tool_use');
      expect((tool.input as { file_path: string }).file_path).toBe('/w/repo/hello.txt');
      messages.push({ role: 'assistant', content: m.content });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: tool.id, content: result }] });
    }
    const last = await client.messages.stream({ ...base, messages }).finalMessage();
    expect(last.content[0]).toMatchObject({ type: 'text', text: 'Done: hello.txt now says "Hello, world!" (step 2).' });
    expect(last.usage.output_tokens).toBe(12);
    expect(server.requests().map((e) => `${e.step}:${e.attempt}:${e.outcome}`)).toEqual([
      '0:1:completed',
      '1:1:completed',
      '2:1:http_error',
      '2:2:completed',
    ]);
  } finally {
    await server.close();
  }
});
