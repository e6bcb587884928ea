import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { apiErrorBody, defaultErrorMessage, errorTypeForStatus, statusForErrorType } from './api-errors';
import { bedrockChunk } from './aws-event-stream';
import { FAKE_BATCH_HEADER, FAKE_BATCH_RESULT_HEADER } from './batches';
import { EXPECTATION_FAILED_PREFIX, checkExpectations } from './expectations';
import { endResponse, readBody, sendJson, sleep, writeChunk } from './http-util';
import type { PromptCacheSimulator } from './prompt-cache';
import type { RateLimiter } from './rate-limits';
import type { ModelRoute, ProviderAuthOptions } from './providers';
import { checkProviderAuth } from './providers';
import { countBreakpoints, estimatePromptTokens } from './prompt-cache';
import type { ParsedRequest } from './request';
import {
  assistantCount,
  checkToolPairing,
  conversationKey,
  firstUserText,
  parseRequestBody,
  toolResultIds,
  workingDirectory,
} from './request';
import type { BilledUsage, RequestLog, RequestLogEntry, RequestOutcome } from './request-log';
import { buildResponse, wireContent } from './response';
import type { ResponseUsage } from './response';
import type { FaultSpec, Scenario, Script, Step, StepSpec } from './scenario';
import { parseStep } from './scenario';
import { verifySigV4 } from './sigv4';
import { checkThinkingBlocks, thinkingBudgetError } from './thinking-signatures';
import type { SseEvent } from './sse';
import { errorEvent, formatSse, malformedEvent, messageEvents } from './sse';

/** What a {@link Responder} is told about a request. */
export interface ResponderContext {
  /** Step index: number of assistant messages in the request. */
  step: number;
  /** Attempt number of (conversationKey, step), from 1. */
  attempt: number;
  conversationKey: string;
  /** HTTP headers of the request (lower-case names), e.g. `anthropic-beta`, `x-api-key`. */
  headers?: IncomingHttpHeaders;
  /** Path of the request URL (with its query), e.g. `/v1/messages?beta=true`. */
  url?: string;
  /** Which provider's route the request came by (Bedrock and Vertex name the model in the path). */
  route?: ModelRoute;
  /**
   * The body as it arrived, when the handler changed it: Bedrock and Vertex bodies get `model`
   * (and Bedrock's `stream`) from the path before they are read as a Messages API request.
   */
  rawBody?: unknown;
}

/**
 * Generates the step for a request in code instead of a scenario file. It may return faults in
 * `errors` (applied by attempt as for scripted steps). Throwing answers HTTP 400.
 */
export type Responder = (req: ParsedRequest, ctx: ResponderContext) => StepSpec | Promise<StepSpec>;

/** Shared state of the `/v1/messages` handler. */
export interface MessagesHandlerDeps {
  scenario: Scenario | undefined;
  responder: Responder | undefined;
  /** Delay added before every response's headers, in ms. */
  latencyMs: number;
  /** Context window in tokens: a larger prompt (estimate) gets 400 "prompt is too long". */
  contextWindow?: number | undefined;
  cache: PromptCacheSimulator;
  log: RequestLog;
  /** Attempts so far per `JSON.stringify([conversationKey, step])`. */
  attempts: Map<string, number>;
  /** Credentials the provider routes check (providers.ts). */
  providerAuth?: ProviderAuthOptions | undefined;
  /** `redacted_thinking` data sent so far: only these may come back (thinking-signatures.ts). */
  redactedIssued?: Set<string>;
  /** Requests and tokens per minute enforced (429 + `retry-after`), with `anthropic-ratelimit-*` headers. */
  rateLimiter?: RateLimiter | undefined;
}

/** Identity of one HTTP request. */
export interface RequestMeta {
  seq: number;
  at: string;
  requestId: string;
  startedMs: number;
}

/** Largest accepted body, in bytes (the API's 32 MB limit). */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * The script for a conversation: the first whose `match.promptContains` is in the first user
 * message, else the first without `match`.
 */
export function selectScript(scenario: Scenario, firstUserMessage: string): Script | undefined {
  const matched = scenario.scripts.find(
    (s) => s.match?.promptContains !== undefined && firstUserMessage.includes(s.match.promptContains),
  );
  return matched ?? scenario.scripts.find((s) => s.match?.promptContains === undefined);
}

type StepResolution = { ok: true; script: string; step: Step } | { ok: false; script: string; message: string };

async function resolveStep(
  deps: MessagesHandlerDeps,
  req: ParsedRequest,
  ctx: ResponderContext,
): Promise<StepResolution> {
  if (deps.responder !== undefined) {
    try {
      const spec = await deps.responder(req, ctx);
      return { ok: true, script: 'responder', step: parseStep(spec, 'responder step') };
    } catch (e) {
      return { ok: false, script: 'responder', message: `fake-model: responder failed: ${(e as Error).message}` };
    }
  }
  const scenario = deps.scenario;
  if (scenario === undefined) return { ok: false, script: '', message: 'fake-model: no scenario loaded' };
  const first = firstUserText(req);
  const script = selectScript(scenario, first);
  if (script === undefined) {
    return {
      ok: false,
      script: '',
      message: `fake-model: no script matches the first user message ${JSON.stringify(first.slice(0, 200))} (scripts: ${scenario.scripts.map((s) => s.name).join(', ')})`,
    };
  }
  const step = script.steps[ctx.step];
  if (step === undefined) {
    return {
      ok: false,
      script: script.name,
      message: `fake-model: script "${script.name}" has no step ${ctx.step} (it has ${script.steps.length} steps, 0-based; step = number of assistant messages in the request)`,
    };
  }
  return { ok: true, script: script.name, step };
}

function billedOf(u: ResponseUsage): BilledUsage {
  return {
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
    cache_creation_input_tokens: u.cache_creation_input_tokens,
    cache_read_input_tokens: u.cache_read_input_tokens,
  };
}

/**
 * Handles a model request (streaming and not), logging one entry: `POST /v1/messages`, or a
 * provider's route (providers.ts), whose authentication it checks and whose framing it answers in.
 */
export async function handleMessages(
  httpReq: IncomingMessage,
  res: ServerResponse,
  deps: MessagesHandlerDeps,
  meta: RequestMeta,
  route: ModelRoute = { provider: 'anthropic' },
): Promise<void> {
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const entry: RequestLogEntry = {
    seq: meta.seq,
    at: meta.at,
    requestId: meta.requestId,
    conversationKey: '',
    script: '',
    step: -1,
    attempt: 0,
    model: '',
    messagesCount: 0,
    requestBytes: 0,
    stream: false,
    outcome: 'http_error',
    status: 0,
    toolResultIds: [],
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    durationMs: 0,
  };
  const finish = (outcome: RequestOutcome, status: number, error?: string): void => {
    entry.outcome = outcome;
    entry.status = status;
    if (error !== undefined) entry.error = error;
    entry.durationMs = Date.now() - meta.startedMs;
    deps.log.add(entry);
  };
  const fail = (
    status: number,
    message: string,
    opts: { type?: string; outcome?: RequestOutcome; headers?: Record<string, string> } = {},
  ): void => {
    const type = opts.type ?? errorTypeForStatus(status);
    sendJson(res, status, apiErrorBody(type, message, meta.requestId), opts.headers);
    finish(opts.outcome ?? 'http_error', status, message);
  };

  const batchHeader = httpReq.headers[FAKE_BATCH_HEADER];
  if (typeof batchHeader === 'string') {
    const [id = '', customId = ''] = batchHeader.split(' ');
    entry.batch = { id, customId };
  }
  const read = await readBody(httpReq, MAX_BODY_BYTES);
  if (!read.ok) return fail(413, defaultErrorMessage('request_too_large'));
  entry.requestBytes = read.body.length;
  const denied = checkProviderAuth(route, httpReq.headers, deps.providerAuth ?? {});
  if (denied !== undefined) return fail(denied.status, denied.message);
  const aws = deps.providerAuth?.aws;
  if (route.provider === 'bedrock' && aws !== undefined && !/^Bearer /.test(httpReq.headers.authorization ?? '')) {
    const v = verifySigV4(httpReq.method ?? 'POST', httpReq.url ?? '/', httpReq.headers, read.body, aws);
    if (!v.ok) return fail(403, v.message);
  }
  let json: unknown;
  try {
    json = JSON.parse(read.body.toString('utf8'));
  } catch (e) {
    return fail(400, `There was an error parsing the body of your request: ${(e as Error).message}`);
  }
  const rawBody = json;
  if (route.model !== undefined && typeof json === 'object' && json !== null && !Array.isArray(json)) {
    const body = json as Record<string, unknown>;
    json = {
      ...body,
      model: body['model'] ?? route.model,
      ...(route.stream !== undefined ? { stream: route.stream } : {}),
    };
  }
  const parsed = parseRequestBody(json);
  if (!parsed.ok) return fail(400, parsed.message);
  const req = parsed.request;
  entry.model = req.model;
  entry.messagesCount = req.messages.length;
  entry.stream = req.stream === true;
  entry.toolResultIds = toolResultIds(req);
  entry.inputTokens = estimatePromptTokens(req);
  entry.conversationKey = conversationKey(req);
  entry.step = assistantCount(req);
  const limiter = deps.rateLimiter?.active ? deps.rateLimiter : undefined;
  if (limiter !== undefined) {
    // Not an attempt of the step (a script's faults by attempt stay where they are). Every response carries the limits as they stand after this request, as the API's do.
    const verdict = limiter.admit(entry.inputTokens);
    for (const [k, v] of Object.entries(limiter.headers())) res.setHeader(k, v);
    if (!verdict.ok) {
      const retryAfter = String(Math.max(1, Math.ceil(verdict.retryAfterMs / 1000)));
      const what = verdict.limit === 'requests' ? 'requests' : `${verdict.limit} tokens`;
      return fail(429, `This request would exceed the rate limit for your organization of ${what} per minute.`, {
        type: 'rate_limit_error',
        outcome: 'rate_limited',
        headers: { 'retry-after': retryAfter },
      });
    }
  }

  const attemptKey = JSON.stringify([entry.conversationKey, entry.step]);
  entry.attempt = (deps.attempts.get(attemptKey) ?? 0) + 1;
  deps.attempts.set(attemptKey, entry.attempt);

  if (deps.contextWindow !== undefined && entry.inputTokens > deps.contextWindow) {
    // The real API's wording (the runner recognises it and its numbers).
    return fail(400, `prompt is too long: ${entry.inputTokens} tokens > ${deps.contextWindow} maximum`);
  }
  const pairing = checkToolPairing(req);
  if (pairing !== undefined) return fail(400, pairing);
  const tampered = checkThinkingBlocks(req, deps.redactedIssued ?? new Set());
  if (tampered !== undefined) return fail(400, tampered);
  const budget = thinkingBudgetError(req);
  if (budget !== undefined) return fail(400, budget);
  const breakpoints = countBreakpoints(req);
  if (breakpoints > 4) {
    return fail(400, `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`);
  }

  const resolved = await resolveStep(deps, req, {
    step: entry.step,
    attempt: entry.attempt,
    conversationKey: entry.conversationKey,
    headers: httpReq.headers,
    url: httpReq.url ?? '/',
    route,
    ...(rawBody !== json ? { rawBody } : {}),
  });
  entry.script = resolved.script;
  if (!resolved.ok) return fail(400, resolved.message);
  const step = resolved.step;

  const failures = checkExpectations(step.expect, req);
  if (failures.length > 0) {
    return fail(
      400,
      `${EXPECTATION_FAILED_PREFIX} script "${resolved.script}" step ${entry.step}: ${failures.join('; ')}`,
      {
        outcome: 'expectation_failed',
      },
    );
  }

  const scripted: FaultSpec | undefined = step.errors?.[entry.attempt - 1];
  const fault = scripted?.batch_result !== undefined && entry.batch === undefined ? undefined : scripted;
  await sleep(deps.latencyMs + (step.delay_ms ?? 0) + (fault?.delay_ms ?? 0), abort.signal);
  if (abort.signal.aborted) return finish('aborted', 0, 'client disconnected before the response');

  if (fault?.batch_result !== undefined) {
    sendJson(res, 200, { type: fault.batch_result }, { [FAKE_BATCH_RESULT_HEADER]: fault.batch_result });
    return finish('batch_unprocessed', 200, `batch request ${fault.batch_result}`);
  }
  if (fault?.status !== undefined) {
    const headers: Record<string, string> = {};
    const retryAfter = fault.retry_after ?? (fault.status === 429 ? 1 : undefined);
    if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
    if (fault.should_retry !== undefined) headers['x-should-retry'] = String(fault.should_retry);
    if (fault.status === 429) {
      headers['anthropic-ratelimit-requests-remaining'] = '0';
      headers['anthropic-ratelimit-requests-reset'] = new Date(Date.now() + (retryAfter ?? 1) * 1000).toISOString();
    }
    const type = fault.type ?? errorTypeForStatus(fault.status);
    return fail(fault.status, fault.message ?? defaultErrorMessage(type), { type, headers });
  }

  const cache = deps.cache.account(req);
  const built = buildResponse(
    step,
    {
      conversationKey: entry.conversationKey,
      step: entry.step,
      cwd: workingDirectory(req),
      requestModel: req.model,
      thinkingTokenCount: betasOf(httpReq.headers, rawBody).includes('thinking-token-count-2026-05-13'),
    },
    cache,
  );
  for (const b of built.message.content) if (b.type === 'redacted_thinking') deps.redactedIssued?.add(b.data);
  const usage = built.message.usage;
  entry.inputTokens = usage.input_tokens;
  entry.cacheReadTokens = usage.cache_read_input_tokens;
  entry.cacheCreationTokens = usage.cache_creation_input_tokens;
  const outputTokens = usage.output_tokens;

  if (req.stream !== true) {
    if (fault?.cut_after_events !== undefined) {
      res.destroy();
      return finish('cut', 0, 'connection destroyed before the response');
    }
    if (fault?.malformed_sse === true) {
      const text = JSON.stringify(built.message).slice(0, 40);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
      res.end(text);
      return finish('malformed', 200, 'truncated JSON body');
    }
    if (fault?.sse_error !== undefined) {
      const status = statusForErrorType(fault.sse_error);
      const message = fault.message ?? defaultErrorMessage(fault.sse_error);
      sendJson(res, status, apiErrorBody(fault.sse_error, message, meta.requestId));
      return finish('sse_error', status, message);
    }
    sendJson(res, 200, { ...built.message, content: wireContent(built.message.content) });
    limiter?.completed(outputTokens);
    entry.outputTokens = outputTokens;
    entry.billed = billedOf(usage);
    return finish('completed', 200);
  }

  // Bedrock streams in AWS's binary event-stream framing; everyone else in SSE.
  const eventStream = route.provider === 'bedrock';
  res.writeHead(200, {
    'content-type': eventStream ? 'application/vnd.amazon.eventstream' : 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
  const events = messageEvents(built);
  const writeEvents = async (list: readonly SseEvent[]): Promise<boolean> => {
    for (let i = 0; i < list.length; i++) {
      if (i > 0) await sleep(step.chunk_delay_ms ?? 0, abort.signal);
      const e = list[i];
      if (abort.signal.aborted || e === undefined) return false;
      await writeChunk(res, eventStream ? bedrockChunk(e.data) : formatSse(e));
      // What the client has been told it is billed for.
      if (e.event === 'message_start') entry.billed = { ...billedOf(usage), output_tokens: Math.min(1, outputTokens) };
      else if (e.event === 'message_delta') entry.billed = billedOf(usage);
    }
    return !abort.signal.aborted;
  };
  const aborted = (): void => finish('aborted', 200, 'client disconnected mid-stream');

  if (fault?.cut_after_events !== undefined) {
    if (!(await writeEvents(events.slice(0, fault.cut_after_events)))) return aborted();
    res.destroy();
    return finish('cut', 200, `stream cut after ${fault.cut_after_events} events`);
  }
  if (fault?.malformed_sse === true || fault?.sse_error !== undefined) {
    const after = fault.after_events ?? 1;
    const tail =
      fault.sse_error !== undefined
        ? errorEvent(fault.sse_error, fault.message ?? defaultErrorMessage(fault.sse_error), meta.requestId)
        : malformedEvent();
    if (!(await writeEvents([...events.slice(0, after), tail]))) return aborted();
    res.end();
    return fault.sse_error !== undefined
      ? finish('sse_error', 200, `event: error ${fault.sse_error}`)
      : finish('malformed', 200, 'malformed SSE data line');
  }
  if (!(await writeEvents(events))) return aborted();
  await endResponse(res, abort.signal);
  limiter?.completed(outputTokens);
  if (abort.signal.aborted && !res.writableFinished) return aborted();
  entry.outputTokens = outputTokens;
  return finish('completed', 200);
}

/** The betas a request names: its `anthropic-beta` header, and Bedrock's `anthropic_beta` in the body. */
function betasOf(headers: IncomingHttpHeaders, body: unknown): string[] {
  const header = headers['anthropic-beta'];
  const fromHeader = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((b) => b.trim());
  const inBody = (body as { anthropic_beta?: unknown } | null)?.anthropic_beta;
  return [...fromHeader, ...(Array.isArray(inBody) ? inBody.map(String) : [])].filter((b) => b !== '');
}
