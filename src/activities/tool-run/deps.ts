import type { SnapshotRef } from '../../common/workspace';
import type { ToolModelCalls } from '../tools/web/model-calls';
import type { TranscriptStore } from '../../store/transcript-store';
import type { ToolContext, ToolOutput, ToolSettings } from '../tools/types';
import type { resolveToolPermission } from '../tool-permission';
import type { AnyToolDefinition } from '../tools/registry';
import { ChildEnvironments } from '../../env/child-env';
import type { SessionTools } from '../session-tools';

/** What `runTool` needs from the worker. */
export interface RunToolDeps {
  store: TranscriptStore;
  /** Runs a tool by name on raw input; never throws for bad input or unknown tools. */
  executeTool(
    name: string,
    rawInput: unknown,
    ctx: ToolContext,
    /** The tool table (default: the default built-in tools; a turn offering opt-in tools passes them too). */
    tools?: ReadonlyMap<string, AnyToolDefinition>,
  ): Promise<ToolOutput & { outcome: 'ok' | 'error' | 'invalid' }>;
  /** Runs an `mcp__…` tool of the turn's stored MCP tool list; never throws (see `src/activities/mcp/activities.ts`). */
  executeMcpTool?(
    sessionId: string,
    toolsRef: string,
    name: string,
    rawInput: unknown,
    ctx: ToolContext,
  ): Promise<ToolOutput & { outcome: 'ok' | 'error' | 'invalid' }>;
  /** Tool settings from config (`tools:`), passed to every tool run. */
  settings?: ToolSettings;
  /** Whether a tool may be re-run after a crash (unknown tools count as idempotent: they do nothing). */
  isIdempotent(name: string): boolean;
  /**
   * Stores a snapshot of the workspace after a tool that can change files (the non-idempotent
   * ones). Absent when workspaces are not followed.
   * @throws SnapshotTooLargeError when the snapshot is over the limit.
   */
  snapshot?(input: { sessionId: string; toolUseId: string; root: string; base: string }): Promise<SnapshotRef>;
  /**
   * Decides a `check` permission against the tool's input and the real files.
   * @default resolveToolPermission (src/activities/tool-permission.ts)
   */
  resolvePermission?: typeof resolveToolPermission;
  /** Environments of the processes tools start. @default new ChildEnvironments() (default secret names) */
  childEnv?: ChildEnvironments;
  /** This worker's host queue (workspaces followed), checked against `expectHostQueue`. */
  hostQueue?: string;
  /** Skill and ToolSearch: tools that read the session's stored definitions and tool lists. */
  sessionTools?: SessionTools;
  /** Model calls of the tools that make them (WebSearch, WebFetch). */
  modelCalls?: ToolModelCalls;
}

let sharedChildEnv: ChildEnvironments | undefined;
/** The child environments of a worker that was given none (default secret names). */
export function defaultChildEnv(): ChildEnvironments {
  sharedChildEnv ??= new ChildEnvironments();
  return sharedChildEnv;
}
