/**
 * Where a worker's model client finds its credentials, per provider, as Claude Code 2.1.328 reads
 * them (docs/reference/claude-code-commands-skills-model.md, "Providers"). Credentials are read by
 * the worker from its own environment and settings, never from workflow input (DESIGN.md rule 6).
 * Shared by the worker (src/activities/model/providers.ts), the preflight that refuses to start a
 * worker that could not call the model, and the shared server's environment fingerprint.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ModelProvider } from '../common/model-capabilities';
import { envFlag } from './provider';

type Env = Readonly<Record<string, string | undefined>>;

/** Environment variables each provider's client reads (their values are the worker's settings). */
export const PROVIDER_ENV_NAMES: Readonly<Record<ModelProvider, readonly string[]>> = {
  firstParty: ['ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_CUSTOM_HEADERS'],
  bedrock: [
    'AWS_REGION',
    'AWS_DEFAULT_REGION',
    'AWS_PROFILE',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'AWS_BEARER_TOKEN_BEDROCK',
    'ANTHROPIC_BEDROCK_BASE_URL',
    'AWS_ENDPOINT_URL_BEDROCK_RUNTIME',
    'CLAUDE_CODE_SKIP_BEDROCK_AUTH',
  ],
  vertex: [
    'ANTHROPIC_VERTEX_PROJECT_ID',
    'CLOUD_ML_REGION',
    'ANTHROPIC_VERTEX_BASE_URL',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'CLAUDE_CODE_SKIP_VERTEX_AUTH',
    'ANTHROPIC_AUTH_TOKEN',
  ],
  foundry: [
    'ANTHROPIC_FOUNDRY_API_KEY',
    'ANTHROPIC_FOUNDRY_AUTH_TOKEN',
    'ANTHROPIC_FOUNDRY_BASE_URL',
    'ANTHROPIC_FOUNDRY_RESOURCE',
    'CLAUDE_CODE_SKIP_FOUNDRY_AUTH',
  ],
};

/**
 * Variables that hold a model credential and nothing else: kept out of tool processes (AWS's
 * general keys are not: a Bash command may need them for its own work; `tools.secretEnv` adds them).
 */
export const MODEL_SECRET_ENV_NAMES: readonly string[] = [
  'ANTHROPIC_AUTH_TOKEN',
  'AWS_BEARER_TOKEN_BEDROCK',
  'ANTHROPIC_FOUNDRY_API_KEY',
  'ANTHROPIC_FOUNDRY_AUTH_TOKEN',
];

/** The user settings file Claude Code reads `apiKeyHelper` from: `$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`. */
export function userSettingsPath(env: Env): string {
  const dir = env['CLAUDE_CONFIG_DIR'] ?? join(env['HOME'] ?? homedir(), '.claude');
  return join(dir, 'settings.json');
}

/**
 * The `apiKeyHelper` command of the worker's user settings, or undefined. Only the user's own
 * settings are read: a repository cannot make the worker run a command to get a key.
 */
export function apiKeyHelperOf(env: Env): string | undefined {
  const file = userSettingsPath(env);
  if (!existsSync(file)) return undefined;
  try {
    const v = (JSON.parse(readFileSync(file, 'utf8')) as { apiKeyHelper?: unknown }).apiKeyHelper;
    return typeof v === 'string' && v.trim() !== '' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** How the first-party client authenticates: an API key, a bearer token, a helper command, or nothing found. */
export type FirstPartyAuth =
  | { kind: 'apiKey'; name: string }
  | { kind: 'authToken' }
  | { kind: 'apiKeyHelper'; command: string }
  | { kind: 'none' };

/** The first-party credential a worker uses: `model.apiKeyEnv`, else `ANTHROPIC_AUTH_TOKEN`, else settings `apiKeyHelper`. */
export function firstPartyAuth(apiKeyEnv: string, env: Env): FirstPartyAuth {
  if (env[apiKeyEnv]) return { kind: 'apiKey', name: apiKeyEnv };
  if (env['ANTHROPIC_AUTH_TOKEN']) return { kind: 'authToken' };
  const command = apiKeyHelperOf(env);
  return command !== undefined ? { kind: 'apiKeyHelper', command } : { kind: 'none' };
}

/**
 * Why a worker with this environment could not call the model, or null when it can try (Bedrock
 * and Vertex may find credentials in their SDKs' default chains, which only a call can tell).
 */
export function missingModelCredential(provider: ModelProvider, apiKeyEnv: string, env: Env): string | null {
  switch (provider) {
    case 'firstParty':
      return firstPartyAuth(apiKeyEnv, env).kind === 'none'
        ? `${apiKeyEnv} is not set (nor ANTHROPIC_AUTH_TOKEN, nor apiKeyHelper in ${userSettingsPath(env)})`
        : null;
    case 'bedrock':
      return null;
    case 'vertex':
      return env['CLOUD_ML_REGION'] ? null : 'CLOUD_ML_REGION is not set (Vertex needs a region, or "global")';
    case 'foundry':
      if (
        !envFlag(env['CLAUDE_CODE_SKIP_FOUNDRY_AUTH']) &&
        !env['ANTHROPIC_FOUNDRY_API_KEY'] &&
        !env['ANTHROPIC_FOUNDRY_AUTH_TOKEN']
      )
        return 'ANTHROPIC_FOUNDRY_API_KEY is not set (nor ANTHROPIC_FOUNDRY_AUTH_TOKEN)';
      if (!env['ANTHROPIC_FOUNDRY_BASE_URL'] && !env['ANTHROPIC_FOUNDRY_RESOURCE'])
        return 'ANTHROPIC_FOUNDRY_BASE_URL is not set (nor ANTHROPIC_FOUNDRY_RESOURCE)';
      return null;
  }
}
