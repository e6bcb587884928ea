/**
 * The `tools` of one request, in Claude Code 2.1.328's order: the turn's built-in tools, Skill when
 * the session has skills the model may load, the StructuredOutput tool (all these by name), the
 * MCP tools (by name), the deferred-tool placeholder second to last whenever tool search is on,
 * and, when tools are deferred (ToolSearch), the deferred tools
 * that stay out of the request until a ToolSearch result in the conversation loaded them
 * (they are then sent with `defer_loading: true`, which keeps the cached prefix: the API expands a
 * `tool_reference` where it stands). Which tools are loaded is read from the conversation itself,
 * so it survives resumes, continue-as-new and moves to another host with nothing in history.
 */
import type { TranscriptEntry } from '../../common/transcript';
import type { DeferralPlan } from '../../common/session-tools';
import { SKILL_TOOL, TOOL_SEARCH_TOOL, deferralPlan } from '../../common/session-tools';
import type { ModelToolSpec } from '../tools/registry';
import { DEFERRED_TOOL_PLACEHOLDER_SPEC, SKILL_TOOL_SPEC, TOOL_SEARCH_TOOL_SPEC } from './specs';

/** A tool definition as the request carries it. */
export type RequestTool = ModelToolSpec & { defer_loading?: boolean };

/** What the turn offers before deferral. */
export interface ToolSources {
  /** The turn's built-in tools (its `--tools`, else all), in their order. */
  builtins: readonly ModelToolSpec[];
  /** The session has skills or commands the model may load. */
  skills: boolean;
  /** Tools the turn adds (StructuredOutput). */
  extra: readonly ModelToolSpec[];
  mcp: readonly ModelToolSpec[];
  /** `TurnOptions.toolSearch`. */
  mode: string | undefined;
  model: string;
  /** `--tools`, when given. */
  listedTools?: readonly string[];
  contextWindow: number;
  /**
   * The tools are an agent type's own list (its `tools` frontmatter): offered in that order, and
   * without the placeholder (it is not on the list), as Claude Code 2.1.328 does.
   */
  ownList?: boolean;
}

/** The request's tools and what was deferred. */
export interface OfferedTools {
  tools: RequestTool[];
  plan: DeferralPlan;
  /** Every deferred tool's definition, by name (what ToolSearch searches). */
  deferred: Map<string, ModelToolSpec>;
}

/** Names of the tools that ToolSearch results on this chain loaded, in the order they were loaded. */
export function loadedToolNames(chain: readonly TranscriptEntry[]): string[] {
  const out: string[] = [];
  for (const e of chain) {
    const c = e.message?.content;
    if (e.type !== 'user' || !Array.isArray(c)) continue;
    for (const b of c) {
      if (b.type !== 'tool_result' || !Array.isArray(b['content'])) continue;
      for (const r of b['content'] as Array<Record<string, unknown>>) {
        if (r['type'] === 'tool_reference' && typeof r['tool_name'] === 'string' && !out.includes(r['tool_name'])) {
          out.push(r['tool_name']);
        }
      }
    }
  }
  return out;
}

/** By name, by code unit (Claude Code's order of a request's tools). */
const byName = (a: ModelToolSpec, b: ModelToolSpec): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Decides the request's tools (see the module comment). */
export function offeredTools(src: ToolSources, loaded: readonly string[] = []): OfferedTools {
  const listed = (name: string): boolean => src.listedTools === undefined || src.listedTools.includes(name);
  const candidates = [...src.builtins, ...src.mcp];
  const plan = deferralPlan({
    mode: src.mode,
    candidates: candidates.map((t) => ({ name: t.name, chars: JSON.stringify(t).length, mcp: src.mcp.includes(t) })),
    model: src.model,
    ...(src.listedTools ? { listedTools: src.listedTools } : {}),
    contextWindow: src.contextWindow,
  });
  const deferredNames = new Set(plan.deferred);
  const deferred = new Map(candidates.filter((t) => deferredNames.has(t.name)).map((t) => [t.name, t]));
  const inline = (list: readonly ModelToolSpec[]): ModelToolSpec[] => list.filter((t) => !deferredNames.has(t.name));
  const own = [
    ...inline(src.builtins),
    ...(src.skills && listed(SKILL_TOOL) ? [SKILL_TOOL_SPEC] : []),
    ...(plan.active ? [TOOL_SEARCH_TOOL_SPEC] : []),
    ...src.extra,
  ];
  // Claude Code's order: its own tools by name, then the MCP tools by name (a type's own list keeps its order).
  const tools: RequestTool[] = src.ownList
    ? [...own, ...inline(src.mcp)]
    : [...own.sort(byName), ...inline(src.mcp).sort(byName)];
  if (plan.placeholder && !src.ownList) {
    // Second to last, where Claude Code puts it.
    tools.splice(Math.max(0, tools.length - 1), 0, DEFERRED_TOOL_PLACEHOLDER_SPEC as RequestTool);
  }
  if (plan.active) {
    // Loaded built-in tools by name, then MCP tools, after the rest (the cached prefix stays).
    const loadedSpecs = loaded.flatMap((n) => (deferred.has(n) ? [deferred.get(n) as ModelToolSpec] : []));
    const isMcp = (t: ModelToolSpec): boolean => src.mcp.includes(t);
    for (const t of [...loadedSpecs.filter((t) => !isMcp(t)).sort(byName), ...loadedSpecs.filter(isMcp).sort(byName)]) {
      tools.push({ ...t, defer_loading: true });
    }
  }
  return { tools, plan, deferred };
}

export { TOOL_SEARCH_TOOL };
