/**
 * Snip (the seeds' `snipCompactIfNeeded`, stage 3 of the context pipeline): whole rounds of the
 * middle of the conversation that carry nothing the model still needs, removed from the view at
 * no API cost. Pure: the request builder asks it with the chain's rounds, and the removed lines
 * are recorded on a `snip_boundary` line so that every later request (a retry, a resume, a fork,
 * another worker) sends the same view; the full history stays in the store.
 *
 * A round is one assistant line made only of tool calls, with the lines of their results (made
 * only of those results). It is stale when every call in it is one of:
 * - a call of a read-only tool repeated later with the same input and the same result (the later
 *   round says all the earlier one did);
 * - a call that failed without an effect (an error result of a tool other than a shell: a Read
 *   of a missing file, an Edit whose `old_string` was not found, an unknown tool).
 * The `keepRecent` most recent rounds are kept, and a round with text, thinking or context the
 * runner attached is never removed.
 *
 * Prompt caching: removing a round rewrites the prefix from there on, so new removals are made
 * only when this call rewrites the prefix anyway (with microcompact's batch: `rewriting`, when
 * the removals and the clearings together free its batch size) or when they free at least
 * `minFreedTokens` themselves; between, the view is the recorded one.
 */
import type { SnipOptions } from '../common/compaction';

export type { SnipOptions };

/** Read-only tools whose repeated call with the same result makes the earlier one redundant. */
export const SNIP_READ_ONLY_TOOLS: ReadonlySet<string> = new Set(['Read', 'Grep', 'Glob', 'WebFetch', 'WebSearch']);

/** Tools whose failed call may still have had an effect (never snipped as a failure). */
export const SNIP_EFFECTFUL_ON_ERROR: ReadonlySet<string> = new Set(['Bash', 'PowerShell', 'Agent', 'Task']);

/** Defaults of {@link SnipOptions}. */
export const SNIP_DEFAULTS = { keepRecent: 5, minFreedTokens: 60_000 } as const;

/** One call of a round and its result. */
export interface SnipCall {
  /** The call's tool_use id. */
  toolUseId: string;
  tool: string;
  /** The call's input, canonical JSON (same input, same text). */
  inputKey: string;
  /** The result is an error. */
  isError: boolean;
  /** A digest of the result's content (same result, same digest). */
  resultKey: string;
}

/** One round of the chain, oldest first. */
export interface SnipRound {
  /** Uuids of the round's lines (the assistant line, then its result lines). */
  uuids: string[];
  calls: SnipCall[];
  /** Only tool calls and their results, nothing attached: may be removed when stale. */
  removable: boolean;
  /** Estimated tokens of the round (characters / 4). */
  tokens: number;
}

/** What {@link planSnip} decided. */
export interface SnipPlan {
  /** Uuids of the lines this call removes from the view (empty when none), oldest first. */
  newlySnipped: string[];
  /** Rounds this call removes. */
  rounds: number;
  /** Estimated tokens the removals free. */
  freedTokens: number;
}

/**
 * Decides which stale rounds to remove from the view.
 * @param rounds the chain's rounds since the last compact boundary, oldest first, without those
 *   removed before
 * @param rewriting another stage rewrites the cached prefix in this call (removals cost no extra cache write)
 */
export function planSnip(rounds: readonly SnipRound[], rewriting: boolean, options: SnipOptions = {}): SnipPlan {
  const none: SnipPlan = { newlySnipped: [], rounds: 0, freedTokens: 0 };
  if (options.enabled === false) return none;
  const keepRecent = Math.max(1, options.keepRecent ?? SNIP_DEFAULTS.keepRecent);
  const minFreed = options.minFreedTokens ?? SNIP_DEFAULTS.minFreedTokens;
  const older = rounds.slice(0, Math.max(0, rounds.length - keepRecent));
  const stale = older.filter((round, i) => {
    if (!round.removable || round.calls.length === 0) return false;
    const later = rounds.slice(i + 1).flatMap((r) => r.calls);
    return round.calls.every(
      (c) =>
        (c.isError && !SNIP_EFFECTFUL_ON_ERROR.has(c.tool)) ||
        (!c.isError &&
          SNIP_READ_ONLY_TOOLS.has(c.tool) &&
          later.some((l) => l.tool === c.tool && l.inputKey === c.inputKey && l.resultKey === c.resultKey)),
    );
  });
  const freed = stale.reduce((n, r) => n + r.tokens, 0);
  if (stale.length === 0 || (!rewriting && freed < minFreed)) return none;
  return { newlySnipped: stale.flatMap((r) => r.uuids), rounds: stale.length, freedTokens: freed };
}
