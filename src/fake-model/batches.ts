import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiErrorBody } from './api-errors';
import { readBody, sendJson } from './http-util';

/**
 * The Message Batches API of the fake model server (`/v1/messages/batches`): create, retrieve,
 * list, cancel, results as JSONL, expiry and an adjustable processing delay. Each request of a
 * batch is answered by the server's own `POST /v1/messages` (non-streaming, over loopback HTTP),
 * so the same scripts, faults, prompt-cache simulation and request log serve synchronous and
 * batched calls. Shapes follow `@anthropic-ai/sdk` `resources/messages/batches.d.ts`.
 */

/** Header the batch processor puts on its loopback `/v1/messages` call: `<batch id> <custom_id>`. */
export const FAKE_BATCH_HEADER = 'x-fake-batch-request';
/** Header of the loopback answer of a step whose fault is `batch_result` (`expired` | `canceled`). */
export const FAKE_BATCH_RESULT_HEADER = 'x-fake-batch-result';

/** Timing of batch processing; adjustable while running (`POST /_fake/batches/config`). */
export interface BatchTiming {
  /** Time from create to processing the requests, in ms. @default 0 */
  processingMs: number;
  /** Time from create after which unprocessed requests expire, in ms (the API's is 24 h). @default 86_400_000 */
  expiresAfterMs: number;
}

/** One result line of the results file (`MessageBatchIndividualResponse`). */
export interface BatchResultLine {
  custom_id: string;
  result:
    | { type: 'succeeded'; message: unknown }
    | { type: 'errored'; error: unknown }
    | { type: 'canceled' }
    | { type: 'expired' };
}

interface RequestCounts {
  processing: number;
  succeeded: number;
  errored: number;
  canceled: number;
  expired: number;
}

interface BatchState {
  id: string;
  createdMs: number;
  expiresMs: number;
  endedMs: number | undefined;
  cancelMs: number | undefined;
  requests: { custom_id: string; params: Record<string, unknown> }[];
  results: Map<string, BatchResultLine['result']>;
  /** Loopback calls in flight (a cancel waits for them, as the API lets running requests finish). */
  running: number;
  timers: NodeJS.Timeout[];
  /** Auth headers of the create call, replayed on the loopback calls. */
  auth: Record<string, string>;
}

const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;
/** The API's limit of requests per batch. */
const MAX_REQUESTS = 100_000;

/** A snapshot of the batches for tests (`server.batches()`). */
export interface BatchSummary {
  id: string;
  processing_status: 'in_progress' | 'canceling' | 'ended';
  request_counts: RequestCounts;
  custom_ids: string[];
}

/** The batch store and its HTTP routes. */
export class FakeBatches {
  private readonly batches = new Map<string, BatchState>();
  private readonly timing: BatchTiming;
  private closed = false;

  /**
   * @param loopbackUrl gives the server's own base URL (known once it listens)
   * @param timing initial timing; see {@link BatchTiming}
   */
  constructor(
    private readonly loopbackUrl: () => string,
    timing: Partial<BatchTiming> = {},
  ) {
    this.timing = { processingMs: timing.processingMs ?? 0, expiresAfterMs: timing.expiresAfterMs ?? 86_400_000 };
  }

  /** Changes the timing of batches created from now on. */
  configure(timing: Partial<BatchTiming>): BatchTiming {
    if (timing.processingMs !== undefined) this.timing.processingMs = timing.processingMs;
    if (timing.expiresAfterMs !== undefined) this.timing.expiresAfterMs = timing.expiresAfterMs;
    return { ...this.timing };
  }

  /** Every batch so far, by creation. */
  summaries(): BatchSummary[] {
    return [...this.batches.values()].map((b) => ({
      id: b.id,
      processing_status: this.status(b),
      request_counts: this.counts(b),
      custom_ids: b.requests.map((r) => r.custom_id),
    }));
  }

  /** Forgets every batch and stops their timers. */
  reset(): void {
    for (const b of this.batches.values()) for (const t of b.timers) clearTimeout(t);
    this.batches.clear();
  }

  /** Stops all timers for good (server close). */
  close(): void {
    this.closed = true;
    this.reset();
  }

  /**
   * Answers a `/v1/messages/batches…` request; returns false when the path is not one of its routes.
   */
  async handle(req: IncomingMessage, res: ServerResponse, path: string, requestId: string): Promise<boolean> {
    const method = req.method ?? 'GET';
    const m = /^\/v1\/messages\/batches(?:\/([^/]+)(?:\/(results|cancel))?)?$/.exec(path);
    if (!m) return false;
    const id = m[1];
    const action = m[2];
    const notFound = (): void =>
      sendJson(res, 404, apiErrorBody('not_found_error', `message batch ${id ?? ''} not found`, requestId));
    if (id === undefined) {
      if (method === 'POST') return this.create(req, res, requestId).then(() => true);
      if (method === 'GET') {
        const data = [...this.batches.values()].reverse().map((b) => this.wire(b, req));
        sendJson(res, 200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
        return true;
      }
      return false;
    }
    const batch = this.batches.get(id);
    if (method === 'GET' && action === undefined) {
      if (!batch) notFound();
      else sendJson(res, 200, this.wire(batch, req));
      return true;
    }
    if (method === 'POST' && action === 'cancel') {
      if (!batch) notFound();
      else {
        this.cancel(batch);
        sendJson(res, 200, this.wire(batch, req));
      }
      return true;
    }
    if (method === 'GET' && action === 'results') {
      if (!batch) notFound();
      else if (batch.endedMs === undefined) {
        sendJson(
          res,
          400,
          apiErrorBody(
            'invalid_request_error',
            `message batch ${id} has not ended; its results are not ready`,
            requestId,
          ),
        );
      } else {
        const text = batch.requests.map((r) =>
          JSON.stringify({ custom_id: r.custom_id, result: batch.results.get(r.custom_id) }),
        );
        const body = text.join('\n') + '\n';
        res.writeHead(200, { 'content-type': 'application/binary', 'content-length': String(Buffer.byteLength(body)) });
        res.end(body);
      }
      return true;
    }
    if (method === 'DELETE' && action === undefined) {
      if (!batch) notFound();
      else if (batch.endedMs === undefined) {
        sendJson(res, 400, apiErrorBody('invalid_request_error', `message batch ${id} is still processing`, requestId));
      } else {
        this.batches.delete(id);
        sendJson(res, 200, { id, type: 'message_batch_deleted' });
      }
      return true;
    }
    return false;
  }

  private async create(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const read = await readBody(req, 256 * 1024 * 1024);
    const bad = (message: string): void =>
      sendJson(res, 400, apiErrorBody('invalid_request_error', message, requestId));
    if (!read.ok) return bad('batch request too large');
    let body: unknown;
    try {
      body = JSON.parse(read.body.toString('utf8'));
    } catch (e) {
      return bad(`There was an error parsing the body of your request: ${(e as Error).message}`);
    }
    const requests = (body as { requests?: unknown } | null)?.requests;
    if (!Array.isArray(requests) || requests.length === 0) return bad('requests: must be a non-empty array');
    if (requests.length > MAX_REQUESTS) return bad(`requests: at most ${MAX_REQUESTS} requests per batch`);
    const seen = new Set<string>();
    const list: BatchState['requests'] = [];
    for (const [i, r] of requests.entries()) {
      const customId = (r as { custom_id?: unknown } | null)?.custom_id;
      const params = (r as { params?: unknown } | null)?.params;
      if (typeof customId !== 'string' || !CUSTOM_ID.test(customId)) {
        return bad(`requests.${i}.custom_id: must match ^[a-zA-Z0-9_-]{1,64}$`);
      }
      if (seen.has(customId)) return bad(`requests.${i}.custom_id: duplicate custom_id ${customId}`);
      if (typeof params !== 'object' || params === null || Array.isArray(params)) {
        return bad(`requests.${i}.params: must be an object`);
      }
      if ((params as { stream?: unknown }).stream === true)
        return bad(`requests.${i}.params.stream: not allowed in a batch`);
      seen.add(customId);
      list.push({ custom_id: customId, params: params as Record<string, unknown> });
    }
    const now = Date.now();
    const auth: Record<string, string> = {};
    for (const h of ['x-api-key', 'authorization', 'anthropic-version', 'anthropic-beta']) {
      const v = req.headers[h];
      if (typeof v === 'string') auth[h] = v;
    }
    const batch: BatchState = {
      id: `msgbatch_01fake${randomBytes(10).toString('hex')}`,
      createdMs: now,
      expiresMs: now + this.timing.expiresAfterMs,
      endedMs: undefined,
      cancelMs: undefined,
      requests: list,
      results: new Map(),
      running: 0,
      timers: [],
      auth,
    };
    this.batches.set(batch.id, batch);
    if (this.timing.processingMs < this.timing.expiresAfterMs) {
      batch.timers.push(setTimeout(() => this.process(batch), this.timing.processingMs));
    }
    batch.timers.push(setTimeout(() => this.expire(batch), this.timing.expiresAfterMs));
    sendJson(res, 200, this.wire(batch, req));
  }

  private process(batch: BatchState): void {
    for (const r of batch.requests) {
      if (batch.results.has(r.custom_id) || batch.cancelMs !== undefined) continue;
      batch.running += 1;
      void this.answer(batch, r)
        .then((result) => {
          if (!batch.results.has(r.custom_id)) batch.results.set(r.custom_id, result);
        })
        .catch((e: unknown) => {
          batch.results.set(r.custom_id, {
            type: 'errored',
            error: apiErrorBody('api_error', `fake-model: ${(e as Error).message}`, 'req_fake_batch'),
          });
        })
        .finally(() => {
          batch.running -= 1;
          this.maybeEnd(batch);
        });
    }
  }

  private async answer(
    batch: BatchState,
    r: { custom_id: string; params: Record<string, unknown> },
  ): Promise<BatchResultLine['result']> {
    if (this.closed) return { type: 'expired' };
    const res = await fetch(`${this.loopbackUrl()}/v1/messages`, {
      method: 'POST',
      headers: { ...batch.auth, 'content-type': 'application/json', [FAKE_BATCH_HEADER]: `${batch.id} ${r.custom_id}` },
      body: JSON.stringify({ ...r.params, stream: false }),
    });
    const text = await res.text();
    const unprocessed = res.headers.get(FAKE_BATCH_RESULT_HEADER);
    if (unprocessed === 'expired' || unprocessed === 'canceled') return { type: unprocessed };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return {
        type: 'errored',
        error: apiErrorBody('api_error', 'Internal server error', res.headers.get('request-id') ?? ''),
      };
    }
    if (res.status === 200) return { type: 'succeeded', message: json };
    return { type: 'errored', error: json };
  }

  private cancel(batch: BatchState): void {
    if (batch.endedMs !== undefined || batch.cancelMs !== undefined) return;
    batch.cancelMs = Date.now();
    // Requests already running finish; the rest are canceled once they do.
    this.maybeEnd(batch);
  }

  private expire(batch: BatchState): void {
    if (batch.endedMs !== undefined) return;
    for (const r of batch.requests)
      if (!batch.results.has(r.custom_id)) batch.results.set(r.custom_id, { type: 'expired' });
    this.end(batch);
  }

  private maybeEnd(batch: BatchState): void {
    if (batch.endedMs !== undefined || batch.running > 0) return;
    if (batch.cancelMs !== undefined) {
      for (const r of batch.requests)
        if (!batch.results.has(r.custom_id)) batch.results.set(r.custom_id, { type: 'canceled' });
    }
    if (batch.requests.every((r) => batch.results.has(r.custom_id))) this.end(batch);
  }

  private end(batch: BatchState): void {
    batch.endedMs = Date.now();
    for (const t of batch.timers) clearTimeout(t);
    batch.timers = [];
  }

  private status(b: BatchState): BatchSummary['processing_status'] {
    if (b.endedMs !== undefined) return 'ended';
    return b.cancelMs !== undefined ? 'canceling' : 'in_progress';
  }

  /** The API counts outcomes only once the whole batch has ended. */
  private counts(b: BatchState): RequestCounts {
    const counts: RequestCounts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
    if (b.endedMs === undefined) {
      counts.processing = b.requests.length;
      return counts;
    }
    for (const r of b.requests) counts[b.results.get(r.custom_id)?.type ?? 'expired'] += 1;
    return counts;
  }

  private wire(b: BatchState, req: IncomingMessage): Record<string, unknown> {
    const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());
    const host = req.headers.host ?? new URL(this.loopbackUrl()).host;
    return {
      id: b.id,
      type: 'message_batch',
      processing_status: this.status(b),
      request_counts: this.counts(b),
      created_at: iso(b.createdMs),
      expires_at: iso(b.expiresMs),
      ended_at: iso(b.endedMs),
      cancel_initiated_at: iso(b.cancelMs),
      archived_at: null,
      results_url: b.endedMs === undefined ? null : `http://${host}/v1/messages/batches/${b.id}/results`,
    };
  }
}
