/**
 * Recordings as runs of the differential harness, so that `compareRuns` (compare.ts) compares a
 * run of ours with the committed recording of the real CLI: both are normalised, so paths read
 * `<REPO>` and `<HOME>` on both sides.
 */
import type { Side, SideRun } from '../run';
import type { Recording } from './recording';

/**
 * Requests in conversation order: the main conversation's, then each other route's (by name),
 * each by step. Conversations that run at once (a subagent's first call and its parent's next
 * one) send in either order, in Claude Code too; so request `i` of one side is compared with the
 * same conversation's same step of the other, and the first tool_result sent for an id is the
 * same conversation's on both sides.
 */
function conversationOrder(requests: Recording['requests']): Recording['requests'] {
  const rank = (r: Recording['requests'][number]): string => (r.route === 'main' ? '' : r.route);
  return [...requests].sort((a, b) =>
    rank(a) !== rank(b) ? (rank(a) < rank(b) ? -1 : 1) : a.step - b.step || a.seq - b.seq,
  );
}

/** A recording as a {@link SideRun} (its requests in {@link conversationOrder}). */
export function asSideRun(rec: Recording, side: Side): SideRun {
  return {
    side,
    exitCode: rec.meta.exitCode,
    stdout: '',
    stderr: rec.meta.stderr,
    messages: rec.stream,
    strayLines: rec.meta.strayLines,
    requests: conversationOrder(rec.requests).map((r) => r.body),
    files: rec.meta.files,
    durationMs: rec.meta.durationMs,
    paths: { repo: '<REPO>', home: '<HOME>' },
  };
}
