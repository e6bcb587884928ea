import type { ScopedRules } from '../common/permissions';
import type { ToolPermission } from '../common/tools';
import { READ_ONLY_TOOLS, TOOL_NAMES, optInToolsOf } from '../common/tools';
import { isMcpToolName, mcpRuleMatches } from '../common/mcp';
import type { RuleVerdict } from './permission-precedence';
import { permissionPrecedence } from './permission-precedence';
import type { PermissionMode } from '../common/permissions';
import { SKILL_TOOL } from '../common/session-tools';

/** The permission rules of a turn: flags and settings files merged (see src/config-files/settings.ts). */
export interface PermissionPolicy {
  mode: PermissionMode;
  /** Rules (`Tool` or `Tool(pattern)`) whose calls run without asking. */
  allowedTools?: string[];
  /** Rules whose calls never run. A deny rule always wins. */
  disallowedTools?: string[];
  /** Rules whose calls would need a person (headless: denied). */
  askTools?: string[];
  /** More directories the tools may work in, besides the working directory (absolute). */
  additionalDirectories?: string[];
  /** Opt-in tools the turn offers (src/common/tools.ts `OPT_IN_TOOL_NAMES`); the others do not exist. */
  optInTools?: string[];
}

/** Tool name of a rule (`Bash(git *)` → `Bash`). */
export function ruleName(rule: string): string {
  const open = rule.indexOf('(');
  const name = (open === -1 ? rule : rule.slice(0, open)).trim();
  // `Task` is Agent's other name in Claude Code (its rules, `--tools` and `system/init` use it).
  return name === 'Task' ? 'Agent' : name;
}

/** The pattern inside `Name(...)`, or null for a rule naming the whole tool. */
export function ruleContent(rule: string): string | null {
  const open = rule.indexOf('(');
  if (open === -1 || !rule.trimEnd().endsWith(')')) return null;
  const c = rule.slice(open + 1, rule.trimEnd().length - 1).trim();
  return c === '' ? null : c;
}

/** Built-in tools that write files (their targets are checked against the protected paths). */
const FILE_WRITING_TOOLS: ReadonlySet<string> = new Set(['Bash', 'Monitor', 'Edit', 'Write', 'NotebookEdit']);

function wholeTool(rules: readonly string[] | undefined, tool: string): boolean {
  return (rules ?? []).some((r) => ruleName(r) === tool && ruleContent(r) === null);
}

/**
 * The rule tools whose rules can decide a call of `tool`: its own, plus Read rules for tools that
 * read files and Edit/Write rules for tools that change them. Bash gets both (its redirections
 * and file operands are reads and edits).
 */
export function ruleToolsFor(tool: string): readonly string[] {
  switch (tool) {
    case 'Bash':
      return ['Bash', 'Read', 'Edit', 'Write', 'NotebookEdit'];
    // A monitor's command is a Bash command: Bash rules with a command decide it too.
    case 'Monitor':
      return ['Monitor', 'Bash', 'Read', 'Edit', 'Write', 'NotebookEdit'];
    case 'Read':
      return ['Read'];
    case 'Glob':
    case 'Grep':
      return ['Read', tool];
    case 'Edit':
    case 'Write':
    case 'NotebookEdit':
      return ['Edit', 'Write', 'NotebookEdit'];
    default:
      return [tool];
  }
}

/** The rules that matter for one call of `tool` (what travels to the activity). */
export function scopedRulesFor(policy: PermissionPolicy, tool: string): ScopedRules {
  const tools = ruleToolsFor(tool);
  const pick = (rules: readonly string[] | undefined): string[] =>
    (rules ?? []).filter((r) => {
      const name = ruleName(r);
      if (!tools.includes(name)) return false;
      // Another tool's whole-tool rule (`Read` while deciding Bash) says nothing about paths.
      return name === tool || ruleContent(r) !== null;
    });
  return { allow: pick(policy.allowedTools), deny: pick(policy.disallowedTools), ask: pick(policy.askTools) };
}

/** Why EnterPlanMode is refused out of plan mode (the runner's words; Claude Code asks `Enter plan mode?`). */
export const ENTER_PLAN_MODE_REFUSED =
  'EnterPlanMode is not supported in the middle of a turn by this runner: start a turn with --permission-mode plan to plan first.';

/** A PreToolUse hook's verdict on one call, as the workflow passes it to {@link decidePermission}. */
export type HookPermission =
  | { decision: 'none' | 'allow' }
  /** `message`: the text the model gets when the hook's answer decides (its reason, or a default). */
  | { decision: 'deny' | 'ask'; message: string };

/** What the rules say about a call by its tool name alone, or that the activity must look at its input. */
/** A `check` may carry its own rules (a Skill call carries the Bash rules too); else the tool's scoped rules. */
type ByName =
  { verdict: RuleVerdict; message: string; reason: 'rule' | 'mode' } | { verdict: 'check'; rules?: ScopedRules };

/**
 * Decides what the workflow can decide by tool name, and otherwise hands the call to the activity
 * with the rules that matter for it (`check`, carrying the hook's verdict). Pure: evaluated in the
 * workflow, which never sees tool inputs. Rules on paths and commands, the working-directory
 * boundary and real paths are decided by `decideToolPermission` (src/activities/permissions/decide.ts) in the
 * `runTool` activity, which applies the same precedence (src/engine/permission-precedence.ts).
 * @param hook the PreToolUse hooks' verdict. @default none
 */
export function decidePermission(
  policy: PermissionPolicy,
  toolName: string,
  hook: HookPermission = { decision: 'none' },
): ToolPermission {
  if (hook.decision === 'deny') return { behavior: 'deny', message: hook.message, reason: 'hook' };
  // AskUserQuestion (offered only with an approver) always asks, in every mode: the answer is the person's choice.
  if (toolName === 'AskUserQuestion' && policy.optInTools?.includes(toolName)) {
    return { behavior: 'deny', message: 'Answer questions?', reason: 'mode', ask: true };
  }
  // So does ExitPlanMode: approving it is approving the plan (Claude Code's "Exit plan mode?").
  if (toolName === 'ExitPlanMode' && policy.optInTools?.includes(toolName)) {
    return { behavior: 'deny', message: 'Exit plan mode?', reason: 'mode', ask: true };
  }
  // EnterPlanMode runs in plan mode (Claude Code leaves the mode as it is); the runner does not
  // enter plan mode in the middle of a turn.
  if (toolName === 'EnterPlanMode' && policy.optInTools?.includes(toolName)) {
    return policy.mode === 'plan'
      ? { behavior: 'allow' }
      : { behavior: 'deny', message: ENTER_PLAN_MODE_REFUSED, reason: 'mode' };
  }
  const byName = decideByName(policy, toolName);
  if (byName.verdict === 'check') {
    return {
      behavior: 'check',
      mode: policy.mode,
      rules: byName.rules ?? scopedRulesFor(policy, toolName),
      ...(policy.additionalDirectories?.length ? { additionalDirectories: policy.additionalDirectories } : {}),
      ...(hook.decision === 'allow' ? { hook: 'allow' as const } : {}),
      ...(hook.decision === 'ask' ? { hook: 'ask' as const, hookMessage: hook.message } : {}),
    };
  }
  const outcome = permissionPrecedence(byName.verdict, policy.mode, hook.decision);
  if (outcome.behavior === 'allow') return { behavior: 'allow' };
  const ask = outcome.behavior === 'ask' ? { ask: true } : {};
  if (outcome.by === 'hook' && hook.decision === 'ask') {
    // Refused outright (dontAsk): a denial in the hook's words, not a question for approvals.
    return {
      behavior: 'deny',
      message: hook.message,
      reason: outcome.behavior === 'ask' ? 'hook_ask' : 'hook',
      ...ask,
    };
  }
  // Claude Code tells a deny rule that overrode a hook's allow in the tool result only.
  const silent = hook.decision === 'allow' && byName.verdict === 'deny' ? { silent: true } : {};
  return { behavior: 'deny', message: byName.message, reason: byName.reason, ...ask, ...silent };
}

/** The rule verdict of a call by its tool name, or `check` when it depends on the input. */
function decideByName(policy: PermissionPolicy, toolName: string): ByName {
  if (wholeTool(policy.disallowedTools, toolName)) {
    return {
      verdict: 'deny',
      message: `Permission to use ${toolName} has been denied by a permission rule (${toolName}).`,
      reason: 'rule',
    };
  }
  if (isMcpToolName(toolName)) return decideMcpTool(policy, toolName);
  if (toolName === SKILL_TOOL) return decideSkill(policy);
  if (toolName === 'WebSearch' || toolName === 'WebFetch') return decideWebTool(policy, toolName);
  // A tool that does not exist is not a permission question: its run answers "No such tool
  // available", as in Claude Code (and it is not a permission denial).
  if (!TOOL_NAMES.includes(toolName) && !policy.optInTools?.includes(toolName))
    return { verdict: 'allow', message: '', reason: 'rule' };
  if (wholeTool(policy.askTools, toolName)) {
    return {
      verdict: 'ask',
      message: `Claude requested permissions to use ${toolName}, which a permission rule says to ask about, and no one can be asked in this run.`,
      reason: 'rule',
    };
  }
  // Plan mode: no edits at all (Bash is checked: allowed and read-only commands run, as in Claude Code).
  if (policy.mode === 'plan' && !READ_ONLY_TOOLS.has(toolName) && toolName !== 'Bash') {
    return { verdict: 'unmatched', message: `${toolName} is not allowed in plan mode.`, reason: 'mode' };
  }
  const rules = scopedRulesFor(policy, toolName);
  const scopedLimits = rules.deny.length + rules.ask.length > 0;
  // A tool that writes files may target a protected path (.git, .claude…), which no allow rule
  // opens: only the activity, which sees the input, can tell (src/activities/permissions/protected-paths.ts).
  const allowedWhole = wholeTool(policy.allowedTools, toolName) && !FILE_WRITING_TOOLS.has(toolName);
  if (!scopedLimits && (policy.mode === 'bypassPermissions' || allowedWhole)) {
    return { verdict: 'allow', message: '', reason: 'rule' };
  }
  return { verdict: 'check' };
}

/**
 * The policy of a turn from its options (flags and settings files, merged by the client).
 */
export function permissionPolicyOf(options: {
  permissionMode: PermissionMode;
  allowedTools?: string[];
  disallowedTools?: string[];
  askTools?: string[];
  additionalDirectories?: string[];
  tools?: string[];
  approverTools?: string[];
}): PermissionPolicy {
  const optIn = optInToolsOf(options);
  return {
    mode: options.permissionMode,
    ...(options.allowedTools ? { allowedTools: options.allowedTools } : {}),
    ...(options.disallowedTools ? { disallowedTools: options.disallowedTools } : {}),
    ...(options.askTools ? { askTools: options.askTools } : {}),
    ...(options.additionalDirectories ? { additionalDirectories: options.additionalDirectories } : {}),
    ...(optIn.length ? { optInTools: optIn } : {}),
  };
}

/**
 * The policy of a turn, with the allow rules its loaded skills brought (`allowed-tools`, which
 * apply from the load on).
 */
export function turnPolicy(
  options: Parameters<typeof permissionPolicyOf>[0],
  skillRules: readonly string[] = [],
): PermissionPolicy {
  const policy = permissionPolicyOf(options);
  if (skillRules.length === 0) return policy;
  return { ...policy, allowedTools: [...(policy.allowedTools ?? []), ...skillRules] };
}

/**
 * A Skill call: the activity decides it with the skill itself (one that brings `allowed-tools`
 * needs an allow rule for `Skill` in every mode but bypassPermissions, as in Claude Code
 * 2.1.328), and a command it loads runs its `!` lines as Bash calls of the turn: so the rules for
 * `Skill` and those for Bash travel with the call.
 */
function decideSkill(policy: PermissionPolicy): ByName {
  const skill = scopedRulesFor(policy, SKILL_TOOL);
  const bash = scopedRulesFor(policy, 'Bash');
  const rules = {
    allow: [...skill.allow, ...bash.allow],
    deny: [...skill.deny, ...bash.deny],
    ask: [...skill.ask, ...bash.ask],
  };
  if (policy.mode === 'bypassPermissions' && rules.deny.length + rules.ask.length === 0) {
    return { verdict: 'allow', message: '', reason: 'mode' };
  }
  return { verdict: 'check', rules };
}

/**
 * An MCP tool (`mcp__server__tool`): decided here by name, as Claude Code reads MCP rules
 * (`mcp__server`, `mcp__server__*`, `mcp__server__tool`). A deny rule wins; an ask rule or the
 * default and acceptEdits modes leave it to a person (`ask`: denied when no one can answer).
 */
function decideMcpTool(policy: PermissionPolicy, toolName: string): ByName {
  const matches = (rules: readonly string[] | undefined): boolean =>
    (rules ?? []).some((r) => r === toolName || mcpRuleMatches(r, toolName));
  if (matches(policy.disallowedTools)) {
    return {
      verdict: 'deny',
      message: `Permission to use ${toolName} has been denied by a permission rule.`,
      reason: 'rule',
    };
  }
  if (matches(policy.askTools)) {
    return {
      verdict: 'ask',
      message: `Claude requested permissions to use ${toolName}, which a permission rule says to ask about, and no one can be asked in this run.`,
      reason: 'rule',
    };
  }
  if (policy.mode === 'plan')
    return { verdict: 'unmatched', message: `${toolName} is not allowed in plan mode.`, reason: 'mode' };
  if (policy.mode === 'bypassPermissions' || matches(policy.allowedTools))
    return { verdict: 'allow', message: '', reason: 'rule' };
  return {
    verdict: 'unmatched',
    message:
      `Claude requested permissions to use ${toolName}, but you haven't granted it yet. ` +
      `Allow it with --allowedTools ${toolName} (or mcp__<server> for all of a server's tools).`,
    reason: 'mode',
  };
}

/** Claude Code's denial of a tool call no rule allows, when no one can be asked. */
export function notGrantedMessage(toolName: string): string {
  return `Claude requested permissions to use ${toolName}, but you haven't granted it yet.`;
}

/**
 * WebSearch and WebFetch, as Claude Code decides them: they need an allow rule (or
 * bypassPermissions) in every other mode. WebSearch is decided here by name; WebFetch's
 * `WebFetch(domain:…)` rules need the URL, so a call with such rules goes to the activity.
 */
function decideWebTool(policy: PermissionPolicy, toolName: 'WebSearch' | 'WebFetch'): ByName {
  if (wholeTool(policy.askTools, toolName)) {
    return {
      verdict: 'ask',
      message: `Claude requested permissions to use ${toolName}, which a permission rule says to ask about, and no one can be asked in this run.`,
      reason: 'rule',
    };
  }
  const rules = scopedRulesFor(policy, toolName);
  const scoped = [...rules.allow, ...rules.deny, ...rules.ask].some((r) => ruleContent(r) !== null);
  if (toolName === 'WebFetch' && scoped) return { verdict: 'check' };
  if (policy.mode === 'bypassPermissions' || wholeTool(policy.allowedTools, toolName)) {
    return { verdict: 'allow', message: '', reason: 'rule' };
  }
  return { verdict: 'unmatched', message: notGrantedMessage(toolName), reason: 'mode' };
}

/** How much each permission mode runs without a person (higher: more), for {@link subagentPermissionMode}. */
const MODE_REACH: Readonly<Record<PermissionMode, number>> = {
  plan: 0,
  dontAsk: 1,
  default: 2,
  acceptEdits: 3,
  bypassPermissions: 4,
};

/**
 * The permission mode of a subagent whose type asks for `asked` (frontmatter or `--agents`
 * `permissionMode`), under a parent turn in `parent` (undefined: `default`): the type's mode
 * when it reaches no further than the parent's, else the parent's, so that a repository's agent
 * file never widens what the session allows (`bypassPermissions` or `acceptEdits` under a
 * `default` or `plan` parent). A parent in `bypassPermissions` keeps its own, as in Claude Code.
 * @returns the child's mode (undefined: the parent's, `default`)
 */
export function subagentPermissionMode(
  parent: PermissionMode | undefined,
  asked: PermissionMode | undefined,
): PermissionMode | undefined {
  if (asked === undefined || parent === 'bypassPermissions') return parent;
  return MODE_REACH[asked] <= MODE_REACH[parent ?? 'default'] ? asked : parent;
}
