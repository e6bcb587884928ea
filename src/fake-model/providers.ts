import type { IncomingHttpHeaders } from 'node:http';
import type { AwsCredentials } from './sigv4';

/**
 * The model providers' routes the fake model also serves, beside the Anthropic API's
 * `POST /v1/messages`, each with its own authentication:
 *
 * | provider | route | auth checked |
 * | --- | --- | --- |
 * | Anthropic | `POST /v1/messages` | `x-api-key` or `Authorization` present |
 * | Microsoft Foundry | `POST /anthropic/v1/messages` | `x-api-key`, `api-key` or `Authorization: Bearer` present |
 * | Amazon Bedrock | `POST /model/{modelId}/invoke`, `…/invoke-with-response-stream` | SigV4 (verified when `aws` credentials are given), or `Authorization: Bearer` (a Bedrock API key) |
 * | Google Vertex AI | `POST /v1/projects/{p}/locations/{l}/publishers/anthropic/models/{m}:rawPredict`, `…:streamRawPredict` | `Authorization: Bearer` (checked against `googleAccessToken` when given) |
 *
 * Bedrock and Vertex bodies carry no `model` (it is in the path) and Bedrock's no `stream` (the
 * route says); the handler puts both in before it reads the request as a Messages API body.
 * Bedrock streams in the binary event-stream framing (aws-event-stream.ts). Helper endpoints:
 * Bedrock's `GET /inference-profiles` (an empty list) and a GCE metadata server
 * (`/computeMetadata/v1/…`, for google-auth-library with `GCE_METADATA_HOST` pointed here), whose
 * token is `googleAccessToken`.
 */

/** A provider the fake model speaks for. */
export type ProviderName = 'anthropic' | 'foundry' | 'bedrock' | 'vertex';

/** A model route: whose, and what the path says. */
export interface ModelRoute {
  provider: ProviderName;
  /** The model id from the path (Bedrock, Vertex). */
  model?: string;
  /** Whether the path asks for a stream (Bedrock, Vertex). */
  stream?: boolean;
  /** Vertex project and region, Bedrock has none. */
  project?: string;
  region?: string;
}

/** Authentication settings of the provider routes. */
export interface ProviderAuthOptions {
  /** When set, Bedrock requests signed with SigV4 must verify with these credentials. */
  aws?: AwsCredentials;
  /** The access token the GCE metadata server hands out and Vertex requests must carry. @default 'ya29.fake-vertex-token' */
  googleAccessToken?: string;
}

/** The default access token of the fake GCE metadata server. */
export const DEFAULT_GOOGLE_ACCESS_TOKEN = 'ya29.fake-vertex-token';

/** The model route of a request, or undefined for any other path. */
export function matchModelRoute(method: string, pathname: string): ModelRoute | undefined {
  if (method !== 'POST') return undefined;
  if (pathname === '/v1/messages') return { provider: 'anthropic' };
  if (pathname === '/anthropic/v1/messages') return { provider: 'foundry' };
  const bedrock = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/.exec(pathname);
  if (bedrock) {
    return {
      provider: 'bedrock',
      model: decodeURIComponent(bedrock[1] ?? ''),
      stream: bedrock[2] === 'invoke-with-response-stream',
    };
  }
  const vertex =
    /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/.exec(
      pathname,
    );
  if (vertex) {
    return {
      provider: 'vertex',
      project: vertex[1] ?? '',
      region: vertex[2] ?? '',
      model: decodeURIComponent(vertex[3] ?? ''),
      stream: vertex[4] === 'streamRawPredict',
    };
  }
  return undefined;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Checks the credentials a model request carries for its provider (the SigV4 signature itself is
 * checked by the handler, which has the body).
 *
 * @returns an error message for a 401/403, or undefined when the request may proceed
 */
export function checkProviderAuth(
  route: ModelRoute,
  headers: IncomingHttpHeaders,
  opts: ProviderAuthOptions,
): { status: 401 | 403; message: string } | undefined {
  const authorization = header(headers, 'authorization') ?? '';
  switch (route.provider) {
    case 'anthropic':
      if (!header(headers, 'x-api-key') && authorization === '') {
        return { status: 401, message: 'x-api-key header is required' };
      }
      return undefined;
    case 'foundry':
      if (!header(headers, 'x-api-key') && !header(headers, 'api-key') && !authorization.startsWith('Bearer ')) {
        return { status: 401, message: 'Access denied due to missing subscription key or bearer token.' };
      }
      return undefined;
    case 'bedrock':
      if (authorization.startsWith('AWS4-HMAC-SHA256 ') || authorization.startsWith('Bearer ')) return undefined;
      return { status: 403, message: 'Missing Authentication Token' };
    case 'vertex': {
      const expected = opts.googleAccessToken ?? DEFAULT_GOOGLE_ACCESS_TOKEN;
      if (!authorization.startsWith('Bearer ')) {
        return {
          status: 401,
          message:
            'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        };
      }
      if (authorization !== `Bearer ${expected}`) {
        return { status: 401, message: 'Request had invalid authentication credentials.' };
      }
      return undefined;
    }
  }
}

/** A helper endpoint's answer: status, headers and a JSON or text body. */
export interface HelperResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Answers the helper endpoints: Bedrock's `GET /inference-profiles` and the GCE metadata server.
 * @returns undefined for any other route
 */
export function helperResponse(
  method: string,
  pathname: string,
  headers: IncomingHttpHeaders,
  opts: ProviderAuthOptions,
): HelperResponse | undefined {
  const json = (status: number, body: unknown, extra: Record<string, string> = {}): HelperResponse => ({
    status,
    headers: { 'content-type': 'application/json', ...extra },
    body: JSON.stringify(body),
  });
  if (method === 'GET' && pathname === '/inference-profiles') {
    return json(200, { inferenceProfileSummaries: [] });
  }
  if (method !== 'GET' || !(pathname === '/' || pathname.startsWith('/computeMetadata/'))) return undefined;
  const flavor = { 'metadata-flavor': 'Google' };
  if (pathname !== '/' && header(headers, 'metadata-flavor') !== 'Google') {
    return {
      status: 403,
      headers: { 'content-type': 'text/plain', ...flavor },
      body: 'Missing Metadata-Flavor:Google header.',
    };
  }
  const text = (body: string): HelperResponse => ({
    status: 200,
    headers: { 'content-type': 'application/text', ...flavor },
    body,
  });
  switch (pathname.replace(/\/+$/, '')) {
    case '':
    case '/computeMetadata/v1':
    case '/computeMetadata/v1/instance':
      return text('');
    case '/computeMetadata/v1/project/project-id':
      return text('fake-gcp-project');
    case '/computeMetadata/v1/instance/service-accounts/default/email':
      return text('fake-sa@fake-gcp-project.iam.gserviceaccount.com');
    case '/computeMetadata/v1/instance/service-accounts/default/token':
      return json(
        200,
        { access_token: opts.googleAccessToken ?? DEFAULT_GOOGLE_ACCESS_TOKEN, expires_in: 3599, token_type: 'Bearer' },
        flavor,
      );
    default:
      return { status: 404, headers: { 'content-type': 'text/plain', ...flavor }, body: 'Not Found' };
  }
}
