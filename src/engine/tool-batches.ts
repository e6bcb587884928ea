import type { ToolUseSummary } from '../common/tools';
import { READ_ONLY_TOOLS } from '../common/tools';

/**
 * Splits the tool calls of one assistant message into batches that run one after another:
 * consecutive read-only calls share a batch (run in parallel); every other call is a batch of
 * its own (run alone). Order is preserved.
 */
export function partitionToolUses(
  uses: readonly ToolUseSummary[],
  isReadOnly: (name: string) => boolean = (n) => READ_ONLY_TOOLS.has(n),
): ToolUseSummary[][] {
  const batches: ToolUseSummary[][] = [];
  for (const use of uses) {
    const last = batches[batches.length - 1];
    const lastFirst = last?.[0];
    if (last && lastFirst && isReadOnly(use.name) && isReadOnly(lastFirst.name)) last.push(use);
    else batches.push([use]);
  }
  return batches;
}
