import type { z } from 'zod';
import type { ContentBlock } from '../../common/transcript';
import type { FileReadState } from '../../common/tools';
import type { ContextAttachment } from '../../common/context';
import type { ToolModelSpend } from '../../common/usage';
import type { ToolModelCalls } from './web/model-calls';
import type { BackgroundLaunch } from '../../common/shell-tasks';

/** What a tool gets besides its input. */
export interface ToolContext {
  /** Working directory of the session; relative paths resolve against it. */
  cwd: string;
  /** Aborted when the activity is cancelled (turn interrupted, worker shutting down). */
  signal: AbortSignal;
  /** Read-file state the session holds for `absPath`, if any. */
  readState(absPath: string): FileReadState | undefined;
  /** Tells Temporal the tool is alive (call it at least every few seconds in long work). */
  heartbeat(): void;
  /** Worker settings from `temporal.yaml` (`tools:`); absent fields use each tool's defaults. */
  settings?: ToolSettings;
  /**
   * Directory a Bash command starts in: where the session's previous command left its shell
   * (absolute; inside `cwd`). Absent: `cwd`.
   */
  shellCwd?: string;
  /** Environment of the processes the tool starts (src/env/child-env.ts). @default toolEnvironment() */
  env?: NodeJS.ProcessEnv;
  /** Files a search (Glob, Grep) must leave out of its results: denied by a rule, or outside the working directories. */
  readDenied?: (absPath: string) => boolean;
  /**
   * The session whose call this is: a tool's own model calls name it as the API's
   * `metadata.user_id`, and a background command's output file is named after it.
   */
  sessionId?: string;
  /** The model that asked for the call (its assistant line's): WebSearch and WebFetch call it too. */
  callingModel?: string;
  /** Model calls for tools that need one (WebSearch, WebFetch); absent: such tools answer that they cannot run. */
  modelCalls?: ToolModelCalls;
  /**
   * For Write and Edit: the real path the permission check resolved for `file_path`. The write is
   * refused when the parent directory no longer resolves to its directory (src/activities/tools/safe-write.ts).
   */
  checkedPath?: string;
  /**
   * The session's plan file (plan mode's, named by its environment line), or undefined when the
   * session did not start in plan mode. For ExitPlanMode.
   */
  planFile?: () => Promise<string | undefined>;
  /**
   * A person approved this very call, having seen its input: Edit and Write may change an
   * existing file the session has not Read (a file changed since a Read is still refused).
   */
  approved?: boolean;
}

/** Tool settings from config (`tools:` in temporal.yaml). */
export interface ToolSettings {
  /** Bash timeout when the input gives none (ms). @default 120000 */
  bashTimeoutMs?: number;
  /** Characters of Bash output captured (start and end kept past it). @default 8000000 */
  bashOutputLimitChars?: number;
  /** Characters of a tool result above which it is kept by reference (a preview and a file). @default 30000 */
  largeResultChars?: number;
}

/** What a tool run produced. */
export interface ToolOutput {
  /** `tool_result` content sent back to the model. */
  content: string | ContentBlock[];
  /** Sets `is_error` on the tool_result. */
  isError: boolean;
  /** Structured output for SDK consumers (`tool_use_result`), e.g. Read's `{type, file}`. */
  structured?: unknown;
  /** Read-file state to record for a path (Read, Write and Edit set it). */
  fileState?: { path: string; state: FileReadState };
  /**
   * Bash: where the command left the shell, relative to `cwd` (`""` = `cwd` itself); the next
   * Bash call of the session starts there. Absent when it could not be told.
   */
  shellCwd?: string;
  /**
   * Blocks that follow the tool_result in the same user message (a skill's text): recorded on the
   * result's line and streamed as a synthetic user message after it.
   */
  followUp?: ContentBlock[];
  /** Context attached to the result's line (the files a skill's `@` references name). */
  attachments?: ContextAttachment[];
  /** Allow rules the call brings into the turn (a loaded skill's `allowed-tools`). */
  allowedRules?: string[];
  /** Model calls the tool made (WebSearch's search, WebFetch's summary): what they were billed. */
  modelSpend?: ToolModelSpend;
  /** Bash with `run_in_background`: the command to launch as a task of the session (the workflow starts it). */
  background?: BackgroundLaunch;
}

/**
 * A model-facing tool. Names, input schemas and result formats follow Claude Code's, because
 * Claude models are tuned to them; descriptions are our own words.
 */
export interface ToolDefinition<I = unknown> {
  name: string;
  /** Text shown to the model in the `tools` array. */
  description: string;
  /** zod schema of the input; a failing input becomes an `is_error` tool_result. */
  inputSchema: z.ZodType<I>;
  /** True when the tool never changes anything (safe to run in parallel with its peers). */
  readOnly: boolean;
  /**
   * True when running it twice has the same effect as running it once. A non-idempotent tool
   * that was in flight when its worker died is not re-run (its outcome is reported as unknown).
   */
  idempotent: boolean;
  run(input: I, ctx: ToolContext): Promise<ToolOutput>;
}
