import { appendFileSync } from 'node:fs';

/**
 * The fake model's request log: one entry per `POST /v1/messages` request, written when the
 * request's outcome is known.
 */

/** How a request ended. */
export type RequestOutcome =
  /** A full response was sent. */
  | 'completed'
  /** An HTTP error was sent (scripted fault, invalid request, script ran out, …). */
  | 'http_error'
  /** `cut_after_events`: the socket was destroyed mid-stream. */
  | 'cut'
  /** `malformed_sse`: a non-JSON data line was sent. */
  | 'malformed'
  /** `sse_error`: an `event: error` was sent after a 200 (or its HTTP error when not streaming). */
  | 'sse_error'
  /** A step's `expect` check failed (HTTP 400). */
  | 'expectation_failed'
  /** Refused with 429 by the server's rate limits (`rateLimits`), not by a script. */
  | 'rate_limited'
  /** `batch_result`: a Message Batch request left unprocessed (expired or canceled). */
  | 'batch_unprocessed'
  /** The client disconnected before the response was complete. */
  | 'aborted';

/** One logged request. Token counts are in tokens (estimates: `ceil(chars / 4)`). */
export interface RequestLogEntry {
  /** Arrival order, from 1. */
  seq: number;
  /** Arrival time, ISO 8601. */
  at: string;
  /** The `request-id` header sent. */
  requestId: string;
  /** `metadata.user_id`, or `h:` + hash of the first user message text; '' if the body was invalid. */
  conversationKey: string;
  /** Script name (`responder` when a responder answered); '' if none was selected. */
  script: string;
  /** Step index = number of assistant messages in the request; -1 if the body was invalid. */
  step: number;
  /** Attempt number of (conversationKey, step), from 1; 0 if the body was invalid. */
  attempt: number;
  /** `model` of the request. */
  model: string;
  /** Number of `messages` in the request. */
  messagesCount: number;
  /** Size of the request body, in bytes. */
  requestBytes: number;
  /** Whether the request asked for `stream: true`. */
  stream: boolean;
  outcome: RequestOutcome;
  /** Set when the request was one of a Message Batch's: the batch id and the request's `custom_id`. */
  batch?: { id: string; customId: string };
  /** HTTP status sent (200 for streams, including faults after the 200); 0 if none was sent. */
  status: number;
  /** `tool_use_id`s of all `tool_result` blocks in the request, in order. */
  toolResultIds: string[];
  /**
   * Uncached input tokens reported (`usage.input_tokens`) when the model processed the request;
   * otherwise the estimated prompt size.
   */
  inputTokens: number;
  /** Output tokens reported; 0 when no response was generated. */
  outputTokens: number;
  /** Cache-read input tokens reported. */
  cacheReadTokens: number;
  /** Cache-write input tokens reported. */
  cacheCreationTokens: number;
  /**
   * Usage the server reported in what it sent: the `message_start` usage once that event went
   * out, the final usage once `message_delta` did (or the JSON body's). What the API bills for
   * the request, and what a client that read every byte could count (tokens). Absent when no
   * response began.
   */
  billed?: BilledUsage;
  /** The error message sent, for error outcomes. */
  error?: string;
  /** Time from arrival to the end of the response, in ms. */
  durationMs: number;
}

/** Usage in the Messages API shape (tokens). */
export interface BilledUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** Sums the `billed` usage of log entries: the usage the server billed (tokens). */
export function billedUsage(log: readonly RequestLogEntry[]): BilledUsage {
  const sum: BilledUsage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  for (const e of log) {
    if (!e.billed) continue;
    sum.input_tokens += e.billed.input_tokens;
    sum.output_tokens += e.billed.output_tokens;
    sum.cache_creation_input_tokens += e.billed.cache_creation_input_tokens;
    sum.cache_read_input_tokens += e.billed.cache_read_input_tokens;
  }
  return sum;
}

/** A (conversation, step) model call that completed more than once. */
export interface RepeatedCall {
  conversationKey: string;
  step: number;
  /** How many times it completed. */
  count: number;
}

/**
 * Returns the (conversationKey, step) pairs with more than one `completed` entry: a crash-recovery
 * test asserts this is empty to prove no completed model call was repeated.
 */
export function repeatedCompletedCalls(log: readonly RequestLogEntry[]): RepeatedCall[] {
  const counts = new Map<string, RepeatedCall>();
  for (const e of log) {
    if (e.outcome !== 'completed') continue;
    const key = JSON.stringify([e.conversationKey, e.step]);
    const c = counts.get(key);
    if (c === undefined) counts.set(key, { conversationKey: e.conversationKey, step: e.step, count: 1 });
    else c.count += 1;
  }
  return [...counts.values()].filter((c) => c.count > 1);
}

/** In-memory log, optionally mirrored as JSONL to a file and to a listener. */
export class RequestLog {
  private entries: RequestLogEntry[] = [];

  constructor(
    private readonly logPath: string | undefined,
    private readonly onEntry: ((entry: RequestLogEntry) => void) | undefined,
  ) {}

  /** Records an entry (appends a JSONL line synchronously when a log path is set). */
  add(entry: RequestLogEntry): void {
    this.entries.push(entry);
    if (this.logPath !== undefined) appendFileSync(this.logPath, `${JSON.stringify(entry)}\n`);
    this.onEntry?.(entry);
  }

  /** All entries, sorted by `seq`. */
  all(): RequestLogEntry[] {
    return [...this.entries].sort((a, b) => a.seq - b.seq);
  }

  /** Forgets the in-memory entries (the JSONL file is kept). */
  clear(): void {
    this.entries = [];
  }
}
