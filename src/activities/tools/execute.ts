/**
 * Runs a built-in tool by name on the model's raw input: validates it, runs the tool, and turns
 * every failure (unknown tool, invalid input, unexpected exception) into an `is_error` result.
 */
import type { z } from 'zod';
import { toolUseError } from './format';
import { BUILTIN_TOOLS, type AnyToolDefinition } from './registry';
import type { ToolContext, ToolOutput } from './types';

/** Result of {@link executeTool}: the tool output plus how the run went. */
export type ExecutedToolOutput = ToolOutput & { outcome: 'ok' | 'error' | 'invalid' };

/** JSON-ish type name of a value, for validation messages. */
function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

function describeExpected(expected: string): string {
  return expected === 'int' ? 'integer' : expected;
}

/** One readable line per zod issue. */
export function describeIssue(issue: z.core.$ZodIssue, rawInput: unknown): string {
  if (issue.path.length === 0) {
    return `The input must be a JSON object, but was provided as \`${typeName(rawInput)}\``;
  }
  const name = issue.path.map(String).join('.');
  if (issue.code === 'invalid_type') {
    const value = valueAt(rawInput, issue.path);
    if (value === undefined) return `The required parameter \`${name}\` is missing`;
    return `The parameter \`${name}\` type is expected as \`${describeExpected(issue.expected)}\` but provided as \`${typeName(value)}\``;
  }
  if (issue.code === 'invalid_value') {
    const options = issue.values.map((v) => JSON.stringify(v)).join(', ');
    return `The parameter \`${name}\` must be one of ${options}`;
  }
  return `The parameter \`${name}\` is invalid: ${issue.message}`;
}

/** `InputValidationError` text for a failed parse. */
export function validationErrorText(toolName: string, issues: readonly z.core.$ZodIssue[], rawInput: unknown): string {
  const lines = issues.map((i) => describeIssue(i, rawInput));
  const noun = lines.length === 1 ? 'issue' : 'issues';
  return toolUseError(`InputValidationError: ${toolName} failed due to the following ${noun}:\n${lines.join('\n')}`);
}

/**
 * Runs the built-in tool `name` on `rawInput`. Never throws:
 * - unknown tool → `outcome: 'invalid'`, `<tool_use_error>Error: No such tool available: NAME</tool_use_error>`;
 * - input failing the tool's schema → `outcome: 'invalid'`, an `InputValidationError` listing each issue;
 * - the tool throwing → `outcome: 'error'` with the error message;
 * - otherwise `outcome` is `'error'` when the tool reported `isError`, else `'ok'`.
 *
 * @param tools the tool table (defaults to the built-in tools; tests may pass their own).
 */
export async function executeTool(
  name: string,
  rawInput: unknown,
  ctx: ToolContext,
  tools: ReadonlyMap<string, AnyToolDefinition> = BUILTIN_TOOLS,
): Promise<ExecutedToolOutput> {
  const tool = tools.get(name);
  if (!tool) {
    return {
      content: toolUseError(`Error: No such tool available: ${name}`),
      isError: true,
      outcome: 'invalid',
    };
  }
  const parsed = tool.inputSchema.safeParse(rawInput);
  if (!parsed.success) {
    return {
      content: validationErrorText(name, parsed.error.issues, rawInput),
      isError: true,
      outcome: 'invalid',
    };
  }
  try {
    const out = await tool.run(parsed.data, ctx);
    return { ...out, outcome: out.isError ? 'error' : 'ok' };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { content: toolUseError(`Error: ${message}`), isError: true, outcome: 'error' };
  }
}
