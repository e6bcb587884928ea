/**
 * The permission part of `runTool`: turns the workflow's {@link ToolPermission} into a final
 * allow or deny for this call. A `check` is decided by `decideToolPermission` against the input and
 * the real files, then weighed with the PreToolUse hook's verdict it carries by the one order of
 * precedence (src/engine/permission-precedence.ts); `ask` becomes a denial marked `ask`, since a
 * headless run has no one to ask (durable approvals wait for a person instead).
 */
import * as path from 'node:path';
import type { PermissionDecision, PermissionReasonType, ScopedRules } from '../common/permissions';
import type { ToolPermission } from '../common/tools';
import { permissionPrecedence, ruleVerdictOf } from '../engine/permission-precedence';
import { decideToolPermission } from './permissions/decide';
import { canonicalPathPattern, pathMatches } from '../config-files/path-rules';
import { isInsideDir } from './permissions/real-path';
import { parseRule, pathRuleToolsFor } from '../config-files/permission-rules';

/** The call this permission is for. */
export interface PermissionCall {
  toolName: string;
  input: unknown;
  cwd: string;
  /** Names of the variables the tool's processes inherit (for Bash: assigning one is not provably harmless). */
  exportedNames?: ReadonlySet<string>;
}

/** What `runTool` does with the call. */
export type ResolvedPermission =
  | {
      behavior: 'allow';
      /** For Glob and Grep: files their results must leave out (denied, or outside the working directories). */
      readDenied?: (absPath: string) => boolean;
      /** For Write and Edit: the real path the decision was made on (they refuse when it changed). */
      checkedPath?: string;
    }
  | {
      behavior: 'deny';
      message: string;
      /** Beyond the SDK's reason types: `hook`, `hook_ask` (a hook's deny or unanswered ask), `approval`. */
      reason: PermissionReasonType | 'hook' | 'hook_ask' | 'approval';
      detail?: string;
      silent?: boolean;
      /** The decision was `ask`: a person could allow it (headless: it stays a denial). */
      ask?: boolean;
    };

/**
 * Resolves a permission for one call.
 * @param decide the decision function (tests may pass their own). @default decideToolPermission
 */
export async function resolveToolPermission(
  permission: ToolPermission,
  call: PermissionCall,
  decide: typeof decideToolPermission = decideToolPermission,
): Promise<ResolvedPermission> {
  if (permission.behavior === 'allow') return { behavior: 'allow' };
  if (permission.behavior === 'deny') {
    return {
      behavior: 'deny',
      message: permission.message,
      reason: permission.reason ?? 'mode',
      ...(permission.silent ? { silent: true } : {}),
    };
  }
  const check =
    permission.behavior === 'checkCommand'
      ? {
          mode: 'default' as const,
          rules: {
            allow: permission.allow === null ? ['Bash'] : permission.allow.map((p) => `Bash(${p})`),
            deny: permission.deny.map((p) => `Bash(${p})`),
            ask: [],
          },
          additionalDirectories: [] as string[],
        }
      : permission;
  const decision: PermissionDecision = await decide({
    toolName: call.toolName,
    input: call.input,
    cwd: call.cwd,
    mode: check.mode,
    rules: check.rules,
    additionalDirectories: check.additionalDirectories ?? [],
    ...(call.exportedNames ? { exportedNames: call.exportedNames } : {}),
  });
  const hook = permission.behavior === 'check' ? (permission.hook ?? 'none') : 'none';
  const outcome = permissionPrecedence(ruleVerdictOf(decision), check.mode, hook);
  if (outcome.behavior !== 'allow') {
    const ask = outcome.behavior === 'ask' ? { ask: true } : {};
    if (outcome.by === 'hook' && permission.behavior === 'check') {
      const message = permission.hookMessage ?? `A PreToolUse hook asked for approval of ${call.toolName}.`;
      return { behavior: 'deny', message, reason: 'hook_ask', ...ask };
    }
    return {
      behavior: 'deny',
      message: decision.message,
      reason: decision.reasonType,
      ...ask,
      ...(decision.reason !== undefined ? { detail: decision.reason } : {}),
      // Claude Code tells a deny rule that overrode a hook's allow in the tool result only.
      ...(decision.silent ||
      (hook === 'allow' && outcome.behavior === 'deny' && outcome.by === 'rules' && decision.basis === 'rule')
        ? { silent: true }
        : {}),
    };
  }
  if (call.toolName === 'Glob' || call.toolName === 'Grep') {
    return {
      behavior: 'allow',
      readDenied: searchFilter(call, check.mode, check.rules, check.additionalDirectories ?? [], outcome.by === 'hook'),
    };
  }
  return { behavior: 'allow', ...(decision.resolvedPath !== undefined ? { checkedPath: decision.resolvedPath } : {}) };
}

/**
 * Which files a search may not show: those a deny rule covers, and (unless the mode, an allow
 * rule or a hook's allow says otherwise) those outside the working directories, which a pattern such as `../*`
 * can reach. Paths are compared as found (the walk does not follow symlinks).
 */
function searchFilter(
  call: PermissionCall,
  mode: string,
  rules: ScopedRules,
  additionalDirectories: readonly string[],
  hookAllowed: boolean,
): (absPath: string) => boolean {
  const tools = pathRuleToolsFor(call.toolName);
  const patterns = (list: readonly string[]): string[] =>
    list.flatMap((rule) => {
      const r = parseRule(rule);
      return r && r.content !== null && tools.includes(r.tool)
        ? [canonicalPathPattern(r.content, call.cwd, call.cwd)]
        : [];
    });
  const deny = [...patterns(rules.deny), ...patterns(rules.ask)];
  const allow = patterns(rules.allow);
  const dirs = [call.cwd, ...additionalDirectories].map((d) => path.resolve(d));
  return (absPath) => {
    if (deny.some((p) => pathMatches(p, absPath))) return true;
    if (mode === 'bypassPermissions' || hookAllowed || dirs.some((d) => isInsideDir(d, absPath))) return false;
    return !allow.some((p) => pathMatches(p, absPath));
  };
}
