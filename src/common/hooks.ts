/**
 * Hooks (Claude Code's contract): wire types shared by the turn workflow, the hook activity and
 * the CLI, and the matcher rule. Pure and JSON-safe. Hook commands are content: the config is in
 * the transcript store; workflow history carries its ref and, per event, the matchers only.
 */

/** Events agent-runner runs hooks for. */
export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'SessionStart',
  'PreCompact',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** One hook command, with where it was configured (for error messages). */
export interface HookCommand {
  /** Tool-name matcher (PreToolUse/PostToolUse); `""` or `*` matches every tool. */
  matcher: string;
  /** Shell command; gets the event's JSON on stdin. */
  command: string;
  /** Seconds before the command is killed. @default 60 */
  timeoutSec?: number;
  /** `<settings file>: hooks.<Event>[i].hooks[j]`. */
  source: string;
}

/** Hook commands by event. */
export type HooksConfig = Partial<Record<HookEvent, HookCommand[]>>;

/**
 * Whether a matcher selects a tool, as in Claude Code: empty, absent or `*` match every tool; a
 * matcher of letters, digits, `_` and `|` is a list of exact names; anything else is a regular
 * expression that must match the whole name. An invalid regex matches nothing.
 */
export function hookMatcherMatches(matcher: string | undefined, toolName: string): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return true;
  if (/^[A-Za-z0-9_|]+$/.test(matcher)) return matcher.split('|').includes(toolName);
  try {
    return new RegExp(`^(?:${matcher})$`).test(toolName);
  } catch {
    return false;
  }
}

/** What a turn knows of its hooks: the stored config's ref and the matchers of each event. */
export interface TurnHooks {
  /** Uuid of the stored hooks config (see `src/client/stored-config.ts`). */
  configRef: string;
  /** Matchers by event (one per command); an event without hooks is absent. */
  matchers: Partial<Record<HookEvent, string[]>>;
}

/** Whether any hook of `event` applies (to `toolName` for tool events). */
export function hooksApply(hooks: TurnHooks | undefined, event: HookEvent, toolName?: string): boolean {
  const m = hooks?.matchers[event];
  if (!m?.length) return false;
  return toolName === undefined ? true : m.some((x) => hookMatcherMatches(x, toolName));
}

/** Input of the `runHooks` activity: refs only (the activity reads the content from the store). */
export interface RunHooksInput {
  sessionId: string;
  cwd: string;
  configRef: string;
  event: HookEvent;
  /**
   * Stable key of this event (e.g. `<turnId>/PreToolUse/<tool_use_id>`): the outcome is stored
   * under it, so a retry or replay returns the stored outcome and never runs the hooks again.
   */
  eventKey: string;
  permissionMode: string;
  /** Tool events: the call (its input is read from the assistant line). */
  tool?: { name: string; toolUseId: string; assistantUuid: string; resultUuid?: string };
  /** UserPromptSubmit: the prompt line. */
  promptUuid?: string;
  /** Stop: the last assistant line, and whether a Stop hook already made the turn go on. */
  stop?: { lastAssistantUuid: string | null; stopHookActive: boolean };
  /** SessionStart: `startup` or `resume`. PreCompact: `auto` or `manual`. */
  source?: string;
  /**
   * Where a context line goes if the hooks add any (additional context, Stop feedback, PostToolUse
   * block reason): the activity writes it as a meta user line with this uuid and parent.
   */
  contextLine?: { uuid: string; parentUuid: string };
}

/** Outcome of one event's hooks (small: texts capped). */
export interface HookOutcome {
  /** PreToolUse: the verdict (`null`: no hook decided). Stop/UserPromptSubmit/PostToolUse: `block`. */
  decision: 'allow' | 'deny' | 'ask' | 'block' | null;
  /** Why (for deny/ask/block), capped at 2 KB. */
  reason?: string;
  /** PreToolUse: a hook changed the input; the new input is stored in the outcome line. */
  updatedInput?: boolean;
  /** True when the context line was written (the workflow appends it to the chain). */
  contextWritten?: boolean;
  /** `continue: false`: the turn stops, with this reason. */
  stop?: { reason: string };
  /**
   * Hooks that failed in a way that is a configuration error (command not found, invalid JSON
   * output): each names the settings file and field. The turn stops with these errors.
   */
  configErrors?: string[];
  /** Uuid of the stored outcome line (the updated input is read from it). */
  outcomeRef: string;
  /** True when the outcome was already stored (a retried activity): no hook ran. */
  replayed: boolean;
}

/** Prefix of a result error caused by a hook configuration error; `-p` exits 2 on it. */
export const HOOK_CONFIG_ERROR_PREFIX = 'Hook configuration error: ';
