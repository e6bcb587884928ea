import type { ModelUsage, Usage } from './usage';
import type { WorkspaceRef } from './workspace';
import type { FileReadState } from './tools';
import type { DenialRecord, TurnOptions } from './turn';

/** Session state carried across turns and continue-as-new (the seeds' QueryEngine fields). */
export interface SessionState {
  v: number;
  sessionId: string;
  cwd: string;
  /** Last line of the conversation (null before the first turn). */
  leafUuid: string | null;
  turnCount: number;
  usage: Usage;
  modelUsage: Record<string, ModelUsage>;
  totalCostUsd: number;
  costKnown: boolean;
  /** Most recent permission denials (capped). */
  permissionDenials: DenialRecord[];
  /** Read-file state by absolute path (capped, most recent kept). */
  readFileState: Record<string, FileReadState>;
  lastTurnWorkflowId: string | null;
  /** Where the session's workspace is (host, path, last snapshot); absent before a followed turn. */
  workspace?: WorkspaceRef | null;
}

/** Input of `sessionWorkflow`. */
export interface SessionInput {
  v: number;
  sessionId: string;
  cwd: string;
  /** Defaults for turns; a submit may override them. */
  defaults: TurnOptions;
  /** Carried state after continue-as-new; absent on a fresh start (then loaded from the store). */
  state?: SessionState;
  /** Idle time after which the session workflow completes (ms); resume rebuilds it. */
  idleTimeoutMs?: number;
}

/** Argument of the `submitMessage` update. */
export interface SubmitRequest {
  prompt: string;
  /** Uuid for the prompt line (lets a retrying client de-duplicate). */
  promptUuid?: string;
  options?: Partial<TurnOptions>;
}

/** Answer of `submitMessage`: where to follow the turn. */
export interface SubmitResponse {
  turnWorkflowId: string;
  turnNumber: number;
  promptUuid: string;
}

/** What `loadSession` finds in the store for a session. */
export interface StoredSessionSummary {
  exists: boolean;
  leafUuid: string | null;
  usage: Usage;
  modelUsage: Record<string, ModelUsage>;
  /** Number of prompts typed by a user. */
  turnCount: number;
}
