/**
 * The built-in tools by name, and their descriptions in the Messages API `tools` format.
 */
import { z } from 'zod';
import { BashTool } from './bash';
import { EditTool } from './edit';
import { GlobTool } from './glob';
import { GrepTool } from './grep';
import { AskUserQuestionTool } from './ask-user-question';
import { EnterPlanModeTool } from './enter-plan-mode';
import { ExitPlanModeTool } from './exit-plan-mode';
import { NotebookEditTool } from './notebook-edit';
import { ReadTool } from './read';
import type { ToolDefinition } from './types';
import { WriteTool } from './write';
import { WebFetchTool } from './web/web-fetch';
import { WebSearchTool } from './web/web-search';
import { MonitorTool } from './monitor';

/**
 * A tool of any input type. `run` really takes the tool's own input type, so raw input must
 * be parsed with `inputSchema` before calling it (as `executeTool` does).
 */
export type AnyToolDefinition = ToolDefinition<unknown>;

/** The built-in tools (Read, Write, Edit, Bash, Glob, Grep, WebSearch, WebFetch), by name. */
export const BUILTIN_TOOLS: ReadonlyMap<string, AnyToolDefinition> = new Map<string, AnyToolDefinition>(
  [ReadTool, WriteTool, EditTool, BashTool, GlobTool, GrepTool, WebSearchTool, WebFetchTool].map((t) => [
    t.name,
    t as AnyToolDefinition,
  ]),
);

/**
 * The opt-in tools (src/common/tools.ts `OPT_IN_TOOL_NAMES`: NotebookEdit, AskUserQuestion,
 * ExitPlanMode, EnterPlanMode, Monitor), by name.
 */
export const OPT_IN_TOOLS: ReadonlyMap<string, AnyToolDefinition> = new Map<string, AnyToolDefinition>(
  [NotebookEditTool, AskUserQuestionTool, ExitPlanModeTool, EnterPlanModeTool, MonitorTool].map((t) => [
    t.name,
    t as AnyToolDefinition,
  ]),
);

/** Every built-in tool, default and opt-in: the table of a turn that offers its opt-in tools. */
export const ALL_BUILTIN_TOOLS: ReadonlyMap<string, AnyToolDefinition> = new Map([...BUILTIN_TOOLS, ...OPT_IN_TOOLS]);

/** A tool as sent to the Messages API in `tools`. */
export interface ModelToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the input (an object schema). */
  input_schema: { type: 'object'; [key: string]: unknown };
}

const SAFE_INT_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/** Removes zod's implicit ±MAX_SAFE_INTEGER bounds on integers (noise for the model). */
function stripIntegerBounds(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(stripIntegerBounds);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const obj = node as Record<string, unknown>;
  for (const key of ['minimum', 'maximum']) {
    const v = obj[key];
    if (typeof v === 'number' && SAFE_INT_BOUNDS.has(v)) delete obj[key];
  }
  Object.values(obj).forEach(stripIntegerBounds);
}

/** JSON Schema of a tool's input: no `$schema` key, `additionalProperties: false`. */
export function inputJsonSchema(tool: AnyToolDefinition): ModelToolSpec['input_schema'] {
  const schema = z.toJSONSchema(tool.inputSchema, { io: 'input' }) as Record<string, unknown>;
  delete schema.$schema;
  stripIntegerBounds(schema);
  schema.additionalProperties = false;
  return { ...schema, type: 'object' };
}

/** Specs by tool name: a schema is converted once per process (it never changes). */
const specCache = new Map<string, ModelToolSpec>();

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * The `tools` array for a Messages API request: the named built-in tools, in the given
 * order. Each tool's spec is built once per process and shared (frozen: callers must not
 * change it). Throws on a name that is not a built-in tool (a configuration error).
 */
export function toolsForModel(names: readonly string[]): ModelToolSpec[] {
  return names.map((name) => {
    const cached = specCache.get(name);
    if (cached) return cached;
    const tool = ALL_BUILTIN_TOOLS.get(name);
    if (!tool) {
      throw new Error(`Unknown built-in tool: ${name} (known: ${[...ALL_BUILTIN_TOOLS.keys()].join(', ')})`);
    }
    const spec = deepFreeze({ name: tool.name, description: tool.description, input_schema: inputJsonSchema(tool) });
    specCache.set(name, spec);
    return spec;
  });
}
