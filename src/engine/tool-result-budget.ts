/**
 * Tool-result budget (the seeds' `applyToolResultBudget`, stage 2 of the context pipeline): a
 * bound on the characters of the tool results one API message carries, as Claude Code 2.1.328
 * enforces it (`Per-message budget`, 200,000 characters). Pure: the request builder asks it with
 * the chain's tool results grouped by message, and the results it picks are persisted and sent
 * as their `<persisted-output>` reference; the replacement is recorded on a line so that every
 * later request (a retry, a resume, a fork, another worker) sends the same view.
 *
 * As in Claude Code:
 * - results are grouped by the user message that carries them (the results after one assistant
 *   message);
 * - only a message not sent before is budgeted (its results are "fresh"); a result that was sent
 *   whole stays whole (rewriting it would break the prompt cache) and a recorded replacement is
 *   re-applied;
 * - when a fresh message's results exceed the budget, the largest are replaced first until the
 *   rest fits;
 * - results already by reference, results with images or documents, and the results of tools
 *   that opt out (`maxResultSizeChars` of Infinity, or `skipAggregateToolResultBudget`: Read,
 *   WebFetch) are neither replaced nor counted.
 */
import type { ToolResultBudgetOptions } from '../common/compaction';

export type { ToolResultBudgetOptions };

/** Characters of tool results one message may carry (Claude Code 2.1.328's per-message budget). */
export const PER_MESSAGE_TOOL_RESULT_CHARS = 200_000;

/**
 * Tools exempt from the budget, by our tool names: Claude Code's `Read` (`maxResultSizeChars`
 * Infinity: a Read is bounded by its own limits, and persisting it would make the model read a
 * file to read a file) and `WebFetch` (`skipAggregateToolResultBudget`).
 */
export const BUDGET_EXEMPT_TOOLS: ReadonlySet<string> = new Set(['Read', 'WebFetch']);

/** One tool result as the budget sees it. */
export interface BudgetedResult {
  toolUseId: string;
  /** Name of the tool that produced it. */
  tool: string;
  /** Characters of its text content. */
  chars: number;
  /** Already a `<persisted-output>` reference, or carries an image or document: never replaced. */
  fixed?: boolean;
}

/** The tool results of one user message, oldest message first. */
export interface BudgetedMessage {
  results: BudgetedResult[];
  /** The message was sent to the model before (an assistant line follows it on the chain). */
  sent: boolean;
}

/** What {@link planToolResultBudget} decided. */
export interface ToolResultBudgetPlan {
  /** Ids of the results replaced by this call, in message order, largest first within a message. */
  newlyReplaced: string[];
  /** Characters of the results replaced by this call (before replacement). */
  replacedChars: number;
  /** Messages over the budget that this call shrank. */
  messagesOverBudget: number;
}

/**
 * Picks the results to replace: in each fresh message whose results exceed the budget, the
 * largest first until the rest fits.
 * @param messages the chain's tool-result messages since the last compact boundary, oldest first
 * @param recorded ids already replaced by earlier calls (re-applied, not counted again)
 */
export function planToolResultBudget(
  messages: readonly BudgetedMessage[],
  recorded: ReadonlySet<string>,
  options: ToolResultBudgetOptions = {},
): ToolResultBudgetPlan {
  const plan: ToolResultBudgetPlan = { newlyReplaced: [], replacedChars: 0, messagesOverBudget: 0 };
  if (options.enabled === false) return plan;
  const budget = Math.max(0, options.perMessageChars ?? PER_MESSAGE_TOOL_RESULT_CHARS);
  const exempt = new Set([...BUDGET_EXEMPT_TOOLS, ...(options.exemptTools ?? [])]);
  for (const m of messages) {
    if (m.sent) continue;
    const counted = m.results.filter((r) => !r.fixed && !exempt.has(r.tool) && !recorded.has(r.toolUseId));
    let total = counted.reduce((n, r) => n + r.chars, 0);
    if (total <= budget) continue;
    const largestFirst = [...counted].sort((a, b) => b.chars - a.chars);
    for (const r of largestFirst) {
      if (total <= budget) break;
      plan.newlyReplaced.push(r.toolUseId);
      plan.replacedChars += r.chars;
      total -= r.chars;
    }
    plan.messagesOverBudget += 1;
  }
  return plan;
}
