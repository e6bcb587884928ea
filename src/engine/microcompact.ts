/**
 * Microcompact (the seeds' `microcompactMessages`, stage 4 of the context pipeline): which old
 * tool results the request sends as a placeholder instead of their content. Pure: the request
 * builder asks it with what the chain holds, and the cleared ids are recorded on a
 * `microcompact_boundary` line so that every later request (a retry, a resume, a fork, another
 * worker) sends the same view.
 *
 * Two kinds of result are cleared, as Claude Code 2.1.328 clears them (`[Old tool result content
 * cleared]`, only for its compactable tools):
 * - a `Read` of a file that a later `Read` of the same file (with no offset or limit) supersedes
 *   (folding repeated reads of one file);
 * - a large result (at least `minResultTokens`) older than the `keepRecent` most recent results
 *   of compactable tools (stale logs).
 * Small results (a fact the model was told) are kept however old.
 *
 * Prompt caching: clearing rewrites a message inside the cached prefix, so the prefix from there
 * on is written to the cache again. To keep the cache-read share high, new clearings are made
 * only in batches of at least `minFreedTokens`; between batches the view is the recorded one,
 * byte for byte, and the cache serves it. Claude Code's batch is 20,000 tokens, but it clears
 * only once the cache has gone cold; we clear with the cache warm, where each batch rewrites the
 * tail, so our default is 60,000 (`bench pipeline`: lower cost and a cache-read share of 90%
 * instead of 77%, on the same session). And a batch is made only once the context reaches
 * `triggerFill` (95%) of the auto-compaction threshold ({@link batchDue}): fewer, larger batches,
 * the cache-read share of auto-compaction alone (94%), no compaction.
 */
import type { MicrocompactOptions } from '../common/compaction';

export type { MicrocompactOptions };

/** Placeholder sent instead of a cleared result (Claude Code's text). */
export const CLEARED_TOOL_RESULT_TEXT = '[Old tool result content cleared]';

/** Tools whose results may be cleared (Claude Code's compactable set, by our tool names). */
export const COMPACTABLE_TOOLS: ReadonlySet<string> = new Set([
  'Read',
  'Bash',
  'Grep',
  'Glob',
  'WebFetch',
  'WebSearch',
  'Edit',
  'Write',
]);

/** Defaults of {@link MicrocompactOptions}. */
export const MICROCOMPACT_DEFAULTS = { keepRecent: 5, minResultTokens: 1_000, minFreedTokens: 60_000 } as const;

/** Default of {@link MicrocompactOptions.triggerFill}: just before auto-compaction would run (`bench pipeline`: the cache-read share of auto-compaction alone, at lower cost). */
export const DEFAULT_TRIGGER_FILL = 0.95;

/**
 * True when a call may make a new batch (microcompact's clearings, snip's removals): the context
 * it would send has reached `triggerFill` of the auto-compaction threshold, or either is unknown.
 * @param contextTokens the context the call would send without a new batch (tokens, estimated:
 *   the last call's context plus the results since)
 * @param thresholdTokens the auto-compaction threshold (`autoCompactThreshold`), undefined when it is off
 */
export function batchDue(
  contextTokens: number | undefined,
  thresholdTokens: number | undefined,
  options: MicrocompactOptions | undefined,
): boolean {
  const trigger = options?.triggerFill ?? DEFAULT_TRIGGER_FILL;
  if (contextTokens === undefined || thresholdTokens === undefined || trigger <= 0) return true;
  return contextTokens >= trigger * thresholdTokens;
}

/** Claude Code's least batch (tokens): it clears when the cache has gone cold, where a rewrite costs nothing. */
export const CLAUDE_CODE_MIN_FREED_TOKENS = 20_000;

/** One tool result of the chain, oldest first, as the request builder sees it. */
export interface ToolResultFacts {
  toolUseId: string;
  /** Name of the tool that produced it. */
  tool: string;
  /** For a `Read` of a whole file (no offset or limit): its path; undefined otherwise. */
  wholeFileRead?: string;
  /** Estimated tokens of its content (characters / 4). */
  tokens: number;
}

/** What {@link planMicrocompact} decided. */
export interface MicrocompactPlan {
  /** Every tool_use id whose result the request sends as the placeholder (recorded and new). */
  cleared: ReadonlySet<string>;
  /** The ids cleared by this call (empty when the batch was too small or the stage is off), oldest first. */
  newlyCleared: string[];
  /** Estimated tokens the new clearings free. */
  freedTokens: number;
}

/** Tokens of a text as the stages estimate them (4 characters a token, rounded up). */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

/**
 * Decides the view: the recorded clearings, plus a new batch when it frees enough.
 * @param results the chain's tool results, oldest first (since the last compact boundary)
 * @param recorded ids cleared by earlier calls (from the chain's `microcompact_boundary` lines)
 */
export function planMicrocompact(
  results: readonly ToolResultFacts[],
  recorded: ReadonlySet<string>,
  options: MicrocompactOptions = {},
): MicrocompactPlan {
  const cleared = new Set(recorded);
  if (options.enabled === false) return { cleared, newlyCleared: [], freedTokens: 0 };
  const keepRecent = Math.max(1, options.keepRecent ?? MICROCOMPACT_DEFAULTS.keepRecent);
  const minResult = options.minResultTokens ?? MICROCOMPACT_DEFAULTS.minResultTokens;
  const minFreed = options.minFreedTokens ?? MICROCOMPACT_DEFAULTS.minFreedTokens;
  const compactable = results.filter((r) => COMPACTABLE_TOOLS.has(r.tool));
  const recent = new Set(compactable.slice(-keepRecent).map((r) => r.toolUseId));
  const lastReadOf = new Map<string, string>();
  for (const r of compactable) if (r.wholeFileRead !== undefined) lastReadOf.set(r.wholeFileRead, r.toolUseId);
  const candidates = compactable.filter((r) => {
    if (cleared.has(r.toolUseId)) return false;
    const superseded = r.wholeFileRead !== undefined && lastReadOf.get(r.wholeFileRead) !== r.toolUseId;
    const stale = !recent.has(r.toolUseId) && r.tokens >= minResult;
    return superseded || stale;
  });
  const freed = candidates.reduce((n, r) => n + r.tokens, 0);
  if (candidates.length === 0 || freed < minFreed) return { cleared, newlyCleared: [], freedTokens: 0 };
  for (const r of candidates) cleared.add(r.toolUseId);
  return { cleared, newlyCleared: candidates.map((r) => r.toolUseId), freedTokens: freed };
}
