import type { BackgroundLaunch } from './shell-tasks';
import type { ScopedRules, SettingsEnvRef } from './permissions';
import type { PermissionMode } from './permissions';

/**
 * Wire types of tool runs, shared by the turn workflow and the tool activities.
 * Only small fields travel through workflow history: tool inputs and outputs stay in the
 * transcript store (DESIGN.md rule 1).
 */
import type { SnapshotRef } from './workspace';
import { SKILL_TOOL, TOOL_SEARCH_TOOL } from './session-tools';
import type { ToolModelSpend } from './usage';

/** Names of the built-in tools offered by default, as Claude Code names them. */
export const BUILTIN_TOOL_NAMES = ['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep'] as const;
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/**
 * Tools that reach the web (and call the model again): offered by default, deferred to ToolSearch
 * as Claude Code 2.1.328 defers them (see `DEFERRED_BY_DEFAULT` in `session-tools.ts`).
 */
export const WEB_TOOL_NAMES = ['WebSearch', 'WebFetch'] as const;

/** Every tool the runner has (the values `--tools` takes). */
export const TOOL_NAMES: readonly string[] = [...BUILTIN_TOOL_NAMES, ...WEB_TOOL_NAMES];

/**
 * The task tools (subagents, src/workflows/task-tools.ts): the workflow answers them itself.
 * `Agent` is offered to the model under that name; `--tools Task` and `system/init` use
 * Claude Code's other name for it, `Task`.
 */
export const TASK_TOOL_NAMES = ['Agent', 'SendMessage', 'TaskStop', 'ListAgents'] as const;

/**
 * The tools a turn offers with no `--tools`, in that order: the built-in tools, the web tools and
 * the task tools. As in Claude Code 2.1.328, WebSearch and WebFetch are among them and deferred
 * (loaded with ToolSearch) unless tool search is off; a call of one no rule allows is denied headless.
 */
/**
 * The Cron tools: offered when `--tools` (or the SDK's `tools`) names them and the turn has a
 * session (its jobs are the session's tasks); `CLAUDE_CODE_DISABLE_CRON=1` takes them away, as in
 * Claude Code 2.1.328, which defers them by default.
 */
export const CRON_TOOL_NAMES = ['CronCreate', 'CronList', 'CronDelete'] as const;

export const DEFAULT_TOOL_NAMES: readonly string[] = [...BUILTIN_TOOL_NAMES, ...WEB_TOOL_NAMES, ...TASK_TOOL_NAMES];

/**
 * Tools of Claude Code 2.1.328 the runner does not have yet (background work is issue 21): a
 * `--tools` list naming them is accepted, as Claude Code accepts names it does not know, and
 * they are left out with a warning.
 */
export const CLAUDE_CODE_ONLY_TOOLS: ReadonlySet<string> = new Set([
  'TodoWrite',
  'EnterWorktree',
  'ExitWorktree',
  'ReportFindings',
  'Workflow',
  'TaskOutput',
  'BashOutput',
  'KillShell',
]);

/**
 * Built-in tools offered only when `--tools` (or the SDK's `tools`) names them: Claude Code
 * 2.1.328 defers them by default (loaded through ToolSearch).
 * Turns recorded before they existed could not name them, so their permission decisions and
 * runs are unchanged. AskUserQuestion, ExitPlanMode and EnterPlanMode are ones only in a turn
 * with an approver (`options.approvals`: `--wait-for-approval`, the SDK's `canUseTool`), named by
 * `tools` or, for the default set, by `approverTools`; elsewhere they stay headless-disabled. No
 * turn recorded before ExitPlanMode became one carries it in either, which is what gates its
 * workflow branch (leaving plan mode mid-turn) for old histories.
 */
export const OPT_IN_TOOL_NAMES = [
  'NotebookEdit',
  'AskUserQuestion',
  'ExitPlanMode',
  'EnterPlanMode',
  'Monitor',
] as const;

/** Claude Code's tool that asks the approver to leave plan mode (an opt-in tool, above). */
export const EXIT_PLAN_MODE_TOOL = 'ExitPlanMode';

/** Claude Code's tool that asks the approver to enter plan mode (an opt-in tool, above). */
export const ENTER_PLAN_MODE_TOOL = 'EnterPlanMode';

/**
 * The tools Claude Code 2.1.328 adds to its default tool set when a host answers them (the Agent
 * SDK's `canUseTool`, `--permission-prompt-tool stdio`): AskUserQuestion (offered inline),
 * EnterPlanMode and ExitPlanMode (deferred to ToolSearch). The runner adds them to a turn with an
 * approver and no `--tools` as `TurnOptions.approverTools`, so turns recorded before keep their
 * default list.
 */
export const APPROVER_DEFAULT_TOOL_NAMES: readonly string[] = ['AskUserQuestion', 'EnterPlanMode', 'ExitPlanMode'];

/**
 * Tools of Claude Code that need a person to answer them, which 2.1.328 disables in a headless
 * run (`-p` without a host that answers): `--tools` accepts them, they are never offered, and a
 * call gets {@link noSuchToolText}'s "disabled for this session".
 */
export const HEADLESS_DISABLED_TOOL_NAMES: readonly string[] = ['AskUserQuestion', 'ExitPlanMode', 'EnterPlanMode'];

/** The error text of a call to a tool the turn does not have (Claude Code's words, inside `<tool_use_error>`). */
export function noSuchToolText(name: string): string {
  return HEADLESS_DISABLED_TOOL_NAMES.includes(name)
    ? `Error: No such tool available: ${name}. ${name} is disabled for this session, in subagents as well as here.`
    : `Error: No such tool available: ${name}`;
}

/**
 * The opt-in tools a turn offers: those of its tool list, or for the default list (`tools`
 * absent) its `approverTools` (none in turns recorded before them).
 */
export function optInToolsOf(o: { tools?: readonly string[]; approverTools?: readonly string[] }): string[] {
  return (o.tools ?? o.approverTools ?? []).filter((t) => (OPT_IN_TOOL_NAMES as readonly string[]).includes(t));
}

/**
 * Every tool name `--tools` takes: the runner's tools (web ones included), the task tools, the
 * session tools (Skill, ToolSearch), the opt-in ones and the ones a headless run disables.
 */
export const LISTABLE_TOOL_NAMES: readonly string[] = [
  ...BUILTIN_TOOL_NAMES,
  ...WEB_TOOL_NAMES,
  ...TASK_TOOL_NAMES,
  SKILL_TOOL,
  TOOL_SEARCH_TOOL,
  ...OPT_IN_TOOL_NAMES,
  ...HEADLESS_DISABLED_TOOL_NAMES.filter((t) => !(OPT_IN_TOOL_NAMES as readonly string[]).includes(t)),
  ...CRON_TOOL_NAMES,
  // Offered when named and the turn has a session (src/activities/wakeup/tool-spec.ts).
  'ScheduleWakeup',
];

/** Tools that only read: a batch of consecutive calls to them runs in parallel. */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(['Read', 'Glob', 'Grep']);

/**
 * What the session remembers of a file the model read (the seeds' `readFileState`).
 * `Edit` and `Write` of an existing file refuse unless the file still matches it.
 */
export interface FileReadState {
  /** Modification time when read, ms since the epoch. */
  mtimeMs: number;
  /** Size when read, bytes. */
  size: number;
  /** SHA-256 of the whole file's bytes, hex. */
  sha256: string;
}

/** A tool call the model asked for, as summarized by `callModel` (no input: it stays in the store). */
export interface ToolUseSummary {
  /** `tool_use` block id (`toolu_…`). */
  id: string;
  /** Tool name as the model sent it (may be unknown). */
  name: string;
  /** Absolute path of `file_path` in the input, when there is one (for read-file state). */
  filePath?: string;
  /**
   * A one-line label for the Web UI and `status` (`Bash: npm test`, `Edit src/x.ts`): at most
   * 80 characters of the command's, path's or pattern's first line (src/common/summary.ts).
   */
  label?: string;
}

/** Permission decision for one tool call, made in the workflow as far as the tool name allows. */
export type ToolPermission =
  /**
   * `approved`: a person allowed this very call, having seen its input (durable approvals, the
   * SDK's `canUseTool`); Edit and Write then change a file the session has not Read, as Claude
   * Code 2.1.328 does. Absent in histories recorded before it.
   */
  | { behavior: 'allow'; approved?: true }
  /**
   * `reason`: `rule` for a permission rule, `mode` for the permission mode (SDK
   * `decision_reason_type`), `hook` for a PreToolUse hook's deny (or exit 2), `hook_ask` for a
   * hook's `ask` that no one could answer, `approval` for an approver's deny (or the approval
   * timeout). `ask`: a person could allow it (durable approvals wait instead of denying).
   */
  | {
      behavior: 'deny';
      message: string;
      reason?: 'rule' | 'mode' | 'hook' | 'hook_ask' | 'approval';
      ask?: boolean;
      /** Told in the tool result only, with no `system`/`permission_denied` (a deny rule under a hook's allow). */
      silent?: boolean;
    }
  /**
   * Decided by the activity against the tool's input and the real files
   * (`decideToolPermission`, src/activities/permissions/decide.ts): the mode, the rules that matter for
   * this tool only (src/engine/permissions.ts `scopedRulesFor`), and the extra working directories.
   */
  | {
      behavior: 'check';
      mode: PermissionMode;
      rules: ScopedRules;
      additionalDirectories?: string[];
      /**
       * A PreToolUse hook's verdict, weighed against the check's own by the order of precedence
       * (src/engine/permission-precedence.ts): its `allow` skips only the question the mode would
       * ask; its `ask` (with `hookMessage`) yields to deny and ask rules.
       */
      hook?: 'allow' | 'ask';
      /** The model's text when the hook's `ask` decides. */
      hookMessage?: string;
    }
  /** Earlier form of `check` for scoped Bash rules, still accepted from histories recorded before it. */
  | { behavior: 'checkCommand'; allow: string[] | null; deny: string[]; message: string };

/** Input of the `runTool` activity. */
export interface RunToolInput {
  sessionId: string;
  /** Working directory; relative paths in tool inputs resolve against it. */
  cwd: string;
  /** Uuid of the assistant transcript line that holds the `tool_use` block. */
  assistantUuid: string;
  toolUseId: string;
  toolName: string;
  /** Uuid for the `tool_result` line this run writes (from the workflow, stable across retries). */
  resultUuid: string;
  /**
   * Parent line of the `tool_result` line; absent when it is `assistantUuid` (the first call of a
   * response: the usual case, left out to keep a step's history small).
   */
  parentUuid?: string;
  permission: ToolPermission;
  /** Read-file state of the tool's `file_path`, when the session has one (absent or null: none). */
  readState?: FileReadState | null;
  /** Settings files whose `env` the tool's processes get (Bash only; re-read by the activity). */
  settingsEnv?: SettingsEnvRef;
  /**
   * When set, the tool is not run: its tool_result says this (is_error), e.g. after an interrupt
   * or a budget stop, so that every tool_use still gets a tool_result.
   */
  skipReason?: string;
  /** Ref of the turn's stored MCP tool list (for `mcp__…` calls). */
  mcpToolsRef?: string;
  /** Ref of a PreToolUse hook outcome that changed the input: the tool runs on that input. */
  inputRef?: string;
  /**
   * Someone can be asked (durable approvals): a call whose check says `ask` is not run and not
   * answered; the summary says `ask` and the workflow waits for a decision, then runs it again.
   */
  askable?: boolean;
  /** The opt-in tools ({@link OPT_IN_TOOL_NAMES}) the turn offers; others of them do not run. */
  optInTools?: string[];
  /** Content key of the session's stored JSON Schema: a `StructuredOutput` call is checked against it. */
  jsonSchemaKey?: string;
  /**
   * The workspace the tool acts on, when it follows the turn across hosts: after a tool that can
   * change files (Edit, Write, Bash) the activity stores a snapshot; paths under a former host's
   * repository root are mapped to `repoRoot`.
   */
  workspace?: { repoRoot: string; baseCommit: string; formerPaths: string[] };
  /**
   * Set when the call runs as a local activity for a workspace that lives on one host: the host
   * queue of that host. A worker of another host refuses it (`Workspace.NotOnHost`), and the
   * workflow sends the call to the host's queue instead.
   */
  expectHostQueue?: string;
  /** Skill calls: content key of the session's stored definitions (the skills they may load). */
  definitionsKey?: string;
  /** ToolSearch calls: the tools the turn offers, as `callModel` has them (to know which are deferred). */
  toolSearch?: ToolSearchInput;
}

/** What a ToolSearch call needs to know of the turn's tools (names and refs only). */
export interface ToolSearchInput {
  /** The tool names `callModel` gets (src/workflows/task-tools.ts `modelToolNames`); absent for the default set. */
  tools?: string[];
  /** `ToolSearchMode` of the turn. */
  mode?: string;
  /** Model of the call (deferral depends on it). */
  model: string;
  /** Ref of the turn's stored MCP tool list. */
  mcpToolsRef?: string;
}

/** Output of the `runTool` activity. */
export interface RunToolSummary {
  toolUseId: string;
  resultUuid: string;
  isError: boolean;
  /**
   * `ok`/`error`: the tool ran; `denied`: permission refused; `unknown`: a non-idempotent tool
   * was interrupted by a worker crash and was not re-run; `invalid`: the input failed validation.
   */
  outcome: 'ok' | 'error' | 'denied' | 'unknown' | 'invalid' | 'ask';
  /** With `outcome: "ask"`: why a person must decide (capped at 2 KB); no line was written. */
  askReason?: string;
  /** New read-file state for a path (after Read, Write or Edit). */
  fileState?: { path: string; state: FileReadState };
  /** Tool input (JSON, truncated to 1 KB) for a permission denial record. */
  deniedInput?: unknown;
  /** Size of the tool_result content, bytes. */
  resultBytes: number;
  /** True when the result line already existed (a retried activity). */
  replayed: boolean;
  /**
   * A failed `StructuredOutput` call: its violations (at most 1000 characters; the whole text is
   * in the store), for the turn's `errors` when the retries run out.
   */
  structuredOutputError?: string;
  /** The workspace snapshot taken after the call (tools that can change files). */
  snapshot?: SnapshotRef;
  /**
   * A Skill call that loaded a skill with `allowed-tools`: those rules (at most
   * `MAX_SKILL_RULES`, each at most `MAX_SKILL_RULE_CHARS`), which apply from now on in the turn.
   */
  allowedRules?: string[];
  /** Model calls the tool made for the conversation (WebSearch, WebFetch): the turn counts them. */
  modelSpend?: ToolModelSpend;
  /**
   * Bash with `run_in_background`: the command the tool launched (its tool_result, the launch
   * text, is written); the turn starts it as a task of the session (`shellTaskWorkflow`).
   */
  background?: BackgroundLaunch;
}

/** Most allow rules one skill brings into a turn (they travel in workflow history). */
export const MAX_SKILL_RULES = 32;
/** Longest allow rule a skill brings (characters). */
export const MAX_SKILL_RULE_CHARS = 200;

/** Error types of tool-run failures (ApplicationFailure `type`). */
export const ToolErrorType = {
  /**
   * A fault that retrying cannot fix (invalid input the OS rejects, the repository's own broken
   * state, an unforeseen exception): `runTool` fails at once, without retries, and the turn gives
   * the model an `is_error` tool_result with the message instead (see `ToolRuns`).
   */
  Fault: 'Tool.Fault',
} as const;

/** Characters of a {@link ToolErrorType.Fault} message kept (it travels in workflow history). */
export const MAX_TOOL_FAULT_CHARS = 300;
