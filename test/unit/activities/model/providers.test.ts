/**
 * The worker's model clients against the fake model's provider routes, which check each
 * provider's authentication: Bedrock's SigV4 (verified with the secret key) and its API key,
 * Vertex's OAuth bearer (from a fake GCE metadata server), Foundry's key, the Anthropic API's
 * bearer gateway token and `apiKeyHelper`. The real provider SDKs, over HTTP.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingHttpHeaders } from 'node:http';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
import { loadConfig } from '../../../../src/config';
import { ModelErrorType } from '../../../../src/common/model';
import { startFakeModelServer } from '../../../../src/fake-model';
import type { FakeModelServer } from '../../../../src/fake-model';
import { modelClientsFromConfig, providerPrice, vertexRegion } from '../../../../src/activities/model/providers';
import { classifyModelError } from '../../../../src/activities/model/errors';
import { findPrice } from '../../../../src/config';

const AWS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const config = loadConfig({ env: {} });
/** The built tree (`npm run build`; the test tiers run after it). */
const DIST = join(__dirname, '..', '..', '..', '..', 'dist', 'src');

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
  route: string;
}

describe('model providers: each client against an endpoint that checks its authentication', () => {
  let server: FakeModelServer;
  const seen: Seen[] = [];
  const saved = { ...process.env };
  beforeAll(async () => {
    server = await startFakeModelServer({
      providerAuth: { aws: AWS },
      responder: (_req, ctx) => {
        seen.push({ url: ctx.url ?? '', headers: ctx.headers ?? {}, route: ctx.route?.provider ?? '' });
        return { content: [{ text: 'ok' }] };
      },
    });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    seen.length = 0;
  });
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  });

  const ask = async (env: Record<string, string>, model = 'claude-sonnet-5-5'): Promise<string> => {
    const clients = modelClientsFromConfig(config, { HOME: mkdtempSync(join(tmpdir(), 'prov-home-')), ...env });
    const m = await clients.client(model).messages.create({
      model,
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    });
    return (m.content[0] as { text: string }).text;
  };

  test('Bedrock: SigV4 with AWS keys (the fake model verifies the signature); a wrong secret is refused', async () => {
    const env = {
      CLAUDE_CODE_USE_BEDROCK: '1',
      AWS_REGION: 'us-east-1',
      ANTHROPIC_BEDROCK_BASE_URL: server.baseUrl,
      AWS_ACCESS_KEY_ID: AWS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: AWS.secretAccessKey,
    };
    expect(await ask(env, 'us.anthropic.claude-sonnet-5-5')).toBe('ok');
    expect(seen[0]?.url).toBe('/model/us.anthropic.claude-sonnet-5-5/invoke');
    expect(String(seen[0]?.headers.authorization)).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request/,
    );
    await expect(ask({ ...env, AWS_SECRET_ACCESS_KEY: 'not-the-secret' })).rejects.toMatchObject({ status: 403 });
  });

  test('Bedrock: AWS_BEARER_TOKEN_BEDROCK is sent as a bearer, with no SigV4', async () => {
    expect(
      await ask({
        CLAUDE_CODE_USE_BEDROCK: '1',
        AWS_REGION: 'eu-west-1',
        ANTHROPIC_BEDROCK_BASE_URL: server.baseUrl,
        AWS_BEARER_TOKEN_BEDROCK: 'fake-bedrock-api-key',
      }),
    ).toBe('ok');
    expect(seen[0]?.headers.authorization).toBe('Bearer fake-bedrock-api-key');
  });

  // google-auth-library's HTTP client loads node-fetch with a dynamic import, which jest's module
  // sandbox refuses: this one runs the built client in a process of its own.
  test('Vertex: a token from the (fake) GCE metadata server as the bearer; the region per model', async () => {
    const host = server.baseUrl.replace(/^http:\/\//, '');
    const script = `
      const { modelClientsFromConfig } = require(${JSON.stringify(join(DIST, 'activities/model/providers.js'))});
      const env = JSON.parse(process.argv[1]);
      (async () => {
        const clients = modelClientsFromConfig({ model: { provider: null, apiKeyEnv: 'ANTHROPIC_API_KEY', baseUrl: null, requestTimeoutMs: 10000 } }, env);
        for (const model of ['claude-sonnet-5-5', 'claude-haiku-4-5@20251001']) {
          const m = await clients.client(model).messages.create({ model, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
          console.log(m.content[0].text);
        }
      })().catch((e) => { console.error(e.message, e.cause && e.cause.message); process.exit(1); });`;
    const env = {
      CLAUDE_CODE_USE_VERTEX: '1',
      ANTHROPIC_VERTEX_BASE_URL: `${server.baseUrl}/v1`,
      ANTHROPIC_VERTEX_PROJECT_ID: 'conf-project',
      CLOUD_ML_REGION: 'us-east5',
      VERTEX_REGION_CLAUDE_5_5_SONNET: 'europe-west1',
    };
    // Not spawnSync: the fake model answers from this process.
    const r = await run(process.execPath, ['-e', script, JSON.stringify(env)], {
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: mkdtempSync(join(tmpdir(), 'prov-gce-')),
        GCE_METADATA_HOST: host,
        GCE_METADATA_IP: host,
        METADATA_SERVER_DETECTION: 'assume-present',
      },
      timeout: 60_000,
    }).then(
      (out) => ({ status: 0, stdout: out.stdout, stderr: out.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({
        status: e.code ?? 1,
        stdout: e.stdout,
        stderr: e.stderr,
      }),
    );
    expect(r).toMatchObject({ status: 0, stdout: 'ok\nok\n' });
    expect(seen.map((x) => x.headers.authorization)).toEqual([
      'Bearer ya29.fake-vertex-token',
      'Bearer ya29.fake-vertex-token',
    ]);
    expect(seen[0]?.url).toBe(
      '/v1/projects/conf-project/locations/europe-west1/publishers/anthropic/models/claude-sonnet-5-5:rawPredict',
    );
    expect(seen[1]?.url).toContain('/locations/us-east5/');
    expect(vertexRegion('claude-opus-4-5', { VERTEX_REGION_CLAUDE_4_5_OPUS: 'x', CLOUD_ML_REGION: 'y' })).toBe('x');
  });

  test('Vertex: CLAUDE_CODE_SKIP_VERTEX_AUTH with ANTHROPIC_AUTH_TOKEN sends that token (a gateway), without it nothing', async () => {
    const env = {
      CLAUDE_CODE_USE_VERTEX: '1',
      ANTHROPIC_VERTEX_BASE_URL: `${server.baseUrl}/v1`,
      ANTHROPIC_VERTEX_PROJECT_ID: 'conf-project',
      CLOUD_ML_REGION: 'global',
      CLAUDE_CODE_SKIP_VERTEX_AUTH: '1',
    };
    expect(await ask({ ...env, ANTHROPIC_AUTH_TOKEN: 'ya29.fake-vertex-token' })).toBe('ok');
    await expect(ask(env)).rejects.toMatchObject({ status: 401 });
  });

  test('Foundry: the key as x-api-key on <base>/v1/messages', async () => {
    expect(
      await ask({
        CLAUDE_CODE_USE_FOUNDRY: '1',
        ANTHROPIC_FOUNDRY_BASE_URL: `${server.baseUrl}/anthropic`,
        ANTHROPIC_FOUNDRY_API_KEY: 'fake-foundry-key',
      }),
    ).toBe('ok');
    expect(seen[0]).toMatchObject({ route: 'foundry', url: '/anthropic/v1/messages' });
    expect(seen[0]?.headers['x-api-key']).toBe('fake-foundry-key');
  });

  test('Anthropic API: ANTHROPIC_AUTH_TOKEN is a bearer with no x-api-key', async () => {
    const cfg = loadConfig({ env: { ANTHROPIC_BASE_URL: server.baseUrl } });
    const m = await modelClientsFromConfig(cfg, { ANTHROPIC_AUTH_TOKEN: 'fake-gateway-token' })
      .client()
      .messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    expect(m.content).toHaveLength(1);
    expect(seen[0]?.headers.authorization).toBe('Bearer fake-gateway-token');
    expect(seen[0]?.headers['x-api-key']).toBeUndefined();
  });

  test('Anthropic API: apiKeyHelper of the user settings; its key as x-api-key and bearer, run again after the TTL', async () => {
    const home = mkdtempSync(join(tmpdir(), 'prov-helper-'));
    mkdirSync(join(home, '.claude'));
    const counter = join(home, 'runs');
    writeFileSync(
      join(home, '.claude', 'settings.json'),
      JSON.stringify({ apiKeyHelper: `echo run >> ${counter}; echo fake-helper-key` }),
    );
    const cfg = loadConfig({ env: { ANTHROPIC_BASE_URL: server.baseUrl } });
    const client = modelClientsFromConfig(cfg, {
      HOME: home,
      PATH: process.env['PATH'] ?? '',
      CLAUDE_CODE_API_KEY_HELPER_TTL_MS: '300',
    }).client();
    const call = () =>
      client.messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    await call();
    await call();
    expect(seen.map((s) => [s.headers['x-api-key'], s.headers.authorization])).toEqual([
      ['fake-helper-key', 'Bearer fake-helper-key'],
      ['fake-helper-key', 'Bearer fake-helper-key'],
    ]);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(counter, 'utf8').trim().split('\n')).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 350));
    await call();
    expect(readFileSync(counter, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  test('providers: no credential at all is a non-retryable authentication failure, before any request', () => {
    const none = modelClientsFromConfig(config, { HOME: mkdtempSync(join(tmpdir(), 'prov-none-')) });
    expect(() => none.client()).toThrow(
      expect.objectContaining({ type: ModelErrorType.Authentication, nonRetryable: true }),
    );
    const foundry = modelClientsFromConfig(config, { CLAUDE_CODE_USE_FOUNDRY: '1' });
    expect(() => foundry.client()).toThrow(/ANTHROPIC_FOUNDRY_API_KEY is not set/);
  });

  test("providers: the SDK's own retries are off (a 529 is one request; Temporal retries)", async () => {
    const failing = await startFakeModelServer({
      responder: () => ({ errors: [{ status: 529 }, { status: 529 }, { status: 529 }], content: [{ text: 'x' }] }),
    });
    try {
      const env = {
        CLAUDE_CODE_USE_FOUNDRY: '1',
        ANTHROPIC_FOUNDRY_BASE_URL: `${failing.baseUrl}/anthropic`,
        ANTHROPIC_FOUNDRY_API_KEY: 'k',
      };
      const err = await modelClientsFromConfig(config, env)
        .client()
        .messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e);
      expect(classifyModelError(err).type).toBe(ModelErrorType.Overloaded);
      expect(failing.requests()).toHaveLength(1);
    } finally {
      await failing.close();
    }
  });

  test('provider prices: a provider id has its model price; regional Bedrock and Vertex endpoints cost 10% more', () => {
    const base = findPrice(config.prices, 'claude-sonnet-4-5');
    expect(findPrice(config.prices, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toEqual(base);
    expect(findPrice(config.prices, 'claude-haiku-4-5@20251001')).toEqual(findPrice(config.prices, 'claude-haiku-4-5'));
    const price = (model: string, provider: 'bedrock' | 'vertex', env: Record<string, string> = {}) =>
      providerPrice(findPrice(config.prices, model) ?? null, model, provider, env, false);
    expect(price('us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'bedrock')?.input).toBeCloseTo(3.3);
    expect(price('global.anthropic.claude-sonnet-4-5-20250929-v1:0', 'bedrock')?.input).toBe(3);
    expect(price('claude-sonnet-4-5@20250929', 'vertex', { CLOUD_ML_REGION: 'global' })?.input).toBe(3);
    expect(price('claude-sonnet-4-5@20250929', 'vertex', { CLOUD_ML_REGION: 'us-east5' })?.output).toBeCloseTo(16.5);
    // Older models have no regional premium.
    expect(price('us.anthropic.claude-sonnet-4-20250514-v1:0', 'bedrock')?.input).toBe(3);
  });
});
