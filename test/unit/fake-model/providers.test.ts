import Anthropic from '@anthropic-ai/sdk';
import { decodeEventStream, encodeEventStreamMessage } from '../../../src/fake-model/aws-event-stream';
import type { FakeModelServer } from '../../../src/fake-model';
import { startFakeModelServer } from '../../../src/fake-model';
import { matchModelRoute } from '../../../src/fake-model/providers';
import { parseSigV4Authorization, signSigV4, verifySigV4 } from '../../../src/fake-model/sigv4';

/** AWS's documentation example credentials. */
const AWS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

describe('sigv4', () => {
  test("verifySigV4: accepts AWS's get-vanilla test vector", () => {
    const headers = {
      host: 'example.amazonaws.com',
      'x-amz-date': '20150830T123600Z',
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    };
    expect(verifySigV4('GET', '/', headers, Buffer.alloc(0), AWS)).toMatchObject({ ok: true });
  });

  test('verifySigV4: refuses a wrong secret, a changed header and a changed body', () => {
    const body = Buffer.from('{"max_tokens":1}');
    const base = { host: '127.0.0.1:1', 'content-type': 'application/json' };
    const signed = {
      ...base,
      ...signSigV4(
        { method: 'POST', url: '/model/us.anthropic.x-v1%3A0/invoke', headers: base, body },
        { credentials: AWS, region: 'us-east-1', service: 'bedrock', signedHeaders: ['content-type'] },
      ),
    };
    const url = '/model/us.anthropic.x-v1%3A0/invoke';
    expect(verifySigV4('POST', url, signed, body, AWS)).toMatchObject({ ok: true });
    expect(verifySigV4('POST', url, signed, body, { ...AWS, secretAccessKey: 'other' })).toMatchObject({ ok: false });
    expect(verifySigV4('POST', url, { ...signed, 'content-type': 'text/plain' }, body, AWS)).toMatchObject({
      ok: false,
    });
    expect(verifySigV4('POST', url, signed, Buffer.from('{}'), AWS)).toMatchObject({
      ok: false,
      message: expect.stringContaining('x-amz-content-sha256') as unknown,
    });
  });

  test('parseSigV4Authorization: reads the credential scope and signed headers', () => {
    expect(
      parseSigV4Authorization(
        'AWS4-HMAC-SHA256 Credential=AKID/20261201/eu-west-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=' +
          'a'.repeat(64),
      ),
    ).toEqual({
      accessKeyId: 'AKID',
      date: '20261201',
      region: 'eu-west-1',
      service: 'bedrock',
      signedHeaders: ['host', 'x-amz-date'],
      signature: 'a'.repeat(64),
    });
    expect(parseSigV4Authorization('Bearer x')).toBeUndefined();
  });
});

describe('aws event stream', () => {
  test('encodeEventStreamMessage / decodeEventStream: round trip, and a changed byte fails its CRC', () => {
    const a = encodeEventStreamMessage({ ':event-type': 'chunk', ':message-type': 'event' }, Buffer.from('{"a":1}'));
    const b = encodeEventStreamMessage({ ':message-type': 'exception' }, Buffer.from('x'));
    const decoded = decodeEventStream(Buffer.concat([a, b]));
    expect(decoded.map((m) => [m.headers, m.payload.toString()])).toEqual([
      [{ ':event-type': 'chunk', ':message-type': 'event' }, '{"a":1}'],
      [{ ':message-type': 'exception' }, 'x'],
    ]);
    const bad = Buffer.from(a);
    bad.writeUInt8(bad.readUInt8(bad.length - 6) ^ 1, bad.length - 6);
    expect(() => decodeEventStream(bad)).toThrow(/CRC/);
  });
});

describe('matchModelRoute', () => {
  test('names the provider, model and streaming of each route', () => {
    expect(matchModelRoute('POST', '/v1/messages')).toEqual({ provider: 'anthropic' });
    expect(matchModelRoute('POST', '/anthropic/v1/messages')).toEqual({ provider: 'foundry' });
    expect(matchModelRoute('POST', '/model/us.anthropic.claude-x-v1%3A0/invoke-with-response-stream')).toEqual({
      provider: 'bedrock',
      model: 'us.anthropic.claude-x-v1:0',
      stream: true,
    });
    expect(
      matchModelRoute('POST', '/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-x@2025:rawPredict'),
    ).toEqual({ provider: 'vertex', project: 'p', region: 'us-east5', model: 'claude-x@2025', stream: false });
    expect(matchModelRoute('GET', '/v1/messages')).toBeUndefined();
    expect(matchModelRoute('POST', '/v2/messages')).toBeUndefined();
  });
});

describe('fake model: provider routes', () => {
  let server: FakeModelServer;
  const bodies: unknown[] = [];
  beforeAll(async () => {
    server = await startFakeModelServer({
      providerAuth: { aws: AWS, googleAccessToken: 'ya29.test' },
      responder: (req, ctx) => {
        bodies.push({ model: req.model, stream: req.stream, raw: ctx.rawBody, provider: ctx.route?.provider });
        return {
          content: [
            { thinking: 'hm' },
            { redacted_thinking: 'UkVEQUNURUQ=' },
            { server_tool_use: { id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } } },
            { block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] } },
            { text: 'answer' },
          ],
          usage: { server_tool_use: { web_search_requests: 1 } },
        };
      },
    });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    bodies.length = 0;
  });

  const bedrockBody = Buffer.from(
    JSON.stringify({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'hi' }],
    }),
  );

  async function bedrock(
    headers: Record<string, string>,
    path = '/model/us.anthropic.claude-x-v1%3A0/invoke-with-response-stream',
  ): Promise<Response> {
    return fetch(`${server.baseUrl}${path}`, { method: 'POST', headers, body: bedrockBody });
  }

  test('Bedrock: a SigV4-signed stream answers in event-stream framing; the model comes from the path', async () => {
    const path = '/model/us.anthropic.claude-x-v1%3A0/invoke-with-response-stream';
    const base = { host: new URL(server.baseUrl).host, 'content-type': 'application/json' };
    const signed = signSigV4(
      { method: 'POST', url: path, headers: base, body: bedrockBody },
      { credentials: AWS, region: 'us-east-1', service: 'bedrock', signedHeaders: ['content-type'] },
    );
    const res = await bedrock({ 'content-type': 'application/json', ...signed }, path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
    const events = decodeEventStream(Buffer.from(await res.arrayBuffer())).map(
      (m) =>
        JSON.parse(Buffer.from((JSON.parse(m.payload.toString()) as { bytes: string }).bytes, 'base64').toString()) as {
          type: string;
        },
    );
    expect(events[0]?.type).toBe('message_start');
    expect(events.at(-1)?.type).toBe('message_stop');
    expect(bodies).toEqual([
      {
        model: 'us.anthropic.claude-x-v1:0',
        stream: true,
        provider: 'bedrock',
        raw: JSON.parse(bedrockBody.toString()) as unknown,
      },
    ]);
  });

  test('Bedrock: a bad signature gets 403, no credentials 403, a Bedrock API key (Bearer) passes', async () => {
    const forged = `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261201/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`;
    expect((await bedrock({ authorization: forged, 'x-amz-date': '20261201T000000Z' })).status).toBe(403);
    expect((await bedrock({})).status).toBe(403);
    const res = await bedrock({ authorization: 'Bearer bedrock-api-key' }, '/model/m/invoke');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { content: Array<{ type: string }> }).content.map((b) => b.type)).toEqual([
      'thinking',
      'redacted_thinking',
      'server_tool_use',
      'web_search_tool_result',
      'text',
    ]);
  });

  test('Vertex: the bearer token of the GCE metadata server is required; the model comes from the path', async () => {
    const token = await fetch(`${server.baseUrl}/computeMetadata/v1/instance/service-accounts/default/token`, {
      headers: { 'metadata-flavor': 'Google' },
    });
    expect(token.headers.get('metadata-flavor')).toBe('Google');
    const { access_token } = (await token.json()) as { access_token: string };
    const vertex = new Anthropic({
      apiKey: null,
      authToken: access_token,
      baseURL: `${server.baseUrl}/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-x@1:streamRawPredict`,
      maxRetries: 0,
      fetch: (url, init) => fetch(String(url).replace(/\/v1\/messages$/, ''), init),
    });
    const msg = await vertex.messages
      .stream({ model: 'ignored', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage();
    expect(msg.content.map((b) => b.type)).toEqual([
      'thinking',
      'redacted_thinking',
      'server_tool_use',
      'web_search_tool_result',
      'text',
    ]);
    expect(msg.usage.server_tool_use).toEqual({ web_search_requests: 1 });
    const wrong = await fetch(
      `${server.baseUrl}/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-x:rawPredict`,
      { method: 'POST', headers: { authorization: 'Bearer other' }, body: '{}' },
    );
    expect(wrong.status).toBe(401);
  });

  test('Foundry: /anthropic/v1/messages with an api key', async () => {
    const foundry = new Anthropic({ apiKey: 'k', baseURL: `${server.baseUrl}/anthropic`, maxRetries: 0 });
    const msg = await foundry.messages.create({
      model: 'claude-x',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(msg.content.at(-1)).toEqual({ type: 'text', text: 'answer' });
  });
});
