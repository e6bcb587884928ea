/**
 * Runs a built-in tool by name on the model's raw input: validates it, runs the tool, and turns
 * every failure (unknown tool, invalid input, unexpected exception) into an `is_error` result.
 */
import { noSuchToolText } from '../../common/tools';
import type { z } from 'zod';
import { toolUseError } from './format';
import { BUILTIN_TOOLS, type AnyToolDefinition } from './registry';
import { inputFaultOf, inputFaultOutput } from './input-faults';
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

/**
 * One readable line per zod issue, for the issue kinds Claude Code words (a missing or mistyped
 * parameter, an unexpected one); `undefined` for any other kind.
 */
export function describeIssue(issue: z.core.$ZodIssue, rawInput: unknown): string[] | undefined {
  if (issue.path.length === 0 && issue.code === 'invalid_type') {
    return [`The input must be a JSON object, but was provided as \`${typeName(rawInput)}\``];
  }
  if (issue.code === 'unrecognized_keys') {
    const prefix = issue.path.length > 0 ? `${issue.path.map(String).join('.')}.` : '';
    return issue.keys.map((k) => `An unexpected parameter \`${prefix}${k}\` was provided`);
  }
  if (issue.code === 'invalid_type') {
    const name = issue.path.map(String).join('.');
    const value = valueAt(rawInput, issue.path);
    if (value === undefined) return [`The required parameter \`${name}\` is missing`];
    return [
      `The parameter \`${name}\` type is expected as \`${describeExpected(issue.expected)}\` but provided as \`${typeName(value)}\``,
    ];
  }
  return undefined;
}

/**
 * `InputValidationError` text for a failed parse, as Claude Code writes it: one line per issue
 * when every issue is of a kind it words, else the zod issues as JSON.
 */
export function validationErrorText(toolName: string, issues: readonly z.core.$ZodIssue[], rawInput: unknown): string {
  const described = issues.map((i) => describeIssue(i, rawInput));
  if (described.some((d) => d === undefined)) return toolUseError(validationErrorDetail(issues));
  const lines = described.flatMap((d) => d ?? []);
  const noun = lines.length === 1 ? 'issue' : 'issues';
  return toolUseError(`InputValidationError: ${toolName} failed due to the following ${noun}:\n${lines.join('\n')}`);
}

/** `tool_use_result` of a failed parse: the zod issues as JSON (Claude Code's form). */
export function validationErrorDetail(issues: readonly z.core.$ZodIssue[]): string {
  return `InputValidationError: ${JSON.stringify(issues, null, 2)}`;
}

/**
 * Runs the built-in tool `name` on `rawInput`. Never throws:
 * - unknown tool → `outcome: 'invalid'`, `<tool_use_error>Error: No such tool available: NAME</tool_use_error>`;
 * - input failing the tool's schema (unknown keys included) → `outcome: 'invalid'`, an `InputValidationError`;
 * - a NUL byte in a path, pattern or command (see input-faults.ts) → `outcome: 'invalid'`;
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
      content: toolUseError(noSuchToolText(name)),
      isError: true,
      structured: noSuchToolText(name),
      outcome: 'invalid',
    };
  }
  const parsed = tool.inputSchema.safeParse(rawInput);
  if (!parsed.success) {
    return {
      content: validationErrorText(name, parsed.error.issues, rawInput),
      isError: true,
      structured: validationErrorDetail(parsed.error.issues),
      outcome: 'invalid',
    };
  }
  const fault = inputFaultOf(name, parsed.data);
  if (fault !== undefined) return inputFaultOutput(fault);
  try {
    const out = await tool.run(parsed.data, ctx);
    return { ...out, outcome: out.isError ? 'error' : 'ok' };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return {
      content: toolUseError(`Error: ${message}`),
      isError: true,
      structured: `Error: ${message}`,
      outcome: 'error',
    };
  }
}
