import type { LeaseReport } from './rate-pool';
import type { BatchApiOptions, BatchApiReport } from './batch';
import type { ContentRef } from './content-ref';
import type { ModelUsage, Usage } from './usage';
import type { FileReadState } from './tools';
import type { ResultSubtype } from './sdk-messages';
import type { TurnLimits } from './limits';
import type { PermissionMode } from './permissions';
import type { McpServerState } from './mcp';
import type { TurnHooks } from './hooks';
import type { ApprovalSettings, PendingApproval } from './approvals';
import type { StructuredOutputProgress } from './structured-output';
import type { CompactionOptions } from './compaction';
import type { PromptCommand } from './prompt-command';
import type { WorkspaceRef } from './workspace';
import type { SettingSource } from './context';
import type { SettingsEnvRef } from './permissions';
import type { SubagentSettings } from './agents';
import type { AgentRunInfo, AgentRunReport } from './agent-run';
import type { TurnOrigin } from './tasks';
import type { ThinkingOptions } from './thinking';

/** Schema version of workflow inputs carried across continue-as-new. */
export const WORKFLOW_STATE_VERSION = 1;

/** Options of one turn (`submitMessage`), after defaults are applied. JSON-safe. */
export interface TurnOptions {
  /** Model id, e.g. `claude-sonnet-4-5`. */
  model: string;
  /** `max_tokens` of each model call (tokens); a model with a lower limit gets its own. */
  maxTokens: number;
  /** Effort and extended thinking asked for (absent: each model's defaults). */
  thinking?: ThinkingOptions;
  limits: TurnLimits;
  permissionMode: PermissionMode;
  /** Allow rules (`--allowedTools` and settings files), path rules in canonical form. */
  allowedTools?: string[];
  /** Deny rules (`--disallowedTools` and settings files). */
  disallowedTools?: string[];
  /**
   * Where each `Agent(<type>)` deny rule came from, by agent type, in Claude Code's source names
   * (`cliArg`, `userSettings`, `projectSettings`, `localSettings`, `flagSettings`): the denial text
   * names it (src/activities/permissions/agent-type.ts). Only types named by deny rules.
   */
  agentRuleSources?: Record<string, string>;
  /** Ask rules (settings files): headless runs deny these calls. */
  askTools?: string[];
  /** More working directories (`--add-dir`, `permissions.additionalDirectories`), absolute. */
  additionalDirectories?: string[];
  /** Settings files whose `env` Bash commands get (re-read by the activity; see SettingsEnvRef). */
  settingsEnv?: SettingsEnvRef;
  /** Tools offered to the model (default: all built-in tools). */
  tools?: string[];
  /**
   * `tools` is a subagent type's own list (its `tools` frontmatter, not `*`): the requests offer
   * exactly those, in that order (see {@link CallModelInput.ownToolList}).
   */
  ownToolList?: true;
  /**
   * With the default tool set (`tools` absent) and an approver: the tools Claude Code 2.1.328's
   * SDK adds to it (src/common/tools.ts `APPROVER_DEFAULT_TOOL_NAMES`). Absent in turns recorded
   * before, whose tool list stays the default one.
   */
  approverTools?: string[];
  /**
   * Replaces the default system prompt (`--system-prompt`). Client side only: the QueryEngine
   * stores the text in the session's content store and sends {@link systemPromptKey} instead, so
   * that no system prompt part travels in workflow history.
   */
  systemPrompt?: string;
  /** Appended to the system prompt (`--append-system-prompt`). Client side only, as {@link systemPrompt}. */
  appendSystemPrompt?: string;
  /** Content key (session content store) of the text replacing the default system prompt. */
  systemPromptKey?: string;
  /** Content key of the text appended to the system prompt. */
  appendSystemPromptKey?: string;
  /** Memory sources read when the session starts (`--setting-sources`). @default user, project and local */
  settingSources?: SettingSource[];
  /** Content key of the user's own memory files (JSON `MemoryFile[]`), loaded by the client. */
  userMemoryKey?: string;
  /** Publish each model call's stream events to the store's side channel (`--include-partial-messages`). */
  includePartialMessages?: boolean;
  /** Id of a `budgetPoolWorkflow` this turn reports spend to. */
  budgetPoolId?: string;
  /**
   * Workflow id of a `ratePoolWorkflow` (`agent-rate-pool-<id>`) the turn leases each model call
   * from: requests and tokens per minute shared with every member.
   */
  ratePoolId?: string;
  /**
   * Priority of the turn's leases in its rate pool and of its model-call activities' tasks
   * (Temporal priority key): 1 (first) … 5 (last). @default 3
   */
  ratePriority?: number;
  /** Fairness key of the turn's leases (e.g. the batch id): keys of one priority share evenly. @default the turn */
  rateFairnessKey?: string;
  /** Activity timeouts; defaults in `src/workflows/timeouts.ts`. */
  timeouts?: ActivityTimeouts;
  /** Model calls per workflow run before a long turn continues as new. @default 200 */
  maxStepsPerRun?: number;
  /** MCP servers of the turn: the ref of the session's stored MCP config (`--mcp-config`). */
  mcp?: { configRef: string };
  /** Hooks of the turn (settings files): the stored config's ref and each event's matchers. */
  hooks?: TurnHooks;
  /**
   * Durable approvals: with this set, a call the mode or a hook would ask about waits for an
   * answer (`answerApproval`) instead of being denied. Absent: such calls are denied (headless).
   */
  approvals?: ApprovalSettings;
  /**
   * Structured output: content key of the session's stored JSON Schema (the schema itself is
   * content and stays in the store). The model gets the StructuredOutput tool, and the turn succeeds only with
   * a valid call of it (`result.structured_output`).
   */
  jsonSchemaKey?: string;
  /**
   * StructuredOutput attempts per turn (failed calls and text answers without the tool) before
   * `error_max_structured_output_retries`. @default 5. Env (CLI): `MAX_STRUCTURED_OUTPUT_RETRIES`.
   */
  maxStructuredOutputRetries?: number;
  /**
   * Model to switch to when calls to `model` keep failing with `overloaded_error` (529); the
   * stream says so (`system/model_fallback`) and `modelUsage` gets an entry per model used.
   * Must differ from `model`.
   */
  fallbackModel?: string;
  /**
   * `--batch-api`: model calls go through the Message Batches API at half price, the turn
   * waiting on durable timers (docs/batch.md). Absent: the synchronous Messages API.
   */
  batchApi?: BatchApiOptions;
  /** When and how the turn compacts its context (auto-compaction threshold, window, preserved tail). */
  compaction?: CompactionOptions;
  /** Consecutive responses cut by `max_tokens` that the turn asks the model to resume. @default 3 */
  maxOutputTokensRecoveries?: number;
  /**
   * Content key of the session's definitions (custom commands, skills, agents, plugins; stored by
   * the client, src/config-files/definitions). Absent: the session has none (the Skill tool is
   * not offered).
   */
  definitionsKey?: string;
  /**
   * Tool deferral (Claude Code's `ENABLE_TOOL_SEARCH`): `on` defers rarely used built-in tools
   * and every MCP tool behind ToolSearch, `off` sends every tool, `auto:N` defers only when the
   * tools would take more than N% of the context window. @default "on"
   */
  toolSearch?: ToolSearchMode;
  /**
   * `--bare`: no memory files, git status or environment context, no hooks, plugins, skills or
   * commands; the system prompt names only the working directory and the date.
   */
  bare?: boolean;
  /**
   * The session's agent types: the ref of its stored `AgentList` (src/common/agents.ts), which
   * `callModel` reads for the agent listing and the `Agent` tool reads to resolve
   * `subagent_type`. Absent: the built-in types.
   */
  agentsRef?: ContentRef;
  /** How subagents are started (spawn depth, background switch); absent: Claude Code's defaults. */
  subagents?: SubagentSettings;
}

/** See {@link TurnOptions.toolSearch}. */
export type ToolSearchMode = 'on' | 'off' | `auto:${number}`;

/**
 * Activity timeouts of a turn (ms). A worker killed mid-activity is noticed when its heartbeat
 * timeout expires, so these bound how fast a crashed step is retried elsewhere.
 */
export interface ActivityTimeouts {
  /** @default 30000 */
  modelHeartbeatMs?: number;
  /** @default 600000 */
  modelStartToCloseMs?: number;
  /** Attempts of one model call, first included. @default 10 */
  modelMaxAttempts?: number;
  /** @default 10000 */
  toolHeartbeatMs?: number;
  /** @default 900000 (Bash may run 10 min) */
  toolStartToCloseMs?: number;
}

/** A permission denial as kept in workflow state. */
export interface DenialRecord {
  tool_name: string;
  tool_use_id: string;
  tool_input: unknown;
}

/** Input of the `recordPrompt` activity: the prompt line of a turn, its text by reference. */
export interface RecordPromptInput {
  sessionId: string;
  /** Uuid of the prompt line (from the session; stable across retries). */
  uuid: string;
  parentUuid: string | null;
  turnId: string;
  cwd: string;
  /** When the turn recorded it (workflow time, ISO 8601). */
  timestamp: string;
  prompt: ContentRef;
  /** A message `SendMessage` delivered to this running agent (see `TranscriptEntry.coordinatorMessage`). */
  delivered?: true;
}

/** Input of `turnWorkflow`. */
export interface TurnInput {
  v: number;
  sessionId: string;
  /** Workflow id of the turn; also written on each transcript line. */
  turnId: string;
  turnNumber: number;
  cwd: string;
  /** The prompt, stored in the session's content by the client; the turn records its line from it. */
  promptRef?: ContentRef;
  /** The prompt itself: only in inputs of turns started by versions before prompts went by ref. */
  prompt?: string;
  /** Set when the prompt (by ref) is a runner command (`/compact`, `/clear`): which one. */
  command?: PromptCommand;
  /** The prompt's first line, cut to `LABEL_CHARS` (a small summary for the Web UI; see `SubmitRequest`). */
  promptLine?: string;
  /** Uuid of the prompt's transcript line. */
  promptUuid: string;
  /** Leaf of the conversation before this turn (null for the first turn). */
  parentUuid: string | null;
  options: TurnOptions;
  /** Read-file state carried from earlier turns, by absolute path. */
  readFileState: Record<string, FileReadState>;
  /** Id of the session workflow (to report progress), when run as its child. */
  sessionWorkflowId?: string;
  /** State carried by continue-as-new (absent on the first run of a turn). */
  carry?: TurnCarry;
  /** Where the session's workspace was after the previous turn (absent: find it from `cwd`). */
  workspace?: WorkspaceRef | null;
  /** A subagent's turn: which agent and which run (absent for the session's own agent). */
  agent?: AgentRunInfo;
  /**
   * A turn a finished task's notification started: `promptRef` is the stored notification, and
   * its line is written by `recordNotification`; `origin` goes on the turn's result.
   */
  notification?: { taskId: string; runId: string; origin: TurnOrigin };
}

/**
 * What a long turn carries into its next run when it continues as new: refs and counters only
 * (bounded: about 40 bytes per transcript event plus the capped read-file state).
 */
export interface TurnCarry {
  startedAtMs: number;
  limits: TurnLimits;
  events: string[];
  leaf: string;
  numTurns: number;
  usage: Usage;
  modelUsage: Record<string, ModelUsage>;
  durationApiMs: number;
  stopReason: string | null;
  lastAssistantUuid: string | null;
  lastMessageType: 'assistant' | 'user' | 'none';
  lastContentTypes: string[];
  denials: DenialRecord[];
  readFileState: Record<string, FileReadState>;
  /** Last status from the budget pool (USD amounts), or null before the first. */
  pool: PoolView | null;
  /** Budget pool protocol state: messages sent (`seq`), acknowledged (`ack`), newest status `rev`. */
  poolSync?: { seq: number; ack: number; rev: number; reachable: boolean };
  /** Rate pool protocol state: last lease asked (`seq`), granted, the report not yet sent. */
  rateSync?: RateSync;
  budgetTracker: { continuationCount: number; lastDeltaTokens: number; lastTurnTokens: number };
  compactions: number;
  /** What the context pipeline's stages freed this turn (absent until one does). */
  contextStages?: ContextStageTotals;
  /** The turn's MCP servers, once connected: the stored tool list's ref and each server's status. */
  mcp?: TurnMcpState;
  /** Stop hooks that made the turn go on so far (`stop_hook_active` after the first). */
  stopHookBlocks?: number;
  /**
   * The line whose text is the turn's result when that is not the last assistant line's (a
   * hook's notice), or null for an empty result (as Claude Code's after a hook stopped the turn
   * at a tool call, or a capped Stop hook). Absent: the last assistant line's text.
   */
  resultLine?: string | null;
  /** A refused response (`stop_reason: "refusal"`) was noted to the model: the next one ends the turn. */
  refusalNoted?: boolean;
  /**
   * A hook blocked the prompt: it leaves the conversation, which goes on from the prompt's
   * parent (the outcome's leaf), as in Claude Code.
   */
  promptDropped?: boolean;
  /** Runs of this turn so far (1 on the first continue-as-new). */
  runs: number;
  /** Model the turn calls now: `options.model`, or the fallback after repeated overloaded errors. */
  model?: string;
  /** Structured output attempts of this turn, and the valid call once there is one. */
  structuredOutput?: StructuredOutputProgress;
  /** Consecutive responses cut by `max_tokens` that the turn resumed. */
  outputRecoveries?: number;
  /** Context tokens of the turn's compactions so far (a `taskBudget` loses them). */
  compactedContextTokens?: number;
  /**
   * Context of the last model call (input, cache and output tokens) and its window, for
   * auto-compaction; `afterCompaction` when that call came right after a compaction.
   */
  lastContext?: { tokens: number; window: number; afterCompaction?: boolean };
  /**
   * Set when a compaction did not bring the next call under the auto-compact threshold (what the
   * compaction keeps is itself too large): proactive auto-compaction is off for the rest of the
   * turn, since another would not help either; a prompt the API refuses is still compacted.
   */
  autoCompactIneffective?: boolean;
  /** True from a compaction until the next model call completes (a prompt still too long then is not compacted again). */
  compactedSinceCall?: boolean;
  /** Where the workspace is (null: not followed). */
  workspace?: WorkspaceRef | null;
  /** Allow rules the skills loaded so far brought (their `allowed-tools`): they apply from the load on. */
  skillRules?: string[];
  /** An approved ExitPlanMode took the turn out of plan mode (absent: still in the mode it started in). */
  planExited?: boolean;
  /** Tool calls of the turn (refused ones included), and the distinct tools that ran without error, sorted. */
  toolUses?: number;
  toolsUsed?: string[];
}

/** How a turn ended: the workflow's return value; the client turns it into a result message. */
export interface TurnOutcome {
  subtype: ResultSubtype;
  isError: boolean;
  /** Claude Agent SDK `terminal_reason`. */
  terminalReason: string;
  numTurns: number;
  durationMs: number;
  durationApiMs: number;
  usage: Usage;
  modelUsage: Record<string, ModelUsage>;
  costUsd: number;
  costKnown: boolean;
  stopReason: string | null;
  /** Transcript uuid of the last assistant message (the result text is read from it). */
  lastAssistantUuid: string | null;
  /**
   * When present, the result text is read from this line instead (a hook's notice), or is empty
   * (null); see `TurnCarry.resultLine`.
   */
  resultTextUuid?: string | null;
  errors: string[];
  permissionDenials: DenialRecord[];
  /** Last line of the conversation after the turn (null: none, the only prompt was blocked by a hook). */
  leafUuid: string | null;
  /** Transcript uuids written by the turn, in conversation order (prompt excluded). */
  events: string[];
  readFileState: Record<string, FileReadState>;
  apiErrorStatus: number | null;
  /** With `options.batchApi`: calls answered by batches, calls that fell back, and the USD saved. */
  batchApi?: BatchApiReport;
  /**
   * Structured output: uuid of the tool_result line of the valid StructuredOutput call, whose
   * `structuredOutput` field holds the object (`result.structured_output`).
   */
  structuredOutputUuid?: string | null;
  /** Where the workspace is after the turn: host, path, last snapshot (absent: not followed). */
  workspace?: WorkspaceRef | null;
  /**
   * A command ended the turn before any model call (a refused or failing `!` line, a skill under
   * `--bare`): the result's text is its answer line's, and it has no `terminal_reason`.
   */
  answeredWithoutModel?: boolean;
  /** With {@link answeredWithoutModel}, for a custom command whose `!` line stopped it: Claude Code's `local_command` (`custom`). */
  localCommand?: string;
  /** A subagent's turn: the figures of its hand-back (absent for the session's own agent). */
  agent?: AgentRunReport;
  /** A turn a task notification started (the result's `origin`). */
  origin?: TurnOrigin;
  /** What the context pipeline's stages freed this turn (absent when none did). */
  contextStages?: ContextStageTotals;
}

/**
 * What the stages of the context pipeline before auto-compaction did in a turn, by stage
 * (`toolResultBudget`: model calls that sent results of an over-budget message by reference;
 * `microcompact`: model calls that cleared old tool results, results cleared, tokens freed,
 * estimated as characters / 4).
 */
export interface ContextStageTotals {
  microcompact?: { runs: number; clearedToolResults: number; freedTokens: number };
  /** The tool-result budget: model calls that replaced results, results replaced, tokens freed. */
  toolResultBudget?: { runs: number; replacedToolResults: number; freedTokens: number };
  /** Snip: model calls that removed stale rounds, rounds removed, tokens freed. */
  snip?: { runs: number; snippedRounds: number; freedTokens: number };
  /** Context collapse: model calls that collapsed rounds, rounds left out, tokens freed. */
  collapse?: { runs: number; collapsedRounds: number; freedTokens: number };
}

/** Answer of the turn's `progress` query: what a streaming client needs. */
/**
 * What a turn has spent and recorded so far (query `spend`): the figures of its outcome, also for
 * a turn workflow that failed (the client reports them in the failed turn's result).
 */
export type TurnSpend = Pick<
  TurnOutcome,
  'numTurns' | 'durationApiMs' | 'usage' | 'modelUsage' | 'costUsd' | 'costKnown' | 'permissionDenials'
>;

export interface TurnProgress {
  /** Transcript uuids written so far, in order. */
  events: string[];
  done: boolean;
  /** What the turn is doing now, e.g. `callModel`, `runTool Bash`, `idle`. */
  activity: string;
  /** The same for people: `model call 3`, `Bash: npm test` (a short first line, src/common/summary.ts). */
  activityLabel?: string;
  /** When the current activity started (ISO time). */
  activitySince?: string;
  /** Uuid of the assistant line of the model call in flight (its stream events' channel), or null. */
  modelCall?: string | null;
  numTurns: number;
  costUsd: number;
  usage: Usage;
  limits: TurnLimits;
  /** Workflow id of the budget pool the turn belongs to, or null. */
  budgetPoolId?: string | null;
  /** Last status the pool sent, or null (none yet, or no pool). */
  pool?: PoolView | null;
  /** MCP servers of the turn, once connected (absent without `--mcp-config`, or before). */
  mcp?: TurnMcpState;
  /** Approvals the turn waits for now (absent when none). */
  approvals?: PendingApproval[];
  /** Where the workspace is now: host, path, last snapshot (absent: not followed). */
  workspace?: WorkspaceRef | null;
}

/** What a member turn knows of its budget pool (USD). */
export interface PoolView {
  exhausted: boolean;
  limitUsd: number;
  /** Spend of the whole pool when it last told the turn. */
  spentUsd?: number;
}

/** A turn's MCP servers after `connectMcpServers`: small (the tool list is in the store). */
export interface TurnMcpState {
  /** Ref of the stored tool list (names, descriptions, input schemas). */
  toolsRef: string;
  servers: McpServerState[];
}

/** A turn's rate pool protocol counters (carried by continue-as-new). */
export interface RateSync {
  /** Last lease number asked for (-1: none). */
  seq: number;
  /** Highest lease number granted. */
  granted: number;
  /** False once the pool could not be signalled: the turn goes on without it. */
  reachable: boolean;
  /** The report of the last leased call, sent with the next request or as the turn leaves. */
  report?: LeaseReport;
  /** 429s in a row the pool answered by a new lease (bounded: {@link MAX_RATE_THROTTLES}). */
  throttles: number;
}

/** 429s in a row a rate pool member retries through the pool before the call fails. */
export const MAX_RATE_THROTTLES = 20;
