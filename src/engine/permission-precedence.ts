/**
 * The order of precedence of permission decisions: what the rules say about a call (with the
 * safety checks), what the permission mode does with a call nothing allowed, and what a
 * PreToolUse hook answered. One function decides every combination, for the workflow (calls
 * decided by tool name) and for the `runTool` activity (calls decided against their input).
 * Pure.
 *
 * The order, as `claude -p` 2.1.328 keeps it (test/conformance scenario `hook-allow-rules`,
 * claude-code#35136):
 * 1. a hook's `deny`;
 * 2. a deny rule;
 * 3. an ask rule, or a safety check (a protected path, a link out of the working directories):
 *    a person must decide (in `dontAsk`, refused);
 * 4. a hook's `ask` (in `dontAsk`, refused);
 * 5. an allow rule, or what the mode allows by itself (reads inside the working directories,
 *    edits there in `acceptEdits`, everything in `bypassPermissions`);
 * 6. for a call nothing allowed: `plan` refuses it (a hook's allow does not change that); a hook's
 *    `allow` runs it (it skips the question the mode would ask, also in `dontAsk`); otherwise the
 *    mode asks (`default`, `acceptEdits`) or refuses (`dontAsk`).
 */
import type { PermissionBasis, PermissionBehavior } from '../common/permissions';
import type { PermissionMode } from '../common/permissions';

/** What the rules and the safety checks say about one call, before the mode and any hook. */
export type RuleVerdict =
  /** A deny rule covers the call. */
  | 'deny'
  /** An ask rule covers it, or a safety check asks about it. */
  | 'ask'
  /** An allow rule covers it, or the mode allows it by itself. */
  | 'allow'
  /** Nothing allows it: the mode decides. */
  | 'unmatched';

/** A PreToolUse hook's `permissionDecision` (`none`: no hook, or none that decided). */
export type HookVerdict = 'allow' | 'ask' | 'deny' | 'none';

/** Every rule verdict, mode and hook verdict, for tables. */
export const RULE_VERDICTS: readonly RuleVerdict[] = ['deny', 'ask', 'allow', 'unmatched'];
export const HOOK_VERDICTS: readonly HookVerdict[] = ['deny', 'ask', 'allow', 'none'];

/** The outcome, and whose words explain it. */
export interface PrecedenceOutcome {
  behavior: PermissionBehavior;
  /** `hook`: the hook's reason; `rules`: the rule's or safety check's message; `mode`: the mode's message. */
  by: 'hook' | 'rules' | 'mode';
}

/** The permission of one call from what the rules say, the mode and the hook. */
export function permissionPrecedence(rules: RuleVerdict, mode: PermissionMode, hook: HookVerdict): PrecedenceOutcome {
  const askOrRefuse = mode === 'dontAsk' ? 'deny' : 'ask';
  if (hook === 'deny') return { behavior: 'deny', by: 'hook' };
  if (rules === 'deny') return { behavior: 'deny', by: 'rules' };
  if (rules === 'ask') return { behavior: askOrRefuse, by: 'rules' };
  if (hook === 'ask') return { behavior: askOrRefuse, by: 'hook' };
  if (rules === 'allow') return { behavior: 'allow', by: 'rules' };
  if (mode === 'plan') return { behavior: 'deny', by: 'mode' };
  if (hook === 'allow') return { behavior: 'allow', by: 'hook' };
  if (mode === 'bypassPermissions') return { behavior: 'allow', by: 'mode' };
  return { behavior: askOrRefuse, by: 'mode' };
}

/**
 * The rule verdict of a decision made against a call's input (`decideToolPermission`): its
 * behaviour and what it rests on. A rule's or a safety check's refusal stays a refusal and its
 * question a question; a refusal without a basis is taken as a safety check.
 */
export function ruleVerdictOf(decision: { behavior: PermissionBehavior; basis?: PermissionBasis }): RuleVerdict {
  if (decision.behavior === 'allow') return 'allow';
  if (decision.basis === 'mode') return 'unmatched';
  return decision.behavior === 'deny' ? 'deny' : 'ask';
}
