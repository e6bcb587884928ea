/**
 * The tools that exist because of what a session has rather than for every turn: `Skill` (the
 * session defines skills or commands the model may load) and `ToolSearch` (some tools are
 * deferred), and Claude Code 2.1.328's rules for which tools are deferred
 * (docs/reference/claude-code-commands-skills-model.md, "Deferred tools and ToolSearch"). Pure.
 */

/** Loads a skill or command (its text and its `allowed-tools`) into the conversation. */
export const SKILL_TOOL = 'Skill';
/** Loads deferred tools' schemas (`select:` names or keywords). */
export const TOOL_SEARCH_TOOL = 'ToolSearch';
/** Claude Code's placeholder that keeps deferred tool loading on (`defer_loading: true`, never called). */
export const DEFERRED_TOOL_PLACEHOLDER = 'DeferredToolPlaceholder';
/** The `anthropic-beta` value that lets requests carry `defer_loading` tools and `tool_reference` results. */
export const TOOL_SEARCH_BETA = 'advanced-tool-use-2025-11-20';

/**
 * Built-in tools Claude Code 2.1.328 defers by default (their schemas are loaded on demand). The
 * runner has some of them (as later issues add them); a tool not offered is simply absent.
 */
export const DEFERRED_BY_DEFAULT: ReadonlySet<string> = new Set([
  'CronCreate',
  'CronDelete',
  'CronList',
  'EnterPlanMode',
  'EnterWorktree',
  'ExitPlanMode',
  'ExitWorktree',
  'Monitor',
  'NotebookEdit',
  'SendMessage',
  'TaskStop',
  'WebFetch',
  'WebSearch',
]);

/** Default share of the context window above which `auto` mode defers (Claude Code's 10%). */
export const AUTO_DEFER_DEFAULT_PERCENT = 10;

/** A tool as deferral sees it: its name and the size of its definition. */
export interface DeferralCandidate {
  name: string;
  /** Characters of its definition's JSON (tokens ≈ chars / 4). */
  chars: number;
  /** An MCP tool (always deferrable). */
  mcp: boolean;
}

/** What a request offers, once deferral is decided. */
export interface DeferralPlan {
  /** Whether ToolSearch (and the placeholder) are offered and some tools are held back. */
  active: boolean;
  /**
   * Whether the request carries {@link DEFERRED_TOOL_PLACEHOLDER}: when {@link active}, and also
   * when tool search is on (`on`, a model with `tool_reference`, ToolSearch not disallowed) but
   * nothing is deferred (a `--tools` list without ToolSearch, or no deferrable tool), as in
   * Claude Code 2.1.328 (recorded: agent-foreground, deferral-matrix `--tools Read,WebFetch,NotebookEdit`).
   */
  placeholder: boolean;
  /** Names of the deferred tools, sorted (the order the model is told them). */
  deferred: string[];
}

/** Models that cannot load tools by `tool_reference` (Claude Code defers nothing for them). */
function supportsToolReference(model: string): boolean {
  return !/^claude-3-/.test(model) && !/^claude-instant/.test(model);
}

/**
 * Which tools a request defers.
 * @param mode `TurnOptions.toolSearch` (`on` when absent)
 * @param listedTools `--tools` (absent for the default set): a list without ToolSearch defers nothing
 * @param contextWindow of the model, tokens (for `auto:N`)
 */
export function deferralPlan(args: {
  mode: string | undefined;
  candidates: readonly DeferralCandidate[];
  model: string;
  listedTools?: readonly string[];
  disallowed?: readonly string[];
  contextWindow: number;
}): DeferralPlan {
  const off: DeferralPlan = { active: false, deferred: [], placeholder: false };
  const mode = args.mode ?? 'on';
  if (mode === 'off' || !supportsToolReference(args.model)) return off;
  if ((args.disallowed ?? []).some((r) => r === TOOL_SEARCH_TOOL)) return off;
  // Tool search is on but defers nothing: the placeholder is sent all the same (`on` only).
  const idle: DeferralPlan = { ...off, placeholder: mode === 'on' };
  if (args.listedTools && !args.listedTools.includes(TOOL_SEARCH_TOOL)) return idle;
  const deferrable = args.candidates.filter((c) => c.mcp || DEFERRED_BY_DEFAULT.has(c.name));
  if (deferrable.length === 0) return idle;
  if (mode.startsWith('auto')) {
    const percent = Number(mode.split(':')[1] ?? AUTO_DEFER_DEFAULT_PERCENT);
    const tokens = args.candidates.reduce((n, c) => n + Math.ceil(c.chars / 4), 0);
    if (tokens <= (args.contextWindow * (Number.isFinite(percent) ? percent : AUTO_DEFER_DEFAULT_PERCENT)) / 100) {
      return off;
    }
  }
  return { active: true, deferred: deferrable.map((c) => c.name).sort(), placeholder: true };
}

/**
 * `ENABLE_TOOL_SEARCH` as a {@link deferralPlan} mode: unset or `true` → `on`, `false` → `off`,
 * `auto` → `auto:10`, `auto:N` as given; anything else → `on`.
 */
export function toolSearchModeOf(value: string | undefined): 'on' | 'off' | `auto:${number}` {
  const v = (value ?? '').trim().toLowerCase();
  if (v === 'false' || v === '0' || v === 'off') return 'off';
  if (v === 'auto') return `auto:${AUTO_DEFER_DEFAULT_PERCENT}`;
  const m = /^auto:(\d+(?:\.\d+)?)$/.exec(v);
  if (m?.[1]) return `auto:${Number(m[1])}`;
  return 'on';
}
