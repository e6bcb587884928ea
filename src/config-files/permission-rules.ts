/**
 * Permission rule strings (`Tool` or `Tool(content)`): splitting, syntax checks, and which rules
 * apply to which tool. Pure.
 */
import { bashPatternError } from './command-patterns';
import { pathPatternError } from './path-rules';

/** A rule split into its tool name and content (null for a rule naming the whole tool). */
export interface ParsedRule {
  tool: string;
  content: string | null;
}

const RULE_RE = /^([A-Za-z_][A-Za-z0-9_-]*)(?:\(([\s\S]*)\))?$/;

/** Tools whose rule content is a path pattern. */
export const PATH_RULE_TOOLS: ReadonlySet<string> = new Set(['Read', 'Edit', 'Write', 'Glob', 'Grep', 'NotebookEdit']);

/** Splits a rule; null when it is not of the form `Tool` or `Tool(content)`. */
export function parseRule(rule: string): ParsedRule | null {
  const m = RULE_RE.exec(rule.trim());
  if (!m) return null;
  const content = m[2];
  return { tool: m[1] as string, content: content === undefined || content.trim() === '' ? null : content };
}

/**
 * Checks a rule's syntax: `Tool`, `Tool(content)`, or an MCP tool name; the content of Bash rules
 * is a command pattern, that of Read/Edit/Write/Glob/Grep rules a path pattern. Rules of other
 * tools (WebFetch, mcp__…) are accepted as written.
 * @returns an error message, or null when the rule is valid.
 */
export function ruleSyntaxError(rule: string): string | null {
  const parsed = parseRule(rule);
  if (!parsed) {
    return `"${rule}" is not a permission rule: expected Tool or Tool(pattern), e.g. Bash(git *) or Read(./src/**)`;
  }
  if (parsed.content === null) return null;
  if (parsed.tool === 'Bash') {
    const e = bashPatternError(parsed.content);
    return e === null ? null : `"${rule}": ${e}`;
  }
  if (PATH_RULE_TOOLS.has(parsed.tool)) {
    const e = pathPatternError(parsed.content);
    return e === null ? null : `"${rule}": ${e}`;
  }
  return null;
}

/** Tool names whose rules apply to reading files. */
export const READ_RULE_TOOLS: readonly string[] = ['Read'];
/** Tool names whose rules apply to changing files. */
export const EDIT_RULE_TOOLS: readonly string[] = ['Edit', 'Write', 'NotebookEdit'];

/**
 * The rule tool names that govern a tool call's file access: a Read, Glob or Grep call is a read
 * (Read rules, plus the tool's own scoped rules), an Edit or Write call is an edit.
 */
export function pathRuleToolsFor(toolName: string): readonly string[] {
  if (toolName === 'Glob' || toolName === 'Grep') return [...READ_RULE_TOOLS, toolName];
  if (toolName === 'Read') return READ_RULE_TOOLS;
  if (EDIT_RULE_TOOLS.includes(toolName)) return EDIT_RULE_TOOLS;
  return [toolName];
}
