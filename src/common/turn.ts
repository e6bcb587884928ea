import type { ModelUsage, Usage } from './usage';
import type { FileReadState } from './tools';
import type { ResultSubtype } from './sdk-messages';
import type { TurnLimits } from '../engine/limits';
import type { PermissionMode } from '../engine/permissions';
import type { SettingsEnvRef } from './permissions';

/** Schema version of workflow inputs carried across continue-as-new. */
export const WORKFLOW_STATE_VERSION = 1;

/** Options of one turn (`submitMessage`), after defaults are applied. JSON-safe. */
export interface TurnOptions {
  /** Model id, e.g. `claude-sonnet-4-5`. */
  model: string;
  /** `max_tokens` of each model call (tokens). */
  maxTokens: number;
  limits: TurnLimits;
  permissionMode: PermissionMode;
  /** Allow rules (`--allowedTools` and settings files), path rules in canonical form. */
  allowedTools?: string[];
  /** Deny rules (`--disallowedTools` and settings files). */
  disallowedTools?: string[];
  /** Ask rules (settings files): headless runs deny these calls. */
  askTools?: string[];
  /** More working directories (`--add-dir`, `permissions.additionalDirectories`), absolute. */
  additionalDirectories?: string[];
  /** Settings files whose `env` Bash commands get (re-read by the activity; see SettingsEnvRef). */
  settingsEnv?: SettingsEnvRef;
  /** Tools offered to the model (default: all built-in tools). */
  tools?: string[];
  /** Replaces the default system prompt. */
  systemPrompt?: string;
  /** Appended to the system prompt. */
  appendSystemPrompt?: string;
  /** Id of a `budgetPoolWorkflow` this turn reports spend to. */
  budgetPoolId?: string;
  /** Activity timeouts; defaults in `src/workflows/timeouts.ts`. */
  timeouts?: ActivityTimeouts;
  /** Model calls per workflow run before a long turn continues as new. @default 200 */
  maxStepsPerRun?: number;
}

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

/** Input of `turnWorkflow`. */
export interface TurnInput {
  v: number;
  sessionId: string;
  /** Workflow id of the turn; also written on each transcript line. */
  turnId: string;
  turnNumber: number;
  cwd: string;
  prompt: string;
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
  budgetTracker: { continuationCount: number; lastDeltaTokens: number; lastTurnTokens: number };
  compactions: number;
  /** Runs of this turn so far (1 on the first continue-as-new). */
  runs: number;
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
  errors: string[];
  permissionDenials: DenialRecord[];
  /** Last line of the conversation after the turn. */
  leafUuid: string;
  /** Transcript uuids written by the turn, in conversation order (prompt excluded). */
  events: string[];
  readFileState: Record<string, FileReadState>;
  apiErrorStatus: number | null;
}

/** Answer of the turn's `progress` query: what a streaming client needs. */
export interface TurnProgress {
  /** Transcript uuids written so far, in order. */
  events: string[];
  done: boolean;
  /** What the turn is doing now, e.g. `callModel`, `runTool Bash`, `idle`. */
  activity: string;
  numTurns: number;
  costUsd: number;
  usage: Usage;
  limits: TurnLimits;
  /** Workflow id of the budget pool the turn belongs to, or null. */
  budgetPoolId?: string | null;
  /** Last status the pool sent, or null (none yet, or no pool). */
  pool?: PoolView | null;
}

/** What a member turn knows of its budget pool (USD). */
export interface PoolView {
  exhausted: boolean;
  limitUsd: number;
  /** Spend of the whole pool when it last told the turn. */
  spentUsd?: number;
}
