import type { ContentRef } from './content-ref';
import type { PromptCommand } from './prompt-command';
import type { ModelUsage, Usage } from './usage';
import type { WorkspaceRef } from './workspace';
import type { FileReadState } from './tools';
import type { DenialRecord, TurnOptions } from './turn';
import type { TaskTable } from './tasks';

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
  /** The session's tasks (subagents; issue 21 adds background work): absent before the first. */
  tasks?: TaskTable;
  /**
   * `custom_id`s of batch responses no turn counted that the session has added to its totals
   * (signal `batchSpend`; the most recent {@link MAX_SETTLED_BATCH_CALLS}): each is counted once.
   */
  settledBatchCalls?: string[];
}

/** How many settled batch `custom_id`s a session remembers (a retried signal comes within seconds). */
export const MAX_SETTLED_BATCH_CALLS = 200;

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
  /**
   * The prompt, stored by the client in the session's content before the Update
   * (`storePrompt`): the Update carries this ref, never the text. (Versions before refs sent the
   * text; the validator refuses that now.)
   */
  prompt: ContentRef;
  /** Set by the client when the prompt is a runner command (`/compact`, `/clear`). */
  command?: PromptCommand;
  /**
   * The prompt's first line, cut to `LABEL_CHARS` (60): a small summary for the turn's Web UI
   * summary. Never the prompt itself.
   */
  promptLine?: string;
  /** Uuid for the prompt line (lets a retrying client de-duplicate). */
  promptUuid?: string;
  options?: Partial<TurnOptions>;
}

/** Answer of `submitMessage`: where to follow the turn. */
export interface SubmitResponse {
  turnWorkflowId: string;
  turnNumber: number;
  promptUuid: string;
  /**
   * What the session had spent before this turn (every earlier turn, resumed ones too): a
   * result's `total_cost_usd` and `modelUsage` are the session's totals, as in Claude Code.
   * Absent from sessions of older versions.
   */
  sessionBefore?: SessionSpend;
}

/** A session's spend so far: USD (known when every model had a price) and usage by model. */
export interface SessionSpend {
  costUsd: number;
  costKnown: boolean;
  modelUsage: Record<string, ModelUsage>;
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
