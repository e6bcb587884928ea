/**
 * The worker's model clients, per provider, with Claude Code 2.1.328's environment variables
 * (docs/providers.md): the Anthropic API (`model.apiKeyEnv`, `ANTHROPIC_AUTH_TOKEN` for a bearer
 * gateway, or the user settings' `apiKeyHelper`), Amazon Bedrock (`@anthropic-ai/bedrock-sdk`:
 * SigV4 from the AWS credential chain, or `AWS_BEARER_TOKEN_BEDROCK`), Google Vertex AI
 * (`@anthropic-ai/vertex-sdk`: Google's application default credentials; `VERTEX_REGION_CLAUDE_*`
 * per model) and Microsoft Foundry (`@anthropic-ai/foundry-sdk`). Every client has the SDK's own
 * retries off (Temporal retries) and the configured timeout. A provider's SDK loads only when it
 * is used. Credentials are read from the worker's environment when the first call needs them and
 * never leave the worker.
 */
import { execFile } from 'node:child_process';
import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../../config';
import { ModelErrorType } from '../../common/model';
import type { ModelProvider } from '../../common/model-capabilities';
import { canonicalModelId } from '../../common/model-capabilities';
import { envFlag, modelProviderOf } from '../../config/provider';
import { firstPartyAuth, missingModelCredential } from '../../config/model-credentials';
import type { ModelClient } from './call-model';
import type * as BedrockSdk from '@anthropic-ai/bedrock-sdk';
import type * as VertexSdk from '@anthropic-ai/vertex-sdk';
import type * as FoundrySdk from '@anthropic-ai/foundry-sdk';

type Env = Readonly<Record<string, string | undefined>>;

/** A provider's clients, by model (Vertex serves each model from its own region). */
export interface ModelClients {
  provider: ModelProvider;
  /**
   * The client for `model`.
   * @throws ApplicationFailure `ModelError.Authentication` (non-retryable) when the worker has no
   *   credential for the provider
   */
  client(model?: string): ModelClient;
}

/** How long an `apiKeyHelper` key is used before the helper runs again (ms). Env: `CLAUDE_CODE_API_KEY_HELPER_TTL_MS`. */
export const API_KEY_HELPER_TTL_MS = 5 * 60 * 1000;

function missing(message: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: ModelErrorType.Authentication,
    nonRetryable: true,
    message: `${message} in the worker's environment: the model cannot be called`,
  });
}

/** `ANTHROPIC_CUSTOM_HEADERS` (`Name: value` lines), as Claude Code sends them. */
function customHeaders(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of (env['ANTHROPIC_CUSTOM_HEADERS'] ?? '').split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return out;
}

/**
 * The Vertex region of a model: `VERTEX_REGION_CLAUDE_<VERSION>_<FAMILY>` (Claude Code's names:
 * `claude-sonnet-5-5` → `VERTEX_REGION_CLAUDE_5_5_SONNET`, `claude-haiku-4-5` →
 * `VERTEX_REGION_CLAUDE_4_5_HAIKU`), else `CLOUD_ML_REGION`.
 */
export function vertexRegion(model: string | undefined, env: Env): string | undefined {
  const m = model === undefined ? null : /^claude-(opus|sonnet|haiku)-(\d+)(?:-(\d))?/.exec(canonicalModelId(model));
  if (m) {
    const version = m[3] !== undefined ? `${m[2]}_${m[3]}` : m[2];
    const own = env[`VERTEX_REGION_CLAUDE_${version}_${(m[1] ?? '').toUpperCase()}`];
    if (own) return own;
  }
  return env['CLOUD_ML_REGION'];
}

/** Runs an `apiKeyHelper` command with a shell; its trimmed stdout is the key. */
function runHelper(command: string, env: Env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('/bin/sh', ['-c', command], { env: { ...env }, timeout: 60_000 }, (err, stdout) => {
      const key = String(stdout).trim();
      if (err || key === '') reject(missing(`apiKeyHelper "${command}" gave no key${err ? ` (${err.message})` : ''}`));
      else resolve(key);
    });
  });
}

/**
 * A `fetch` for the first-party client that takes its key from `apiKeyHelper` (cached for the
 * TTL, fetched again after a 401) and sends it as Claude Code does: `x-api-key` and
 * `Authorization: Bearer`.
 */
function helperFetch(command: string, env: Env): typeof fetch {
  const ttl =
    Number(env['CLAUDE_CODE_API_KEY_HELPER_TTL_MS']) > 0
      ? Number(env['CLAUDE_CODE_API_KEY_HELPER_TTL_MS'])
      : API_KEY_HELPER_TTL_MS;
  let cached: { key: string; at: number } | undefined;
  return async (input, init) => {
    if (!cached || Date.now() - cached.at > ttl) cached = { key: await runHelper(command, env), at: Date.now() };
    const headers = new Headers(init?.headers);
    headers.set('x-api-key', cached.key);
    headers.set('authorization', `Bearer ${cached.key}`);
    const res = await fetch(input, { ...init, headers });
    if (res.status === 401) cached = undefined;
    return res;
  };
}

function firstParty(config: Pick<Config, 'model'>, env: Env): ModelClient {
  const auth = firstPartyAuth(config.model.apiKeyEnv, env);
  const common = {
    ...(config.model.baseUrl ? { baseURL: config.model.baseUrl } : {}),
    maxRetries: 0,
    timeout: config.model.requestTimeoutMs,
    defaultHeaders: customHeaders(env),
  };
  switch (auth.kind) {
    case 'apiKey':
      return new Anthropic({ ...common, apiKey: env[auth.name] ?? null, authToken: null });
    case 'authToken':
      return new Anthropic({ ...common, apiKey: null, authToken: env['ANTHROPIC_AUTH_TOKEN'] ?? null });
    case 'apiKeyHelper':
      return new Anthropic({
        ...common,
        apiKey: 'from-api-key-helper',
        authToken: null,
        fetch: helperFetch(auth.command, env),
      });
    case 'none':
      throw missing(`${config.model.apiKeyEnv} is not set (nor ANTHROPIC_AUTH_TOKEN, nor an apiKeyHelper)`);
  }
}

/* eslint-disable @typescript-eslint/no-require-imports -- each provider's SDK loads only when used */
function bedrock(config: Pick<Config, 'model'>, env: Env): ModelClient {
  const { AnthropicBedrock } = require('@anthropic-ai/bedrock-sdk') as typeof BedrockSdk;
  const region = env['AWS_REGION'] ?? env['AWS_DEFAULT_REGION'] ?? 'us-east-1';
  const baseURL = env['ANTHROPIC_BEDROCK_BASE_URL'] ?? env['AWS_ENDPOINT_URL_BEDROCK_RUNTIME'];
  const bearer = env['AWS_BEARER_TOKEN_BEDROCK'];
  const keys =
    env['AWS_ACCESS_KEY_ID'] && env['AWS_SECRET_ACCESS_KEY']
      ? {
          awsAccessKey: env['AWS_ACCESS_KEY_ID'],
          awsSecretKey: env['AWS_SECRET_ACCESS_KEY'],
          ...(env['AWS_SESSION_TOKEN'] ? { awsSessionToken: env['AWS_SESSION_TOKEN'] } : {}),
        }
      : {};
  return new AnthropicBedrock({
    awsRegion: region,
    ...(baseURL ? { baseURL } : {}),
    // A Bedrock API key, else SigV4 with the keys given or the AWS credential chain (profiles, SSO, instance roles).
    apiKey: bearer ?? null,
    ...(bearer ? {} : keys),
    ...(envFlag(env['CLAUDE_CODE_SKIP_BEDROCK_AUTH']) ? { skipAuth: true } : {}),
    maxRetries: 0,
    timeout: config.model.requestTimeoutMs,
    defaultHeaders: customHeaders(env),
  }) as unknown as ModelClient;
}

function vertex(config: Pick<Config, 'model'>, env: Env, region: string): ModelClient {
  const { AnthropicVertex } = require('@anthropic-ai/vertex-sdk') as typeof VertexSdk;
  const token = env['ANTHROPIC_AUTH_TOKEN'];
  // CLAUDE_CODE_SKIP_VERTEX_AUTH: no Google credentials (a gateway), with ANTHROPIC_AUTH_TOKEN as its bearer.
  const skip = envFlag(env['CLAUDE_CODE_SKIP_VERTEX_AUTH']);
  const authClient = skip
    ? {
        projectId: env['ANTHROPIC_VERTEX_PROJECT_ID'] ?? null,
        getRequestHeaders: async () => new Headers(token ? { authorization: `Bearer ${token}` } : {}),
      }
    : undefined;
  return new AnthropicVertex({
    region,
    ...(env['ANTHROPIC_VERTEX_PROJECT_ID'] ? { projectId: env['ANTHROPIC_VERTEX_PROJECT_ID'] } : {}),
    ...(env['ANTHROPIC_VERTEX_BASE_URL'] ? { baseURL: env['ANTHROPIC_VERTEX_BASE_URL'] } : {}),
    ...(authClient ? { authClient: authClient as never } : {}),
    maxRetries: 0,
    timeout: config.model.requestTimeoutMs,
    defaultHeaders: customHeaders(env),
  }) as unknown as ModelClient;
}

function foundry(config: Pick<Config, 'model'>, env: Env): ModelClient {
  const { AnthropicFoundry } = require('@anthropic-ai/foundry-sdk') as typeof FoundrySdk;
  const token = env['ANTHROPIC_FOUNDRY_AUTH_TOKEN'];
  const key = env['ANTHROPIC_FOUNDRY_API_KEY'];
  const skip = envFlag(env['CLAUDE_CODE_SKIP_FOUNDRY_AUTH']);
  return new AnthropicFoundry({
    ...(env['ANTHROPIC_FOUNDRY_BASE_URL'] ? { baseURL: env['ANTHROPIC_FOUNDRY_BASE_URL'] } : {}),
    ...(!env['ANTHROPIC_FOUNDRY_BASE_URL'] && env['ANTHROPIC_FOUNDRY_RESOURCE']
      ? { resource: env['ANTHROPIC_FOUNDRY_RESOURCE'] }
      : {}),
    ...(key || skip ? { apiKey: key ?? 'skip-auth' } : { azureADTokenProvider: async () => token ?? '' }),
    maxRetries: 0,
    timeout: config.model.requestTimeoutMs,
    defaultHeaders: customHeaders(env),
  }) as unknown as ModelClient;
}
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * The model clients of a worker: the provider of config `model.provider` (else the environment's
 * `CLAUDE_CODE_USE_BEDROCK`/`_VERTEX`/`_FOUNDRY`), built on first use from `env`.
 */
export function modelClientsFromConfig(config: Pick<Config, 'model'>, env: Env = process.env): ModelClients {
  const provider = modelProviderOf(config.model, env);
  const clients = new Map<string, ModelClient>();
  const once = (key: string, make: () => ModelClient): ModelClient => {
    let c = clients.get(key);
    if (!c) {
      c = make();
      clients.set(key, c);
    }
    return c;
  };
  return {
    provider,
    client(model) {
      const absent = missingModelCredential(provider, config.model.apiKeyEnv, env);
      if (absent !== null) throw missing(absent);
      switch (provider) {
        case 'firstParty':
          return once('', () => firstParty(config, env));
        case 'bedrock':
          return once('', () => bedrock(config, env));
        case 'foundry':
          return once('', () => foundry(config, env));
        case 'vertex': {
          const region = vertexRegion(model, env) ?? '';
          return once(region, () => vertex(config, env, region));
        }
      }
    },
  };
}

/** Models priced 10% higher on Bedrock's and Vertex's regional endpoints than on their global ones. */
const REGIONAL_PREMIUM_MODELS = /^claude-(?:(?:opus|sonnet|haiku)-4-[5-9]|(?:opus|sonnet|haiku)-[5-9])/;

/**
 * The price of a call through a provider: Bedrock and Vertex bill their regional endpoints 10%
 * above the global ones for Claude Sonnet 4.5, Haiku 4.5, Opus 4.5 and later (Anthropic's pricing
 * page, "Third-party platform pricing", https://platform.claude.com/docs/en/about-claude/pricing,
 * checked 2026-12): a Bedrock id with a geographic prefix (`us.`, `eu.`, `apac.`) or none, and a
 * Vertex region other than `global`. An entry for the provider's own id in `prices` is used as it is.
 */
export function providerPrice<
  P extends { input: number; output: number; cacheWrite5m: number; cacheWrite1h: number; cacheRead: number },
>(price: P | null, model: string, provider: ModelProvider, env: Env, ownEntry: boolean): P | null {
  if (!price || ownEntry || !REGIONAL_PREMIUM_MODELS.test(canonicalModelId(model))) return price;
  const regional =
    provider === 'bedrock'
      ? !/^global\./.test(model)
      : provider === 'vertex'
        ? vertexRegion(model, env) !== 'global'
        : false;
  if (!regional) return price;
  const up = (n: number): number => Math.round(n * 1.1 * 1e6) / 1e6;
  return {
    ...price,
    input: up(price.input),
    output: up(price.output),
    cacheWrite5m: up(price.cacheWrite5m),
    cacheWrite1h: up(price.cacheWrite1h),
    cacheRead: up(price.cacheRead),
  };
}
