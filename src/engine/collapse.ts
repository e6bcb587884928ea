/**
 * Context collapse (the seeds' `applyCollapsesIfNeeded`, stage 5 of the context pipeline): a
 * projection of the history in which runs of old rounds whose results microcompact already
 * cleared are folded into one digest. Pure: the request builder asks it with the chain's rounds,
 * and each collapse is recorded on a `collapse_boundary` line (a commit log the view replays), so
 * every later request (a retry, a resume, a fork, another worker) sends the same view; the full
 * history stays in the store.
 *
 * A round (snip's: one assistant line made only of tool calls, and its result lines) is
 * collapsible when it is older than the `keepRecent` most recent rounds, carries nothing else
 * (`removable`) and every one of its results was cleared. A maximal run of at least 2 adjacent
 * collapsible rounds (nothing the request sends between them) collapses: every round of the run
 * but the last leaves the view, and the last keeps its lines with a digest appended to its result
 * line, naming the calls left out. A placeholder result says nothing, so the calls are what the
 * model keeps of those rounds.
 *
 * Prompt caching: a collapse rewrites the prefix from its first round on, so new collapses are
 * made only in a call whose microcompact made a new batch (which rewrites the prefix anyway).
 */
import type { CollapseOptions } from '../common/compaction';
import { estimateTokens } from './microcompact';
import type { SnipCall, SnipRound } from './snip';

export type { CollapseOptions };

/** Defaults of {@link CollapseOptions}. */
export const COLLAPSE_DEFAULTS = { keepRecent: 5 } as const;

/** Characters of one call's label in a digest (longer labels are cut, ending in `…`). */
export const COLLAPSE_LABEL_CHARS = 100;

/** One round of the chain as collapse sees it (oldest first). */
export interface CollapseRound extends SnipRound {
  /** Nothing the request sends lies between the previous round and this one. */
  adjacent: boolean;
  /** Labels of the calls an earlier collapse folded into this round's digest, oldest first. */
  folded: string[];
  /** Estimated tokens of that digest (0 when none): a new collapse of the round replaces it. */
  foldedTokens: number;
}

/** One collapse: the rounds it leaves out and the digest on the round kept. */
export interface Collapse {
  /** Uuids of the lines left out of the view (every round of the run but the last). */
  collapsedUuids: string[];
  /** The last result line of the run's last round, which carries the digest. */
  targetUuid: string;
  /** Labels of the calls left out (with those earlier collapses folded into them), oldest first. */
  calls: string[];
  /** The digest's text ({@link collapseDigestText}). */
  text: string;
  /** Rounds of the run (the one kept included). */
  rounds: number;
  /** Estimated tokens freed: the rounds left out and the digests replaced, less the new digest. */
  freedTokens: number;
}

/** What {@link planCollapse} decided. */
export interface CollapsePlan {
  collapses: Collapse[];
  /** Rounds left out of the view in all. */
  rounds: number;
  freedTokens: number;
}

/** The input field that says what a call did, by the tools' conventions. */
const MAIN_INPUT_FIELDS = ['file_path', 'command', 'pattern', 'url', 'query', 'path'] as const;

/**
 * A call as a digest names it: `Tool(main input)` (the file, command, pattern or url, else the
 * input as compact JSON), cut to {@link COLLAPSE_LABEL_CHARS} characters.
 * @param inputKey the call's input as JSON (snip's `inputKey`)
 */
export function collapseCallLabel(tool: string, inputKey: string): string {
  let input: unknown;
  try {
    input = JSON.parse(inputKey);
  } catch {
    input = inputKey;
  }
  const fields = input !== null && typeof input === 'object' ? (input as Record<string, unknown>) : {};
  const main = MAIN_INPUT_FIELDS.map((f) => fields[f]).find((v) => typeof v === 'string');
  const label = `${tool}(${typeof main === 'string' ? main : JSON.stringify(input ?? {})})`;
  return label.length <= COLLAPSE_LABEL_CHARS ? label : `${label.slice(0, COLLAPSE_LABEL_CHARS - 1)}…`;
}

/** The digest appended to a collapse's kept round (after its tool_result blocks). */
export function collapseDigestText(calls: readonly string[]): string {
  const n = calls.length;
  return (
    `<system-reminder>\nBefore the tool call above, you made ${n} more tool call${n === 1 ? '' : 's'}, ` +
    `collapsed here (their results were cleared): ${calls.join(', ')}\n</system-reminder>`
  );
}

/**
 * Decides which runs of rounds to collapse.
 * @param rounds the chain's rounds since the last compact boundary, oldest first, without those
 *   collapsed before (a round that carries an earlier digest lists its calls in `folded`)
 * @param cleared tool_use ids whose results the request sends as microcompact's placeholder
 */
export function planCollapse(
  rounds: readonly CollapseRound[],
  cleared: ReadonlySet<string>,
  options: CollapseOptions = {},
): CollapsePlan {
  const collapses: Collapse[] = [];
  if (options.enabled === false) return { collapses, rounds: 0, freedTokens: 0 };
  const keepRecent = Math.max(1, options.keepRecent ?? COLLAPSE_DEFAULTS.keepRecent);
  const older = rounds.slice(0, Math.max(0, rounds.length - keepRecent));
  let run: CollapseRound[] = [];
  const flush = (): void => {
    if (run.length >= 2) collapses.push(collapseOf(run));
    run = [];
  };
  for (const r of older) {
    const collapsible = r.removable && r.calls.length > 0 && r.calls.every((c) => cleared.has(c.toolUseId));
    if (!collapsible || !r.adjacent) flush();
    if (collapsible) run.push(r);
  }
  flush();
  return {
    collapses,
    rounds: collapses.reduce((n, c) => n + c.rounds - 1, 0),
    freedTokens: collapses.reduce((n, c) => n + c.freedTokens, 0),
  };
}

function collapseOf(run: readonly CollapseRound[]): Collapse {
  const kept = run[run.length - 1]!;
  const dropped = run.slice(0, -1);
  const label = (c: SnipCall): string => collapseCallLabel(c.tool, c.inputKey);
  const calls = [...dropped.flatMap((r) => [...r.folded, ...r.calls.map(label)]), ...kept.folded];
  const text = collapseDigestText(calls);
  const freed =
    dropped.reduce((n, r) => n + r.tokens + r.foldedTokens, 0) + kept.foldedTokens - estimateTokens(text.length);
  return {
    collapsedUuids: dropped.flatMap((r) => r.uuids),
    targetUuid: kept.uuids[kept.uuids.length - 1]!,
    calls,
    text,
    rounds: run.length,
    freedTokens: Math.max(0, freed),
  };
}
