import type { ToolPermission } from '../common/tools';
import { BUILTIN_TOOL_NAMES, READ_ONLY_TOOLS } from '../common/tools';
import { ruleContent } from './command-rules';
import { isMcpToolName, mcpRuleMatches } from '../common/mcp';

/**
 * Permission modes, as Claude Code names them. Headless runs cannot prompt, so a call that
 * would need a prompt is denied (and recorded in `permission_denials`).
 * - `default`: read-only tools run; others need an `allowedTools` entry.
 * - `acceptEdits`: also Edit and Write of files inside the working directory.
 * - `bypassPermissions`: everything not disallowed runs.
 * - `dontAsk`: as `default` (nothing is ever asked): only read-only and `allowedTools` tools run.
 * - `plan`: only read-only tools.
 */
export const PERMISSION_MODES = ['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export interface PermissionPolicy {
  mode: PermissionMode;
  /** Tool names (or `Name(...)` rules, matched by name) that run without asking. */
  allowedTools?: string[];
  /** Tool names that never run. */
  disallowedTools?: string[];
}

const EDIT_TOOLS = new Set(['Edit', 'Write', 'NotebookEdit']);

function ruleName(rule: string): string {
  const open = rule.indexOf('(');
  return (open === -1 ? rule : rule.slice(0, open)).trim();
}

function listed(rules: readonly string[] | undefined, tool: string): boolean {
  // MCP rules: `mcp__server` (or `mcp__server__*`) covers every tool of the server.
  return (rules ?? []).some((r) => ruleName(r) === tool || mcpRuleMatches(r, tool));
}

/** What a call touches, for rules that depend on it. */
export interface PermissionTarget {
  /** Absolute working directory of the turn. */
  cwd: string;
  /** Absolute path of the call's `file_path`, when it has one. */
  filePath?: string;
}

/**
 * True when `path` is `dir` or inside it. Both must be absolute and normalized (the activity
 * resolves `file_path`); symlinks are not followed. Pure string logic: safe in workflow code.
 */
export function isInside(dir: string, path: string): boolean {
  const base = dir.endsWith('/') ? dir : `${dir}/`;
  return path === dir || path.startsWith(base);
}

/**
 * Decides whether a tool call may run. Pure: evaluated in the workflow. For Bash with scoped
 * rules (`Bash(git *)`) the answer is a `checkCommand` permission that the activity decides
 * against the command; scoped rules of other tools match by tool name.
 */
export function decidePermission(
  policy: PermissionPolicy,
  toolName: string,
  target?: PermissionTarget,
): ToolPermission {
  if (toolName === 'Bash') return decideBash(policy);
  return decideByName(policy, toolName, target);
}

function bashPatterns(rules: readonly string[] | undefined): { unscoped: boolean; patterns: string[] } {
  const bash = (rules ?? []).filter((r) => ruleName(r) === 'Bash');
  const patterns = bash.map(ruleContent).filter((p): p is string => p !== null && p !== '');
  return { unscoped: bash.some((r) => ruleContent(r) === null || ruleContent(r) === ''), patterns };
}

function decideBash(policy: PermissionPolicy): ToolPermission {
  const denied = bashPatterns(policy.disallowedTools);
  if (denied.unscoped) return decideByName(policy, 'Bash');
  const allowed = bashPatterns(policy.allowedTools);
  const byMode = decideByName({ mode: policy.mode, allowedTools: allowed.unscoped ? ['Bash'] : [] }, 'Bash');
  if (byMode.behavior === 'deny' && allowed.patterns.length === 0) return byMode;
  if (byMode.behavior === 'allow' && denied.patterns.length === 0) return byMode;
  if (policy.mode === 'plan') return byMode;
  return {
    behavior: 'checkCommand',
    allow: byMode.behavior === 'allow' ? null : allowed.patterns,
    deny: denied.patterns,
    message: byMode.behavior === 'deny' ? byMode.message : '',
  };
}

function decideByName(policy: PermissionPolicy, toolName: string, target?: PermissionTarget): ToolPermission {
  if (listed(policy.disallowedTools, toolName)) {
    return {
      behavior: 'deny',
      message: `Permission to use ${toolName} has been denied by a disallowedTools rule.`,
      reason: 'rule',
    };
  }
  if (READ_ONLY_TOOLS.has(toolName)) return { behavior: 'allow' };
  // A tool that does not exist is not a permission question: its run answers "No such tool
  // available", as in Claude Code (and it is not a permission denial).
  // MCP tools (`mcp__server__tool`) are asked for like any tool that is not read-only.
  if (!(BUILTIN_TOOL_NAMES as readonly string[]).includes(toolName) && !isMcpToolName(toolName)) {
    return { behavior: 'allow' };
  }
  if (policy.mode === 'plan') {
    return { behavior: 'deny', message: `${toolName} is not allowed in plan mode.`, reason: 'mode' };
  }
  if (policy.mode === 'bypassPermissions') return { behavior: 'allow' };
  if (policy.mode === 'acceptEdits' && EDIT_TOOLS.has(toolName)) {
    // As in Claude Code, acceptEdits covers the working directory only.
    if (!target?.filePath || isInside(target.cwd, target.filePath)) return { behavior: 'allow' };
    if (!listed(policy.allowedTools, toolName)) {
      return {
        behavior: 'deny',
        message:
          `Permission to ${toolName} ${target.filePath} has been denied: acceptEdits mode only covers files inside ` +
          `the working directory ${target.cwd}.`,
        reason: 'mode',
      };
    }
  }
  if (listed(policy.allowedTools, toolName)) return { behavior: 'allow' };
  if (policy.mode === 'dontAsk') {
    return {
      behavior: 'deny',
      message:
        `Permission to use ${toolName} has been denied: this run is in dontAsk mode, where only tools allowed in ` +
        'advance (--allowedTools) run. Do not try to get around the denial; if the tool is essential, stop and ' +
        'explain what you need it for.',
      reason: 'mode',
    };
  }
  return {
    behavior: 'deny',
    message:
      `Claude requested permissions to use ${toolName}, but you haven't granted it yet. ` +
      `Allow it with --allowedTools ${toolName} or a permission mode that covers it.`,
    reason: 'mode',
  };
}
