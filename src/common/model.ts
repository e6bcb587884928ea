import type { Usage } from './usage';
import type { ToolUseSummary } from './tools';

/** Input of the `callModel` activity. Content is read from the transcript store, not sent here. */
export interface CallModelInput {
  sessionId: string;
  cwd: string;
  /** Uuid for the assistant line this call writes (from the workflow; stable across retries). */
  assistantUuid: string;
  /** Last line of the context: the request holds the chain ending here. */
  parentUuid: string;
  model: string;
  /** `max_tokens` (tokens). */
  maxTokens: number;
  /** Names of the tools offered to the model. @default every built-in tool */
  tools?: string[];
  /** Content key (session content store) of the text replacing the default system prompt. */
  systemPromptKey?: string;
  /** Content key of the text appended to the system prompt. */
  appendSystemPromptKey?: string;
  /** Publish the raw stream events to the store's side channel (`--include-partial-messages`). */
  streamEvents?: boolean;
}

/**
 * Output of `callModel`: a small summary of the assistant line the store holds (whichever
 * attempt wrote it); the message itself is in the store.
 */
export interface CallModelSummary {
  model: string;
  stopReason: string | null;
  /**
   * Tokens the API billed for this call: the stored response's usage, plus every other attempt
   * of the call that got a response (a repeat after a crash, a superseded attempt), plus late
   * attempts of recent calls that had not been counted yet. Counted by exactly one summary.
   */
  usage: Usage;
  /** USD of `usage`, or null when a model of it has no price in the table. */
  costUsd: number | null;
  /** API responses `usage` covers (1 when nothing was repeated). @default 1 */
  billedAttempts?: number;
  contextWindow: number;
  maxOutputTokens: number;
  toolUses: ToolUseSummary[];
  /** Content block types in order (`text`, `tool_use`, `thinking`, …). */
  contentTypes: string[];
  /** Wall time of the API call, ms. */
  durationMs: number;
  /** True when the line already existed (the call had completed before a crash): no API call made. */
  replayed: boolean;
}

/** Input of the `compactContext` activity. */
export interface CompactInput {
  sessionId: string;
  turnId: string;
  cwd: string;
  model: string;
  /** Last line of the context to summarize. */
  leafUuid: string;
  boundaryUuid: string;
  summaryUuid: string;
  trigger: 'manual' | 'auto';
}

/** Output of `compactContext`. */
export interface CompactSummary {
  boundaryUuid: string;
  summaryUuid: string;
  /** Estimated context size before compaction (tokens). */
  preTokens: number;
  /** True when the summary was built without the model (the summarizing call failed). */
  fallback: boolean;
  usage: Usage;
  costUsd: number | null;
  model: string;
}

/** Failure types thrown by `callModel` (`ApplicationFailure.type`). */
export const ModelErrorType = {
  RateLimit: 'ModelError.RateLimit',
  Overloaded: 'ModelError.Overloaded',
  Server: 'ModelError.Server',
  Connection: 'ModelError.Connection',
  StreamInterrupted: 'ModelError.StreamInterrupted',
  InvalidRequest: 'ModelError.InvalidRequest',
  PromptTooLong: 'ModelError.PromptTooLong',
  Authentication: 'ModelError.Authentication',
  PermissionDenied: 'ModelError.PermissionDenied',
  NotFound: 'ModelError.NotFound',
  RequestTooLarge: 'ModelError.RequestTooLarge',
  Transcript: 'TranscriptError',
  /** The transcript store cannot be written (disk full, file size limit, read-only, permissions). */
  TranscriptStorage: 'TranscriptError.Storage',
} as const;

/**
 * Types that are never retried. `callModel` throws them with `nonRetryable: true` itself, so the
 * list need not travel in every activity's retry policy (it would cost history bytes per call).
 */
export const NON_RETRYABLE_MODEL_ERRORS: string[] = [
  ModelErrorType.InvalidRequest,
  ModelErrorType.PromptTooLong,
  ModelErrorType.Authentication,
  ModelErrorType.PermissionDenied,
  ModelErrorType.NotFound,
  ModelErrorType.RequestTooLarge,
  ModelErrorType.Transcript,
  ModelErrorType.TranscriptStorage,
];

/** `details[0]` of a model failure. */
export interface ModelErrorDetails {
  status: number | null;
  requestId: string | null;
  /**
   * Usage the call's attempts were billed although it failed (responses that began, then broke),
   * so the turn counts it: tokens, USD (null when the model has no price).
   */
  billed?: { model: string; usage: Usage; costUsd: number | null; attempts: number };
  /** On `ModelError.PromptTooLong`: the newest prompt alone is over the model's limit (compaction cannot help). */
  promptOverLimit?: boolean;
}
