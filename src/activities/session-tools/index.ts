/**
 * The session tools' runs in `runTool`: Skill (the session's stored definitions) and ToolSearch
 * (the turn's deferred tools, recomputed from the same inputs `callModel` uses).
 */
import type { RunToolInput } from '../../common/tools';
import { TOOL_NAMES } from '../../common/tools';
import { SKILL_TOOL, TOOL_SEARCH_TOOL } from '../../common/session-tools';
import { contextWindowOf } from '../../common/model-limits';
import type { TranscriptStore } from '../../store/transcript-store';
import { definitionsOf } from '../commands/prepare-command';
import type { ModelToolSpec } from '../tools/registry';
import { toolsForModel } from '../tools/registry';
import type { ToolContext, ToolOutput } from '../tools/types';
import { offeredTools } from './offered-tools';
import { runSkill } from './skill';
import { runToolSearch } from './tool-search';

/** What the session tools need from the worker. */
export interface SessionToolsDeps {
  store: TranscriptStore;
  /** The MCP tools of a stored tool list. */
  mcpSpecs(sessionId: string, ref: string): Promise<ModelToolSpec[]>;
  /** The specs of tools by name, as `callModel` sends them (task tools included). @default the built-in registry's */
  toolSpecs?(names: readonly string[]): ModelToolSpec[];
}

/** Runs Skill and ToolSearch calls. */
export interface SessionTools {
  /** Whether `name` is one of them. */
  handles(name: string): boolean;
  run(
    input: RunToolInput,
    toolInput: unknown,
    ctx: ToolContext,
  ): Promise<ToolOutput & { outcome: 'ok' | 'error' | 'denied' | 'invalid' }>;
}

/** The deferred tools of a ToolSearch call's turn, by name. */
export async function deferredToolsOf(
  deps: SessionToolsDeps,
  sessionId: string,
  ts: NonNullable<RunToolInput['toolSearch']>,
): Promise<Map<string, ModelToolSpec>> {
  const mcp = ts.mcpToolsRef !== undefined ? await deps.mcpSpecs(sessionId, ts.mcpToolsRef) : [];
  const builtins = (deps.toolSpecs ?? toolsForModel)(
    (ts.tools ?? [...TOOL_NAMES]).filter((n) => n !== SKILL_TOOL && n !== TOOL_SEARCH_TOOL),
  );
  return offeredTools({
    builtins,
    skills: false,
    extra: [],
    mcp,
    mode: ts.mode,
    model: ts.model,
    ...(ts.tools ? { listedTools: ts.tools } : {}),
    contextWindow: contextWindowOf(ts.model),
  }).deferred;
}

/** Creates the session tools' runner. */
export function createSessionTools(deps: SessionToolsDeps): SessionTools {
  return {
    handles: (name) => name === SKILL_TOOL || name === TOOL_SEARCH_TOOL,
    async run(input, toolInput, ctx) {
      if (input.toolName === TOOL_SEARCH_TOOL) {
        const deferred = input.toolSearch ? await deferredToolsOf(deps, input.sessionId, input.toolSearch) : new Map();
        return runToolSearch(toolInput, deferred);
      }
      const defs = await definitionsOf(deps.store, input.sessionId, input.definitionsKey);
      return runSkill(toolInput, {
        defs,
        cwd: ctx.cwd,
        permission: input.permission,
        env: ctx.env ?? process.env,
        signal: ctx.signal,
      });
    },
  };
}
