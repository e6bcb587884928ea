/**
 * Wire types of permission decisions, shared by the workflow (which decides what it can by tool
 * name) and the activities (which decide against the tool's input and the real files).
 */

/**
 * Permission modes, as Claude Code names them. Headless runs cannot prompt, so a call that
 * would need a prompt is denied (and recorded in `permission_denials`).
 * - `default`: reads inside the working directories run; other calls need an allow rule.
 * - `acceptEdits`: also edits of files inside the working directories (Edit, Write, Bash
 *   redirections and file commands such as `mkdir`, `rm`).
 * - `bypassPermissions`: everything not denied by a rule runs.
 * - `dontAsk`: as `default`, but what would be asked is denied outright.
 * - `plan`: no edits; reads, and Bash commands an allow rule covers or that only read, run (as in Claude Code).
 */
export const PERMISSION_MODES = ['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** What a decision says: run the call, refuse it, or ask a person (headless runs: refuse). */
export type PermissionBehavior = 'allow' | 'deny' | 'ask';

/**
 * Why, in Claude Code's terms (`decision_reason_type` of `system`/`permission_denied`):
 * `rule` a permission rule; `mode` the permission mode; `workingDir` a path outside the working
 * directories; `safetyCheck` a path that resolves through a symlink out of them, or a command
 * shape that is always checked; `subcommandResults` one part of a compound command; `other`
 * something that cannot be checked before it runs.
 */
export type PermissionReasonType = 'rule' | 'mode' | 'workingDir' | 'safetyCheck' | 'subcommandResults' | 'other';

/**
 * What a refusal rests on, which decides what a PreToolUse hook's `allow` can lift (see
 * src/engine/permission-precedence.ts):
 * - `rule`: a deny or ask rule covers the call, or the call cannot be checked against the deny
 *   and ask rules that exist (a hook's allow never lifts it);
 * - `safety`: a check no rule or hook lifts (a protected path, a path that leads out of the
 *   working directories through a symlink, a symlink loop);
 * - `mode`: nothing allows the call, and the permission mode asks about it (or, in `dontAsk` and
 *   `plan`, refuses it); a hook's allow lifts it except in `plan`.
 */
export type PermissionBasis = 'rule' | 'safety' | 'mode';

/** The answer for one tool call. */
export interface PermissionDecision {
  behavior: PermissionBehavior;
  reasonType: PermissionReasonType;
  /** For `deny` and `ask`: what the refusal rests on (absent: treated as `safety`, which nothing lifts). */
  basis?: PermissionBasis;
  /** The rule that decided, as written (`Bash(rm *)`, `Read(//etc/**)`), when one did. */
  rule?: string;
  /** One-line reason, e.g. `Path is outside allowed working directories`. */
  reason?: string;
  /** Text for the model when the call does not run (empty for `allow`). */
  message: string;
  /**
   * True when the denial is told in the tool result only, with no `system`/`permission_denied`
   * message (Claude Code's way for a Read, Edit or Write of a file a deny rule covers).
   */
  silent?: boolean;
  /** True when `message` already names the path it is about (a Bash command passes it on as is). */
  namesPath?: boolean;
  /**
   * For a file tool's target: the real path the decision was made on (symlinks resolved). Write and
   * Edit refuse to write when the parent no longer resolves to its directory (TOCTOU).
   */
  resolvedPath?: string;
}

/**
 * The permission rules that matter for one tool call (`Tool` or `Tool(content)` strings), already
 * filtered by the workflow to the tool's own rules and the ones its input can touch: Bash gets
 * Bash, Read and Edit rules (redirections are reads and edits); Read, Glob and Grep get Read rules;
 * Edit and Write get Edit and Write rules. Path patterns are in canonical form (`//abs…`, `~/…`)
 * when they came through the CLI or a settings file.
 */
export interface ScopedRules {
  allow: string[];
  deny: string[];
  ask: string[];
}

/**
 * Where the `env` of the settings files is read from when a tool runs: file paths only, so that
 * the values (often tokens) never enter workflow history. Lowest precedence first; `--settings`
 * JSON given inline is kept in a file of the client's data directory for this purpose.
 */
export interface SettingsEnvRef {
  /** Absolute paths of settings files that have an `env` section. */
  files: string[];
}
