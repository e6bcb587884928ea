/**
 * Every patch of the workflow code, in one table. A patch is a change of what a workflow does
 * that a workflow already running (or a closed one whose history is replayed to answer a query)
 * must not see: the code asks {@link isPatched}, which records a marker the first time a run
 * reaches that point, and takes the old branch when it replays a history without the marker.
 * Every `patched()` call goes through this module (lint refuses `patched` and `deprecatePatch`
 * elsewhere in src/workflows, src/engine and src/common).
 *
 * Each patch names the stored history (test/fixtures/histories) whose replay takes its old
 * branch; test/unit/workflows/patches.test.ts checks that the fixture exists, lacks the marker
 * and reaches the patched code, and test/integration/replay.test.ts replays every fixture.
 *
 * **Retiring a patch** (Temporal's order): once no open run and no run inside the namespace's
 * retention (queries replay closed workflows) can lack the marker, the call becomes
 * {@link deprecated} (the marker is still written, the old branch is deleted) for one release;
 * then the call and its row go. A run lacks the marker only if it started before the patch:
 * continue-as-new starts a fresh history, and a session run lasts at most 100 turns or its idle
 * timeout (15 min by default), a turn run at most 200 model calls (`maxStepsPerRun`) or its longest
 * approval wait.
 */
import { deprecatePatch, patched } from '@temporalio/workflow';

/** One patch of the workflow code. */
export interface Patch {
  /** The marker id recorded in history. Never changed: histories hold it. */
  readonly id: string;
  /** The commit (and its date) that introduced the patch. */
  readonly since: string;
  /** What a workflow without the marker does: the branch kept for old histories. */
  readonly before: string;
  /** The stored history (test/fixtures/histories) whose replay takes the old branch. */
  readonly fixture: string;
  /** When the old branch may be deprecated. */
  readonly deprecateWhen: string;
}

/**
 * Every patch, by the name the code uses. Runs started before the commit in `since` lack the
 * marker; so does a history written by a worker still running older workflow code while newer
 * workers ran the rest of the workflow (a rolling upgrade), which is how two of the fixtures were
 * recorded (their `before` says so).
 */
export const PATCHES = {
  waitForCancelledTools: {
    id: 'wait-for-cancelled-tools',
    since: '4df65c4 (2026-11-30)',
    before:
      'A cancelled tool run is not waited for (`ActivityCancellationType.TRY_CANCEL`): the turn writes the interrupt note at once, while the command may still run.',
    fixture: 'before-wait-for-cancelled-tools-v1.history.bin',
    deprecateWhen: 'No turn run started before 4df65c4 is open or inside retention.',
  },
  sessionContext: {
    id: 'session-context',
    since: 'ffe6f40 (2026-11-30)',
    before: "A new session's first turn loads no session context (no `loadContext` step, no context line).",
    fixture: 'turn-v1.history.bin',
    deprecateWhen: 'No first turn started before ffe6f40 is open or inside retention.',
  },
  workspace: {
    id: 'workspace-follows-turn-v1',
    since: '9bfccf6 (2026-11-30)',
    before:
      'The turn does not follow its workspace: no `prepareWorkspace`, tools run on the shared task queue, no snapshots.',
    fixture: 'turn-v1.history.bin',
    deprecateWhen: 'No turn run started before 9bfccf6 is open or inside retention.',
  },
  localActivities: {
    id: 'local-activities',
    since: '78d6321 (2026-11-30)',
    before: 'Read, Glob, Grep and transcript lines (the prompt included) run as normal activities, not local ones.',
    fixture: 'turn-v1.history.bin',
    deprecateWhen: 'No turn run started before 78d6321 is open or inside retention.',
  },
  turnMetadata: {
    id: 'turn-metadata',
    since: '78d6321 (2026-11-30)',
    before:
      'The session starts its turns without a static summary, details or search attributes (`AgentSessionId`, `AgentStatus`, batch and task).',
    fixture: 'session-v1.history.bin',
    deprecateWhen: 'No session run started before 78d6321 is open or inside retention.',
  },
  turnStatusAttributes: {
    id: 'turn-status-attributes',
    since: '78d6321 (2026-11-30)',
    before:
      "A finished turn does not set its own `AgentStatus` and `AgentCostUsd`. Reached only by a turn that has the search attributes yet ran code from before 78d6321 (both came with 78d6321: a rolling upgrade); the fixture was recorded so, with 78d6321's session and the turn's code of 78d6321^.",
    fixture: 'before-turn-status-attributes-v1.history.bin',
    deprecateWhen:
      'Now, unless a rolling upgrade from before 78d6321 is still under way: no single version writes such a history.',
  },
  noRepeatedAutoCompact: {
    id: 'no-repeated-auto-compact',
    since: 'df91f44 (2026-11-30)',
    before:
      'A compaction that left the context past the threshold is repeated before every later call (proactive compaction does not stop for the turn).',
    fixture: 'before-no-repeated-auto-compact-v1.history.bin',
    deprecateWhen: 'No turn run started before df91f44 is open or inside retention.',
  },
  parallelSessionSetup: {
    id: 'parallel-session-setup',
    since: '0bbcf30 (2026-11-30)',
    before: "A new session's first turn prepares its workspace, then loads its context (one after the other).",
    fixture: 'turn-sequential-setup-v2.history.bin',
    deprecateWhen: 'No first turn started before 0bbcf30 is open or inside retention.',
  },
  toolFaultResults: {
    id: 'tool-fault-results',
    since: 'a191d5a (2026-12-01)',
    before:
      "A tool run that failed with `Tool.Fault` fails the turn as a workflow instead of becoming the call's is_error result. Reached only when the activity (which throws `Tool.Fault` from a191d5a on) is newer than the turn's code; the fixture was recorded so, with a191d5a's activities and the workflows of a191d5a^.",
    fixture: 'before-tool-fault-results-v1.history.bin',
    deprecateWhen:
      'Now, unless a rolling upgrade from before a191d5a is still under way: no single version writes such a history.',
  },
  failedTurnTotals: {
    id: 'failed-turn-totals',
    since: '5387aa7 (2026-12-01)',
    before:
      "After a turn that failed as a workflow, the session keeps its own totals (only the leaf is re-read from the store): the failed turn's spend is not counted.",
    fixture: 'before-failed-turn-totals-v1.history.bin',
    deprecateWhen: 'No session run started before 5387aa7 is open or inside retention.',
  },
  hookPrecedence: {
    id: 'hook-precedence',
    since: '67e51c8 (2026-12-01)',
    before:
      "A PreToolUse hook's verdict replaces the rules: its `allow` skips the activity's checks (deny and ask rules and safety checks included), its `ask` is a denial.",
    fixture: 'before-hook-precedence-v1.history.bin',
    deprecateWhen: 'No turn run started before 67e51c8 is open or inside retention.',
  },
  poolAckBeforeTools: {
    id: 'pool-ack-before-tools',
    since: '5fc43fd (2026-12-01)',
    before:
      'A budget-pool member runs the tools of a call before the pool has counted that call: the tools of the call that exhausted the pool run (the member stops only before its next model call).',
    fixture: 'before-pool-ack-before-tools-v1.history.bin',
    deprecateWhen: 'No turn run started before 5fc43fd is open or inside retention.',
  },
  errorResultFailsTurn: {
    id: 'error-result-fails-workflow',
    since: '60181ff (2026-12-01)',
    before:
      'A turn that ends in an error result (a limit, an API error, an interrupt) completes as a workflow, its outcome the result: the Web UI lists it as Completed.',
    fixture: 'before-wait-for-cancelled-tools-v1.history.bin',
    deprecateWhen: 'No turn run started before 60181ff is open or inside retention.',
  },
  errorResultFailsSession: {
    id: 'error-result-fails-session',
    since: '60181ff (2026-12-01)',
    before:
      'A session whose last turn ended in an error result (or failed as a workflow) completes as a workflow: the Web UI lists it as Completed.',
    fixture: 'before-failed-turn-totals-v1.history.bin',
    deprecateWhen: 'No session run started before 60181ff is open or inside retention.',
  },
  hookMatchers: {
    id: 'hook-matchers',
    since: '046268c (2026-12-01)',
    before:
      'Hook matchers apply to PreToolUse and PostToolUse only, as exact `|` lists or anchored regexes: comma lists and unanchored searches select nothing, and SessionStart and PreCompact hooks run whatever their matcher.',
    fixture: 'before-hook-matchers-v1.history.bin',
    deprecateWhen: 'No turn run started before 046268c is open or inside retention.',
  },
  stopHookBlockCap: {
    id: 'stop-hook-block-cap',
    since: '046268c (2026-12-01)',
    before:
      'After the legacy number of Stop-hook blocks in a row the Stop hooks no longer run and the turn ends with the last answer (no block cap of 8, no override warning, `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP` not read).',
    fixture: 'before-hook-matchers-v1.history.bin',
    deprecateWhen: 'No turn run started before 046268c is open or inside retention.',
  },
  hookStopsSucceed: {
    id: 'hook-stops-succeed',
    since: 'f635f27 (2026-12-01)',
    before:
      "A hook's own stop (`continue: false`, a UserPromptSubmit block) ends the turn with an `error_during_execution` result (`hook_stopped`), the blocked prompt stays in the conversation, and SessionStart's `continue: false` stops the turn.",
    fixture: 'before-hook-matchers-v1.history.bin',
    deprecateWhen: 'No turn run started before f635f27 is open or inside retention.',
  },
  refusalNoted: {
    id: 'refusal-noted',
    since: 'a9c55c6 (2026-12-01)',
    before:
      'A response with `stop_reason: "refusal"` ends the turn at once with an error result; the model is not told of the refusal and is not called again.',
    fixture: 'before-refusal-noted-v1.history.bin',
    deprecateWhen: 'No turn run started before a9c55c6 is open or inside retention.',
  },
} as const satisfies Record<string, Patch>;

/** The name of a patch in {@link PATCHES}. */
export type PatchName = keyof typeof PATCHES;

/**
 * True when this run takes the patched code at this point: always for a run that reaches it
 * live (the marker is recorded), and on replay only when the history has the marker.
 */
export function isPatched(name: PatchName): boolean {
  return patched(PATCHES[name].id);
}

/**
 * The second stage of retiring a patch: the marker is still recorded, and a replayed history
 * may or may not have it; the old branch is gone. Call it where {@link isPatched} was, for one
 * release, before the call and the row are removed.
 */
export function deprecated(name: PatchName): void {
  deprecatePatch(PATCHES[name].id);
}
