/**
 * Claude Code's hook output contract: what a command's exit code and stdout mean, per event, and
 * how the results of several hooks of one event combine. Pure.
 *
 * - Exit 0: stdout that starts with `{` is JSON output (`continue`, `stopReason`, `decision`,
 *   `reason`, `suppressOutput`, `hookSpecificOutput.{permissionDecision, permissionDecisionReason,
 *   updatedInput, additionalContext}`); other stdout is context for UserPromptSubmit and
 *   SessionStart, and ignored for the rest.
 * - Exit 2: blocking; stderr is the reason (the tool does not run, the prompt is refused, the
 *   turn goes on after Stop, the model sees it after PostToolUse).
 * - Any other exit code, or a timeout: a non-blocking error; the hook gives no verdict.
 * - Exit 127 (the shell's "command not found") and JSON that does not parse are configuration
 *   errors here (Claude Code ignores them): they name the settings file and field.
 */
import type { HookCommand, HookEvent } from '../../common/hooks';
import { DEFAULT_BLOCK_REASON } from '../../common/hooks';
import type { HookCommandResult } from './run-command';
import { MAX_HOOK_OUTPUT } from './run-command';

/** Longest reason or context kept from one hook (characters). */
const MAX_TEXT = 2048;

/**
 * How Claude Code names a hook in the texts it gives the model: `context` prefixes additional
 * context (`PostToolUse:Bash hook additional context: …`: tool events name the tool), `success`
 * prefixes plain stdout of SessionStart and UserPromptSubmit (`SessionStart:startup hook success: …`).
 */
export interface HookNames {
  context: string;
  success: string;
}

/** The names of an event's hooks; `subject` is the tool name (tool events) or the SessionStart source. */
export function hookNames(event: HookEvent, subject?: string): HookNames {
  const tool = event === 'PreToolUse' || event === 'PostToolUse';
  return {
    context: tool && subject !== undefined ? `${event}:${subject}` : event,
    success: event === 'SessionStart' ? `SessionStart:${subject ?? 'startup'}` : event,
  };
}

/** What one hook's run means. */
export interface HookVerdict {
  decision: 'allow' | 'deny' | 'ask' | 'block' | null;
  reason?: string;
  updatedInput?: Record<string, unknown>;
  /** Text for the model (additional context). */
  context?: string;
  /** `continue: false`: the turn stops; `given` when the hook said why (`stopReason`). */
  stop?: { reason: string; given?: boolean };
  configError?: string;
}

function cap(s: string): string {
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The meaning of one hook command's run for `event`. `names` words the texts for the model
 * (see {@link hookNames}; by default the event's own name).
 */
export function interpretHookResult(
  event: HookEvent,
  hook: HookCommand,
  r: HookCommandResult,
  names: HookNames = hookNames(event),
): HookVerdict {
  if (r.spawnError)
    return { decision: null, configError: `${hook.source}: the shell could not start (${r.spawnError})` };
  if (r.timedOut) return { decision: null };
  if (r.exitCode === 127) {
    return {
      decision: null,
      configError: `${hook.source}: command not found: ${hook.command}${r.stderr.trim() ? ` (${cap(r.stderr.trim())})` : ''}`,
    };
  }
  if (r.exitCode === 2) {
    const reason = cap(`[${hook.command}]: ${r.stderr}`);
    if (event === 'PreToolUse') return { decision: 'deny', reason };
    if (event === 'Stop' || event === 'SubagentStop' || event === 'UserPromptSubmit' || event === 'PostToolUse')
      return { decision: 'block', reason };
    return { decision: null };
  }
  if (r.exitCode !== 0) return { decision: null };
  const out = r.stdout.trim();
  if (!out.startsWith('{')) {
    if ((event === 'UserPromptSubmit' || event === 'SessionStart') && out) {
      return { decision: null, context: cap(`${names.success} hook success: ${out}`) };
    }
    return { decision: null };
  }
  let json: unknown;
  try {
    json = JSON.parse(out);
  } catch (e) {
    // Output past what is kept is cut: say so, rather than calling valid JSON invalid (outsider F11).
    if (r.stdoutChars !== undefined) {
      return {
        decision: null,
        configError: `${hook.source}: the hook printed ${r.stdoutChars} characters on stdout, more than the ${MAX_HOOK_OUTPUT} a hook's output may have; its JSON was not read (put large context in a file and print its path)`,
      };
    }
    return {
      decision: null,
      configError: `${hook.source}: the hook printed invalid JSON on stdout (${(e as Error).message}): ${cap(out).slice(0, 200)}`,
    };
  }
  if (!isRecord(json)) return { decision: null };
  const v: HookVerdict = { decision: null };
  if (json['continue'] === false) {
    const stopReason = json['stopReason'];
    v.stop =
      typeof stopReason === 'string' && stopReason
        ? { reason: cap(stopReason), given: true }
        : { reason: `${event} hook stopped the turn` };
  }
  const reason = typeof json['reason'] === 'string' ? cap(json['reason']) : undefined;
  if (json['decision'] === 'block') {
    v.decision = event === 'PreToolUse' ? 'deny' : 'block';
    v.reason = reason || DEFAULT_BLOCK_REASON;
  } else if (json['decision'] === 'approve' && event === 'PreToolUse') {
    v.decision = 'allow';
    if (reason !== undefined) v.reason = reason;
  }
  const specific = json['hookSpecificOutput'];
  if (isRecord(specific)) {
    const pd = specific['permissionDecision'];
    if (event === 'PreToolUse' && (pd === 'allow' || pd === 'deny' || pd === 'ask')) {
      v.decision = pd;
      const r2 = specific['permissionDecisionReason'];
      const why = typeof r2 === 'string' && r2 ? cap(r2) : reason;
      if (why !== undefined) v.reason = why;
      else if (pd === 'deny') v.reason = DEFAULT_BLOCK_REASON;
      else delete v.reason;
    }
    if (event === 'PreToolUse' && isRecord(specific['updatedInput'])) v.updatedInput = specific['updatedInput'];
    const ctx = specific['additionalContext'];
    if (typeof ctx === 'string' && ctx) v.context = cap(`${names.context} hook additional context: ${ctx}`);
  }
  return v;
}

/** Precedence of PreToolUse verdicts when several hooks answer: deny > ask > allow. */
const RANK: Record<string, number> = { deny: 3, block: 3, ask: 2, allow: 1 };

/** The outcome of several hooks of one event. */
export interface CombinedVerdict {
  decision: HookVerdict['decision'];
  reason?: string;
  updatedInput?: Record<string, unknown>;
  contexts: string[];
  stop?: { reason: string; given?: boolean };
  configErrors: string[];
  /** The reason of the first hook that gave the winning decision (Claude Code shows that one alone). */
  firstReason?: string;
}

/** Combines the verdicts of an event's hooks (in configuration order). */
export function combineVerdicts(verdicts: readonly HookVerdict[]): CombinedVerdict {
  const out: CombinedVerdict = { decision: null, contexts: [], configErrors: [] };
  const reasons: string[] = [];
  for (const v of verdicts) {
    if (v.configError) out.configErrors.push(v.configError);
    if (v.context) out.contexts.push(v.context);
    if (v.stop && !out.stop) out.stop = v.stop;
    if (v.updatedInput) out.updatedInput = v.updatedInput;
    if (v.decision && (RANK[v.decision] ?? 0) > (out.decision ? (RANK[out.decision] ?? 0) : 0)) {
      out.decision = v.decision;
      reasons.length = 0;
    }
    if (v.decision && v.decision === out.decision && v.reason) reasons.push(v.reason);
  }
  if (reasons.length) {
    out.reason = reasons.join('\n');
    out.firstReason = reasons[0]!;
  }
  return out;
}
