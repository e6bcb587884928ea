import type { PermissionReasonType } from './permissions';
import type { ModelUsage, Usage } from './usage';
import type { SubagentStats, TurnOrigin } from './tasks';
import type { SDKTaskMessage } from './sdk-task-messages';

/**
 * Messages a caller receives from `QueryEngine.submitMessage()` and from
 * `agent-runner -p --output-format stream-json`: the Claude Agent SDK's `SDKMessage` shapes
 * (see shared/reference/claude-agent-sdk.md §1). Every message carries `uuid` and `session_id`.
 */

/** `permission_denials` entry of a result. */
export interface SDKPermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: unknown;
}

export interface SDKSystemInitMessage {
  type: 'system';
  subtype: 'init';
  uuid: string;
  session_id: string;
  apiKeySource: 'user' | 'project' | 'org' | 'temporary' | 'none';
  claude_code_version: string;
  cwd: string;
  tools: string[];
  mcp_servers: Array<{ name: string; status: string }>;
  model: string;
  permissionMode: string;
  slash_commands: string[];
  output_style: string;
  skills: string[];
  plugins: Array<{ name: string; path: string; source?: string; version?: string }>;
  agents: string[];
}

export interface SDKCompactBoundaryMessage {
  type: 'system';
  subtype: 'compact_boundary';
  uuid: string;
  session_id: string;
  compact_metadata: { trigger: 'manual' | 'auto'; pre_tokens: number };
}

/**
 * Microcompact cleared old tool results before a model call (extension of ours: Claude Code
 * 2.1.328 writes a `microcompact_boundary` line in its transcript but streams no message for it).
 * `tokens_saved` is estimated (characters / 4).
 */
export interface SDKMicrocompactBoundaryMessage {
  type: 'system';
  subtype: 'microcompact_boundary';
  uuid: string;
  session_id: string;
  microcompact_metadata: { trigger: 'auto'; cleared_tool_results: number; tokens_saved: number };
}

/**
 * The tool-result budget sent results of an over-budget message by reference before a model call
 * (extension of ours: Claude Code 2.1.328 writes a `content-replacement` record and streams
 * nothing). `tokens_saved` is estimated (characters / 4).
 */
export interface SDKContentReplacementMessage {
  type: 'system';
  subtype: 'content_replacement';
  uuid: string;
  session_id: string;
  content_replacement_metadata: { trigger: 'auto'; replaced_tool_results: number; tokens_saved: number };
}

/**
 * Snip left stale rounds out of the view before a model call (extension of ours: Claude Code
 * 2.1.328 ships no snip stage). `tokens_saved` is estimated (characters / 4).
 */
export interface SDKSnipBoundaryMessage {
  type: 'system';
  subtype: 'snip_boundary';
  uuid: string;
  session_id: string;
  snip_metadata: { trigger: 'auto'; snipped_rounds: number; tokens_saved: number };
}

/**
 * Context collapse folded runs of old rounds (whose results were cleared) into a digest before a
 * model call (extension of ours: Claude Code 2.1.328 ships no collapse stage). `collapsed_rounds`
 * counts the rounds left out; `tokens_saved` is estimated (characters / 4).
 */
export interface SDKCollapseBoundaryMessage {
  type: 'system';
  subtype: 'collapse_boundary';
  uuid: string;
  session_id: string;
  collapse_metadata: { trigger: 'auto'; collapsed_rounds: number; tokens_saved: number };
}

/**
 * The turn switched to its fallback model after repeated overloaded errors (Claude Code's
 * `system`/`model_fallback`).
 */
export interface SDKModelFallbackMessage {
  type: 'system';
  subtype: 'model_fallback';
  uuid: string;
  session_id: string;
  trigger: 'overloaded';
  original_model: string;
  fallback_model: string;
  /** e.g. `Switched to claude-haiku-4-5 due to high demand for claude-sonnet-5-5`. */
  content: string;
}

/**
 * One content block of a model response, as Claude Code streams it: a response with a text and
 * two tool calls arrives as three `assistant` messages sharing `message.id`.
 */
/** A tool call the permission policy refused; it precedes the call's `tool_result` (an error). */
export interface SDKPermissionDeniedMessage {
  type: 'system';
  subtype: 'permission_denied';
  uuid: string;
  session_id: string;
  tool_name: string;
  tool_use_id: string;
  /** Why (see PermissionReasonType): `rule`, `mode`, `workingDir`, `safetyCheck`, `subcommandResults`, `other`; `hook` for a hook's `ask`. */
  decision_reason_type: PermissionReasonType | 'hook';
  /** One-line reason, when there is one beyond the message (e.g. a symlink that leads outside). */
  decision_reason?: string;
  /** The text the model got as the tool result. */
  message: string;
}

export interface SDKAssistantMessage {
  type: 'assistant';
  uuid: string;
  session_id: string;
  /** A Messages API `Message` (id, content, model, stop_reason, usage) holding one content block. */
  message: Record<string, unknown>;
  parent_tool_use_id: string | null;
  /** When the response was recorded (ISO 8601). */
  timestamp?: string;
  /** `request-id` of the Messages API response. */
  request_id?: string;
  /** MCP tool calls of the message: display names (as Claude Code sends them). */
  tool_use_meta?: Array<{ id: string; display_name: string; server_display_name: string; tool_name: string }>;
  /**
   * On the answer of a custom command that stopped before any model call (a `!` line refused or
   * failing): the error block, the command and its outcome (Claude Code 2.1.328's fields).
   */
  local_command_source?: string;
  local_command_run?: { command: string; args: string };
  local_command_outcome?: { kind: string };
  /** On the message of a thinking block: the display the request asked for (`updates`, `summarized`, …). */
  thinking_display?: string;
}

export interface SDKUserMessage {
  type: 'user';
  uuid: string;
  session_id: string;
  /** A Messages API `MessageParam`. */
  message: { role: 'user'; content: unknown };
  parent_tool_use_id: string | null;
  /** Structured output of the tool, on tool_result messages. */
  tool_use_result?: unknown;
  isReplay?: boolean;
  /** A message the runner added (e.g. a token-budget nudge), not the user's. */
  isSynthetic?: boolean;
  /** When it was recorded (ISO 8601). */
  timestamp?: string;
}

/** What a subagent's `assistant` and `user` messages carry besides `parent_tool_use_id` (its Agent call). */
export interface SDKSubagentFields {
  agent_id: string;
  subagent_type: string;
  task_description: string;
}

/** Subtypes of a result message. */
export type ResultSubtype =
  | 'success'
  | 'error_max_turns'
  | 'error_during_execution'
  | 'error_max_budget_usd'
  | 'error_max_structured_output_retries';

/** The last message of every turn. Durations are ms; costs are USD. */
export interface SDKResultMessage {
  type: 'result';
  subtype: ResultSubtype;
  uuid: string;
  session_id: string;
  duration_ms: number;
  duration_api_ms: number;
  is_error: boolean;
  num_turns: number;
  stop_reason: string | null;
  /** Estimated from the price table; 0 with `total_cost_usd_known: false` when a model has no price. */
  total_cost_usd: number;
  /** False when some model's cost is unknown (not in the price table). Extension of ours. */
  total_cost_usd_known: boolean;
  /** `--batch-api` (runner's own): calls answered by batches, fallbacks, USD saved against standard prices. */
  batch_api?: { batched_calls: number; fallbacks: number; fallback_reasons: string[]; saved_usd: number };
  /**
   * Tokens of the turn, with `output_tokens_details.thinking_tokens` (thinking tokens among the
   * output tokens, as far as the API reported them) and `server_tool_use` (web searches the API
   * ran, WebSearch's included; fetches: 0, WebFetch fetches on the worker).
   */
  usage: Usage & {
    output_tokens_details?: { thinking_tokens: number };
    server_tool_use?: { web_search_requests: number; web_fetch_requests: number };
  };
  modelUsage: Record<string, ModelUsage>;
  permission_denials: SDKPermissionDenial[];
  terminal_reason: string;
  /** `custom` when a custom command ended the turn before any model call (then `stop_reason` is null). */
  local_command?: string;
  /** Final text (success only). */
  result?: string;
  structured_output?: unknown;
  api_error_status?: number | null;
  /** Error texts (error subtypes only); the first is the `[ede_diagnostic]` line for execution errors. */
  errors?: string[];
  /**
   * Where the working tree is after the turn (when it follows the turn across hosts): the host,
   * the path there, how often it moved, and the last snapshot (`agent-runner workspace export`
   * materializes it anywhere). Extension of ours.
   */
  workspace?: SDKWorkspaceInfo;
  /**
   * What the context pipeline's stages before auto-compaction freed in this turn, by stage
   * (tokens estimated as characters / 4); absent when none did. Extension of ours.
   */
  context_stages?: {
    tool_result_budget?: { runs: number; replaced_tool_results: number; freed_tokens: number };
    snip?: { runs: number; snipped_rounds: number; freed_tokens: number };
    collapse?: { runs: number; collapsed_rounds: number; freed_tokens: number };
    microcompact?: { runs: number; cleared_tool_results: number; freed_tokens: number };
  };
  /** The session's subagent counters (with subagents on; Claude Code 2.1.328 repeats them on every result). */
  subagent_stats?: SubagentStats;
  /** Which result of the process this is, from 0 (with subagents on, as Claude Code 2.1.328). */
  result_index?: number;
  /** What started the turn, when not a prompt (a task notification). */
  origin?: TurnOrigin;
}

/** `workspace` of a result message and of `agent-runner status`. */
export interface SDKWorkspaceInfo {
  host: string;
  path: string;
  base_commit: string;
  /** Snapshot commit and the tool call it followed; null before the first change. */
  last_snapshot: { commit: string; tool_use_id: string; bytes: number } | null;
  moves: number;
  /**
   * Present when the workspace moved to another host during this turn (the host that held it
   * was gone): where it was. The tree here was rebuilt from the last snapshot.
   */
  moved_from?: { host: string; path: string };
}

/** `system`/`status`: with partial messages, sent before each model request (`requesting`). */
export interface SDKStatusMessage {
  type: 'system';
  subtype: 'status';
  status: 'requesting' | 'compacting' | null;
  uuid: string;
  session_id: string;
}

/**
 * One raw Messages API stream event of a call in flight (`--include-partial-messages`); the
 * whole response follows as `assistant` messages once it is recorded.
 */
export interface SDKPartialAssistantMessage {
  type: 'stream_event';
  /** A `RawMessageStreamEvent` (`message_start`, `content_block_delta`, …). */
  event: Record<string, unknown>;
  session_id: string;
  parent_tool_use_id: null;
  uuid: string;
  /** `id` of the API message the event belongs to. */
  api_message_id?: string;
  /** On `message_start`: time from the request to its first event (ms). */
  ttft_ms?: number;
  /** On `message_start` and the events of a thinking block: the display the request asked for. */
  thinking_display?: string;
}

/**
 * Live estimate of a thinking block's tokens while it streams (`--include-partial-messages`):
 * progress for a spinner, not the billed count. `estimated_tokens` is the block's running total.
 */
export interface SDKThinkingTokensMessage {
  type: 'system';
  subtype: 'thinking_tokens';
  estimated_tokens: number;
  estimated_tokens_delta: number;
  uuid: string;
  session_id: string;
}

export type SDKMessage =
  | SDKSystemInitMessage
  | SDKCompactBoundaryMessage
  | SDKModelFallbackMessage
  | SDKMicrocompactBoundaryMessage
  | SDKContentReplacementMessage
  | SDKSnipBoundaryMessage
  | SDKCollapseBoundaryMessage
  | SDKPermissionDeniedMessage
  | SDKStatusMessage
  | SDKAssistantMessage
  | SDKUserMessage
  | SDKPartialAssistantMessage
  | SDKThinkingTokensMessage
  | SDKTaskMessage
  | SDKResultMessage;
