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
import type { HookCommandResult } from './run-command';

/** Longest reason or context kept from one hook (characters). */
const MAX_TEXT = 2048;

/** What one hook's run means. */
export interface HookVerdict {
  decision: 'allow' | 'deny' | 'ask' | 'block' | null;
  reason?: string;
  updatedInput?: Record<string, unknown>;
  /** Text for the model (additional context). */
  context?: string;
  stop?: { reason: string };
  configError?: string;
}

function cap(s: string): string {
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The meaning of one hook command's run for `event`. */
export function interpretHookResult(event: HookEvent, hook: HookCommand, r: HookCommandResult): HookVerdict {
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
    if (event === 'Stop' || event === 'UserPromptSubmit' || event === 'PostToolUse')
      return { decision: 'block', reason };
    return { decision: null };
  }
  if (r.exitCode !== 0) return { decision: null };
  const out = r.stdout.trim();
  if (!out.startsWith('{')) {
    if ((event === 'UserPromptSubmit' || event === 'SessionStart') && out) {
      return { decision: null, context: cap(`${event} hook success: ${out}`) };
    }
    return { decision: null };
  }
  let json: unknown;
  try {
    json = JSON.parse(out);
  } catch (e) {
    return {
      decision: null,
      configError: `${hook.source}: the hook printed invalid JSON on stdout (${(e as Error).message}): ${cap(out).slice(0, 200)}`,
    };
  }
  if (!isRecord(json)) return { decision: null };
  const v: HookVerdict = { decision: null };
  if (json['continue'] === false) {
    v.stop = {
      reason: cap(typeof json['stopReason'] === 'string' ? json['stopReason'] : `${event} hook stopped the turn`),
    };
  }
  const reason = typeof json['reason'] === 'string' ? cap(json['reason']) : undefined;
  if (json['decision'] === 'block') {
    v.decision = event === 'PreToolUse' ? 'deny' : 'block';
    if (reason !== undefined) v.reason = reason;
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
      if (typeof r2 === 'string') v.reason = cap(r2);
    }
    if (event === 'PreToolUse' && isRecord(specific['updatedInput'])) v.updatedInput = specific['updatedInput'];
    const ctx = specific['additionalContext'];
    if (typeof ctx === 'string' && ctx) v.context = cap(`${event} hook additional context: ${ctx}`);
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
  stop?: { reason: string };
  configErrors: string[];
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
  if (reasons.length) out.reason = reasons.join('\n');
  return out;
}
