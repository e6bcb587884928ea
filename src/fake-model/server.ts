import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiErrorBody } from './api-errors';
import type { BatchSummary, BatchTiming } from './batches';
import { FakeBatches } from './batches';
import { readBody, sendJson } from './http-util';
import type { Responder } from './messages-handler';
import { handleMessages } from './messages-handler';
import type { CacheStats } from './prompt-cache';
import { PromptCacheSimulator, estimatePromptTokens } from './prompt-cache';
import type { ProviderAuthOptions } from './providers';
import type { RateLimitOptions } from './rate-limits';
import { RateLimiter } from './rate-limits';
import { helperResponse, matchModelRoute } from './providers';
import { parseRequestBody } from './request';
import type { RequestLogEntry } from './request-log';
import { RequestLog } from './request-log';
import type { Scenario, ScenarioInput } from './scenario';
import { loadScenarioFile, parseScenario } from './scenario';

/** Options of {@link startFakeModelServer}. Give one of `scenario`, `scenarioPath`, `responder`. */
export interface FakeModelServerOptions {
  /** A scenario object (canonical or `steps` shorthand); validated like a file. */
  scenario?: ScenarioInput;
  /** Path of a YAML or JSON scenario file. */
  scenarioPath?: string;
  /** Generates steps in code; takes precedence over a scenario. */
  responder?: Responder;
  /** Interface to listen on. @default '127.0.0.1' */
  host?: string;
  /** Port; 0 picks a free one. @default 0 */
  port?: number;
  /** Delay before every `/v1/messages` response's headers, in ms. @default 0 */
  latencyMs?: number;
  /** Time from a Message Batch's creation to the processing of its requests, in ms. @default 0 */
  batchProcessingMs?: number;
  /** Time from a Message Batch's creation after which its unprocessed requests expire, in ms. @default 86_400_000 (the API's 24 h) */
  batchExpiresAfterMs?: number;
  /**
   * Context window in tokens: a request whose estimated prompt (`ceil(chars / 4)`) is larger gets
   * HTTP 400 `prompt is too long: N tokens > M maximum`, as the API answers. @default no limit
   */
  contextWindow?: number;
  /** When set, each log entry is also appended to this file as a JSONL line. */
  logPath?: string;
  /** Called with each log entry as it is recorded (the CLI prints them). */
  onRequest?: (entry: RequestLogEntry) => void;
  /** Called as each HTTP request arrives, whatever its route (to see what else a client asks for). */
  onHttpRequest?: (req: IncomingMessage) => void;
  /**
   * Credentials the provider routes check: AWS keys for Bedrock's SigV4, the access token of the
   * GCE metadata server for Vertex (providers.ts). @default no SigV4 verification; token `ya29.fake-vertex-token`
   */
  providerAuth?: ProviderAuthOptions;
  /**
   * Requests / input tokens / output tokens per minute, enforced as the API does (token buckets;
   * 429 `rate_limit_error` with `retry-after`; `anthropic-ratelimit-*` headers on every response).
   * @default no limits
   */
  rateLimits?: RateLimitOptions;
}

/** A running fake model server. */
export interface FakeModelServer {
  /** `http://HOST:PORT`, usable as the SDK's `baseURL` / `ANTHROPIC_BASE_URL`. */
  readonly baseUrl: string;
  /** The port listened on. */
  readonly port: number;
  /** All `/v1/messages` requests so far, by arrival (`seq`); requests still in flight are absent. */
  requests(): RequestLogEntry[];
  /** The log entries with outcome `completed`. */
  completedCalls(): RequestLogEntry[];
  /** Token totals of the prompt-cache simulation. */
  cacheStats(): CacheStats;
  /** The Message Batches created so far (status, counts, custom_ids), by creation. */
  batches(): BatchSummary[];
  /** Changes the batch timing for batches created from now on (as `POST /_fake/batches/config`). */
  configureBatches(timing: Partial<BatchTiming>): BatchTiming;
  /** Requests refused with 429 by {@link FakeModelServerOptions.rateLimits} so far. */
  rateLimited(): number;
  /** Clears the log, attempt counters, the simulated cache and the batches (as `POST /_fake/reset`). */
  reset(): void;
  /** Stops listening, drops open connections and waits for in-flight handlers. */
  close(): Promise<void>;
}

function newRequestId(): string {
  return `req_01fake${randomBytes(10).toString('hex')}`;
}

function loadScenario(opts: FakeModelServerOptions): Scenario | undefined {
  if (opts.scenario !== undefined) return parseScenario(opts.scenario);
  if (opts.scenarioPath !== undefined) return loadScenarioFile(opts.scenarioPath);
  return undefined;
}

/**
 * Starts a loopback HTTP server speaking the Anthropic Messages API (`POST /v1/messages`,
 * streaming and not, and `POST /v1/messages/count_tokens`) from scripted steps, plus
 * `GET /_fake/log`, `POST /_fake/reset` and `GET /_fake/health`.
 *
 * @throws ScenarioError when the scenario is invalid; Error when none of scenario,
 *   scenarioPath, responder is given or the port cannot be bound
 */
export async function startFakeModelServer(opts: FakeModelServerOptions): Promise<FakeModelServer> {
  const scenario = loadScenario(opts);
  if (scenario === undefined && opts.responder === undefined) {
    throw new Error('startFakeModelServer: give one of scenario, scenarioPath or responder');
  }
  const log = new RequestLog(opts.logPath, opts.onRequest);
  const cache = new PromptCacheSimulator();
  const attempts = new Map<string, number>();
  const deps = {
    scenario,
    responder: opts.responder,
    latencyMs: opts.latencyMs ?? 0,
    contextWindow: opts.contextWindow,
    cache,
    log,
    attempts,
    providerAuth: opts.providerAuth,
    redactedIssued: new Set<string>(),
    rateLimiter: new RateLimiter(opts.rateLimits ?? {}),
  };
  let baseUrl = '';
  const batches = new FakeBatches(() => baseUrl, {
    ...(opts.batchProcessingMs !== undefined ? { processingMs: opts.batchProcessingMs } : {}),
    ...(opts.batchExpiresAfterMs !== undefined ? { expiresAfterMs: opts.batchExpiresAfterMs } : {}),
  });
  const reset = (): void => {
    batches.reset();
    log.clear();
    cache.reset();
    attempts.clear();
  };
  let seq = 0;
  const inFlight = new Set<Promise<void>>();

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const requestId = newRequestId();
    opts.onHttpRequest?.(req);
    res.setHeader('request-id', requestId);
    const path = new URL(req.url ?? '/', 'http://fake').pathname.replace(/\/+$/, '');
    const key = `${req.method ?? 'GET'} ${path}`;
    const modelRoute = matchModelRoute(req.method ?? 'GET', path);
    if (modelRoute !== undefined) {
      seq += 1;
      const startedMs = Date.now();
      const meta = { seq, at: new Date(startedMs).toISOString(), requestId, startedMs };
      return handleMessages(req, res, deps, meta, modelRoute);
    }
    const helper = helperResponse(req.method ?? 'GET', path === '' ? '/' : path, req.headers, opts.providerAuth ?? {});
    if (helper !== undefined) {
      res.writeHead(helper.status, helper.headers).end(helper.body);
      return;
    }
    if (key === 'POST /v1/messages/count_tokens') {
      const read = await readBody(req, 32 * 1024 * 1024);
      let parsed: ReturnType<typeof parseRequestBody> = { ok: false, message: 'request too large' };
      try {
        if (read.ok) parsed = parseRequestBody({ max_tokens: 1, ...JSON.parse(read.body.toString('utf8')) });
      } catch (e) {
        parsed = { ok: false, message: (e as Error).message };
      }
      if (!parsed.ok) return sendJson(res, 400, apiErrorBody('invalid_request_error', parsed.message, requestId));
      return sendJson(res, 200, { input_tokens: estimatePromptTokens(parsed.request) });
    }
    if (path.startsWith('/v1/messages/batches') && (await batches.handle(req, res, path, requestId))) return;
    if (key === 'POST /_fake/batches/config') {
      const read = await readBody(req, 64 * 1024);
      let timing: Partial<BatchTiming> = {};
      try {
        const body = read.ok ? (JSON.parse(read.body.toString('utf8') || '{}') as Record<string, unknown>) : {};
        const ms = (k: string): number | undefined => {
          const v = body[k];
          if (v === undefined) return undefined;
          if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
            throw new Error(`${k}: must be a number of ms >= 0`);
          return v;
        };
        const processingMs = ms('processing_ms');
        const expiresAfterMs = ms('expires_after_ms');
        timing = {
          ...(processingMs !== undefined ? { processingMs } : {}),
          ...(expiresAfterMs !== undefined ? { expiresAfterMs } : {}),
        };
      } catch (e) {
        return sendJson(res, 400, apiErrorBody('invalid_request_error', (e as Error).message, requestId));
      }
      const now = batches.configure(timing);
      return sendJson(res, 200, { processing_ms: now.processingMs, expires_after_ms: now.expiresAfterMs });
    }
    if (key === 'GET /_fake/batches') return sendJson(res, 200, { batches: batches.summaries() });
    if (key === 'GET /_fake/log') {
      return sendJson(res, 200, { requests: log.all(), cacheStats: cache.stats() });
    }
    if (key === 'POST /_fake/reset') {
      reset();
      return sendJson(res, 200, { ok: true });
    }
    if (key === 'GET /_fake/health') return sendJson(res, 200, { ok: true });
    return sendJson(res, 404, apiErrorBody('not_found_error', `Not found: ${key}`, requestId));
  };

  const server = createServer((req, res) => {
    const p = route(req, res)
      .catch((e: unknown) => {
        if (!res.headersSent && !res.destroyed) {
          sendJson(res, 500, apiErrorBody('api_error', `fake-model: ${(e as Error).message}`, 'req_fake_internal'));
        } else {
          res.destroy();
        }
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  baseUrl = `http://${host}:${address.port}`;

  return {
    baseUrl,
    port: address.port,
    requests: () => log.all(),
    completedCalls: () => log.all().filter((e) => e.outcome === 'completed'),
    cacheStats: () => cache.stats(),
    batches: () => batches.summaries(),
    configureBatches: (timing) => batches.configure(timing),
    rateLimited: () => deps.rateLimiter.refused,
    reset,
    close: async () => {
      batches.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await Promise.allSettled([...inFlight]);
      await closed;
    },
  };
}
