import type { CollapseOptions, MicrocompactOptions, SnipOptions, ToolResultBudgetOptions } from './compaction';
import type { Usage } from './usage';
import type { FileReadState, ToolUseSummary } from './tools';
import type { ThinkingOptions } from './thinking';
import type { ContentRef } from './content-ref';

/** Input of the `callModel` activity. Content is read from the transcript store, not sent here. */
export interface CallModelInput {
  sessionId: string;
  cwd: string;
  /** Uuid for the assistant line this call writes (from the workflow; stable across retries). */
  assistantUuid: string;
  /** Last line of the context: the request holds the chain ending here. */
  parentUuid: string;
  model: string;
  /** `max_tokens` (tokens); a known model with a lower limit gets its own. */
  maxTokens: number;
  /** Effort and thinking the turn asks for (the parameters per model: src/activities/model/thinking-params.ts). */
  thinking?: ThinkingOptions;
  /** Names of the tools offered to the model. @default every built-in tool */
  tools?: string[];
  /**
   * `tools` is a subagent type's own list: offered in its order, without the deferred-tool
   * placeholder, as Claude Code 2.1.328 does (others are sorted by name, the placeholder second to last).
   */
  ownToolList?: true;
  /** Content key (session content store) of the text replacing the default system prompt. */
  systemPromptKey?: string;
  /** Content key of the text appended to the system prompt. */
  appendSystemPromptKey?: string;
  /** Publish the raw stream events to the store's side channel (`--include-partial-messages`). */
  streamEvents?: boolean;
  /** Ref of the turn's stored MCP tool list: its tools are offered besides `tools`. */
  mcpToolsRef?: string;
  /** Content key of the session's stored JSON Schema: the StructuredOutput tool is offered with it. */
  jsonSchemaKey?: string;
  /**
   * The workspace, when it follows the turn across hosts: the host queue of the worker that holds
   * it (files the model read are checked for changes only there: another host does not have
   * them), its repository root, and the roots it had on former hosts (paths earlier lines name
   * under a former root are under `repoRoot` now). Absent when the workspace is not followed.
   */
  workspace?: { hostQueue: string; repoRoot: string; formerRoots?: string[] };
  /**
   * When set (the turn has a fallback model left), an attempt that gets `overloaded_error` from
   * this attempt number on fails the call without further retries, so that the turn can switch.
   */
  overloadedAttemptsBeforeFallback?: number;
  /** Content key of the session's definitions: the Skill tool is offered when it lists skills the model may load. */
  definitionsKey?: string;
  /** Tool deferral (`TurnOptions.toolSearch`). @default "on" */
  toolSearch?: string;
  /** False with `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1` (`subagents.backgroundTasks`): Bash is offered without `run_in_background`. */
  backgroundTasks?: false;
  /** Microcompact settings of the turn (`CompactionOptions.microcompact`). @default on, with its defaults */
  microcompact?: MicrocompactOptions;
  /**
   * The last call's context and the auto-compaction threshold (tokens): until the context this
   * call sends reaches `microcompact.triggerFill` of the threshold, no new snip or microcompact
   * batch is made. Absent (no call yet, or auto-compaction off): batches at any size.
   */
  autoCompact?: { lastContextTokens: number; thresholdTokens: number };
  /**
   * Present: the environment message lists the session's agent types (Claude Code's "Available
   * agent types for the Agent tool"): those of the stored list `ref`, else the built-in types.
   */
  agentTypes?: {
    ref?: ContentRef;
    /** Types `Agent(<type>)` deny rules name: left out of the listing, as in Claude Code 2.1.328. */
    denied?: string[];
    /**
     * A subagent's listing: a `system` message of its own after its first tool results instead of
     * a paragraph of the environment message (Claude Code 2.1.328, recorded in agent-foreground).
     */
    afterFirstResults?: true;
  };
  /** Tool-result budget settings of the turn (`CompactionOptions.toolResultBudget`). @default on, with its defaults */
  toolResultBudget?: ToolResultBudgetOptions;
  /** Snip settings of the turn (`CompactionOptions.snip`). @default on, with its defaults */
  snip?: SnipOptions;
  /** Context collapse settings of the turn (`CompactionOptions.collapse`). @default on, with its defaults */
  collapse?: CollapseOptions;
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
  /** USD of `usage` (and of the response's web searches), or null when a model of it has no price in the table. */
  costUsd: number | null;
  /** Thinking tokens among the response's output tokens, as the API reported them (0 when it did not). */
  thinkingTokens?: number;
  /** Web searches the API ran for the response (`usage.server_tool_use`). */
  webSearchRequests?: number;
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
  /** The API's message id, of a refused response only (`stop_reason: "refusal"`): the note to the model names it. */
  refusedMessageId?: string;
  /**
   * A `<system-reminder>` line written before the call because files the model had read changed
   * on disk: its uuid (the assistant line follows it) and the files whose whole content it showed
   * (at most 10), which the turn records as read.
   */
  fileReminder?: { uuid: string; files: Array<{ path: string; state: FileReadState }> };
  /**
   * A `microcompact_boundary` line written before the call because it cleared old tool results:
   * its uuid, how many results it cleared and the tokens that freed (estimated, characters / 4).
   */
  microcompact?: { uuid: string; clearedToolResults: number; freedTokens: number };
  /**
   * A `content_replacement` line written before the call because a message's tool results were
   * over the budget: its uuid, how many results it replaced and the tokens that freed (estimated).
   */
  toolResultBudget?: { uuid: string; replacedToolResults: number; freedTokens: number };
  /** A `snip_boundary` line written before the call because it removed stale rounds: uuid, rounds, tokens freed (estimated). */
  snip?: { uuid: string; snippedRounds: number; freedTokens: number };
  /**
   * A `collapse_boundary` line written before the call because it collapsed runs of old rounds
   * whose results were cleared: its uuid, the rounds left out and the tokens that freed (estimated).
   */
  collapse?: { uuid: string; collapsedRounds: number; freedTokens: number };
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
  /** Uuid of a `/compact <instructions>` prompt line: its instructions guide the summary. */
  instructionsUuid?: string;
  /** Tokens of the most recent messages kept verbatim after the summary. @default 20000 */
  preserveTokens?: number;
}

/** Output of `compactContext`. */
export interface CompactSummary {
  boundaryUuid: string;
  summaryUuid: string;
  /** The new leaf: the last preserved message (copied after the summary), or the summary. */
  leafUuid: string;
  /** Context size before compaction (tokens): the last response's input and output, or an estimate. */
  preTokens: number;
  /** Messages kept verbatim after the summary. */
  preserved: number;
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
  /** No stream event for the idle limit (`CLAUDE_STREAM_IDLE_TIMEOUT_MS`, `model.streamIdleTimeoutMs`): retried. */
  StreamIdleTimeout: 'ModelError.StreamIdleTimeout',
  /** The attempt ended itself just before its start-to-close timeout, the stream still running: retried. */
  Timeout: 'ModelError.Timeout',
  InvalidRequest: 'ModelError.InvalidRequest',
  PromptTooLong: 'ModelError.PromptTooLong',
  Authentication: 'ModelError.Authentication',
  PermissionDenied: 'ModelError.PermissionDenied',
  NotFound: 'ModelError.NotFound',
  RequestTooLarge: 'ModelError.RequestTooLarge',
  Transcript: 'TranscriptError',
  /** The transcript store cannot be written (disk full, file size limit, read-only, permissions). */
  TranscriptStorage: 'TranscriptError.Storage',
  /**
   * The transcript store cannot be reached (PostgreSQL down or restarting, the network to it):
   * retryable while the outage is shorter than `store.outageTimeoutMs`, non-retryable after.
   */
  TranscriptUnavailable: 'TranscriptError.Unavailable',
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
