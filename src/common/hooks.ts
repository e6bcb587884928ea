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
  'SubagentStart',
  'SubagentStop',
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
 * Events whose hooks have a matcher, and what it is tested against: the tool's name
 * (PreToolUse, PostToolUse), the session's `source` (SessionStart: `startup`, `resume`), the
 * compaction's `trigger` (PreCompact: `auto`, `manual`), the agent's type (SubagentStart,
 * SubagentStop: `Explore`, `reviewer`). UserPromptSubmit and Stop have none:
 * their hooks always run, whatever matcher they are given (as in Claude Code).
 */
export const MATCHED_HOOK_EVENTS: ReadonlySet<HookEvent> = new Set<HookEvent>([
  'PreToolUse',
  'PostToolUse',
  'SessionStart',
  'PreCompact',
  'SubagentStart',
  'SubagentStop',
]);

/** A matcher that is a list of names: letters, digits, `_`, separated by `|` or `,` (spaces allowed around them). */
const NAME_LIST = /^[a-zA-Z0-9_|, -]+$/;

/**
 * Whether a hook's matcher selects `subject` (a tool name, a SessionStart source, a PreCompact
 * trigger), as Claude Code 2.1.328 decides it: an empty, absent or `*` matcher selects
 * everything; a list of names (`Edit|Write`, `Edit, Write`, `Write,Edit`) selects each name
 * exactly; anything else is a regular expression searched in the subject, not anchored (`r.te`
 * selects `Write`, `^Bash$` only `Bash`). An invalid regular expression selects nothing.
 */
export function hookMatcherMatches(matcher: string | undefined, subject: string): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return true;
  if (NAME_LIST.test(matcher)) {
    return matcher
      .split(/[|,]/)
      .map((n) => n.trim())
      .some((n) => n !== '' && n === subject);
  }
  try {
    return new RegExp(matcher).test(subject);
  } catch {
    return false;
  }
}

/**
 * The matcher rule of versions before `hook-matchers` (exact `|` lists, anchored regular
 * expressions, no matcher for SessionStart and PreCompact), kept so that histories recorded with
 * it replay as they ran.
 */
export function legacyHookMatcherMatches(matcher: string | undefined, toolName: string): boolean {
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
  /**
   * Times Stop hooks may block the end of one turn in a row; the next block is overridden and
   * the turn ends (Claude Code's `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`; 0 = no cap). Absent in turns
   * of older versions (their cap was {@link LEGACY_STOP_HOOK_BLOCKS}).
   * @default 8
   */
  stopBlockCap?: number;
}

/** Claude Code's default for `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`: the 9th block in a row ends the turn. */
export const DEFAULT_STOP_HOOK_BLOCK_CAP = 8;
/** The cap of versions before `stop-hook-block-cap`: a Stop hook ran at most this many times more. */
export const LEGACY_STOP_HOOK_BLOCKS = 20;

/**
 * Claude Code's warning when Stop hooks blocked the end of a turn more than `cap` times in a row
 * (`count` = cap + 1) and the turn ends anyway.
 */
export function stopHookCapMessage(count: number): string {
  return (
    `A hook blocked the turn from ending ${count} consecutive times\u2014overriding and ending turn. ` +
    "For Stop/SubagentStop hooks, check stop_hook_active in the input and return success while it's true. " +
    'Set CLAUDE_CODE_STOP_HOOK_BLOCK_CAP to raise this limit.'
  );
}

/**
 * Whether any hook of `event` applies to `subject` (the tool name, SessionStart source or
 * PreCompact trigger; see {@link MATCHED_HOOK_EVENTS}). `legacy`: the rule of histories recorded
 * before `hook-matchers` (see {@link legacyHookMatcherMatches}).
 */
export function hooksApply(hooks: TurnHooks | undefined, event: HookEvent, subject?: string, legacy = false): boolean {
  const m = hooks?.matchers[event];
  if (!m?.length) return false;
  if (legacy) {
    const toolEvent = event === 'PreToolUse' || event === 'PostToolUse';
    return subject === undefined || !toolEvent ? true : m.some((x) => legacyHookMatcherMatches(x, subject));
  }
  if (subject === undefined || !MATCHED_HOOK_EVENTS.has(event)) return true;
  return m.some((x) => hookMatcherMatches(x, subject));
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
   * A subagent's turn: the agent (Claude Code's `agent_id`, `agent_type`, and for SubagentStop
   * `agent_transcript_path`, its run's transcript file). The agent type is the SubagentStart and
   * SubagentStop matchers' subject.
   */
  agent?: { agentId: string; agentType: string; transcriptPath: string };
  /**
   * Where a context line goes if the hooks add any (additional context, Stop feedback, PostToolUse
   * block reason): the activity writes it as a meta user line with this uuid and parent.
   */
  contextLine?: { uuid: string; parentUuid: string };
  /**
   * UserPromptSubmit: where the notice of a block or stop goes (a `system` informational line
   * whose text is the turn's result): under `parentUuid` for a stop (the prompt is kept), under
   * `blockedParentUuid` for a block (the prompt leaves the conversation).
   */
  noticeLine?: { uuid: string; parentUuid: string; blockedParentUuid: string | null };
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
  /** UserPromptSubmit: the notice line was written, for a blocked or a stopped prompt. */
  notice?: 'blocked' | 'stopped';
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

/** Claude Code's reason for a hook's block or deny that gives none (`PreToolUse:Bash hook error: Blocked by hook`). */
export const DEFAULT_BLOCK_REASON = 'Blocked by hook';

/** Prefix of a result error caused by a hook configuration error; `-p` exits 2 on it. */
export const HOOK_CONFIG_ERROR_PREFIX = 'Hook configuration error: ';
