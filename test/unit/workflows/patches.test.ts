/**
 * The patch table (src/workflows/patches.ts) is complete and each row's fixture takes its old
 * branch: the stored history exists, has no marker of the patch, and reaches the patched code.
 * (test/integration/replay.test.ts replays every fixture on the current code.)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { PATCHES } from '../../../src/workflows/patches';
import type { PatchName } from '../../../src/workflows/patches';
import { HISTORY_FIXTURES, readHistoryFixture } from '../../helpers/history-fixtures';

type History = temporal.api.history.v1.History;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const EventType = temporal.api.enums.v1.EventType;

/** Patch ids of the markers a history holds. */
function markerIds(h: History): string[] {
  return h.events.flatMap((e) => {
    const payloads = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads ?? [];
    return payloads.map((p) => (defaultPayloadConverter.fromPayload(p) as { id: string }).id);
  });
}

function workflowType(h: History): string {
  return h.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';
}

/** The workflow's input (its first argument). */
function input(h: History): Record<string, unknown> {
  const p = h.events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return p ? (defaultPayloadConverter.fromPayload(p) as Record<string, unknown>) : {};
}

function scheduled(h: History, activity: string): HistoryEvent[] {
  return h.events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activity);
}

/** The input (first argument) of a scheduled activity. */
function activityInput<T>(e: HistoryEvent): Partial<T> {
  const p = e.activityTaskScheduledEventAttributes?.input?.payloads?.[0];
  return p ? (defaultPayloadConverter.fromPayload(p) as Partial<T>) : {};
}

/** Tool calls a PreToolUse hook ran for and that then went to `runTool` (the hook did not stop the turn). */
function hookedToolRuns(h: History): string[] {
  const hooked = new Set(
    scheduled(h, 'runHooks').flatMap((e) => {
      const i = activityInput<{ event: string; tool: { toolUseId: string } }>(e);
      return i.event === 'PreToolUse' && i.tool ? [i.tool.toolUseId] : [];
    }),
  );
  return scheduled(h, 'runTool').flatMap((e) => {
    const id = activityInput<{ toolUseId: string }>(e).toolUseId;
    return id !== undefined && hooked.has(id) ? [id] : [];
  });
}

function has(h: History, type: temporal.api.enums.v1.EventType): boolean {
  return h.events.some((e) => e.eventType === type);
}

/** A turn's first run (not continued as new). */
function firstTurnRun(h: History): boolean {
  return workflowType(h) === 'turnWorkflow' && input(h)['carry'] === undefined;
}

/** The events of the `runHooks` activities a history scheduled. */
function hookEvents(h: History): string[] {
  return scheduled(h, 'runHooks').map((e) => activityInput<{ event: string }>(e).event ?? '');
}

/** The `stop_reason` of each completed `callModel` activity. */
function modelStopReasons(h: History): string[] {
  const calls = new Set(scheduled(h, 'callModel').map((e) => String(e.eventId)));
  return h.events.flatMap((e) => {
    const done = e.activityTaskCompletedEventAttributes;
    const p = done?.result?.payloads?.[0];
    if (!done || !p || !calls.has(String(done.scheduledEventId))) return [];
    return [String((defaultPayloadConverter.fromPayload(p) as { stopReason?: unknown }).stopReason)];
  });
}

/** What shows that a fixture's replay reaches the point where the code asks for the patch. */
const REACHES: Record<PatchName, (h: History) => boolean> = {
  waitForCancelledTools: (h) =>
    workflowType(h) === 'turnWorkflow' && has(h, EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED),
  sessionContext: (h) => firstTurnRun(h) && input(h)['parentUuid'] === null,
  workspace: firstTurnRun,
  localActivities: (h) =>
    scheduled(h, 'runTool').some((e) => {
      const toolName = activityInput<{ toolName: string }>(e).toolName;
      return toolName === 'Read' || toolName === 'Glob' || toolName === 'Grep';
    }),
  turnMetadata: (h) =>
    workflowType(h) === 'sessionWorkflow' && has(h, EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED),
  turnStatusAttributes: (h) =>
    workflowType(h) === 'turnWorkflow' &&
    has(h, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED) &&
    h.events[0]?.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields?.['AgentSessionId'] !==
      undefined,
  noRepeatedAutoCompact: (h) => scheduled(h, 'compactContext').length >= 2,
  parallelSessionSetup: (h) =>
    firstTurnRun(h) && input(h)['parentUuid'] === null && markerIds(h).includes(PATCHES.workspace.id),
  toolFaultResults: (h) =>
    h.events.some((e) => e.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type === 'Tool.Fault'),
  // The verdict is weighed after the call's PreToolUse hooks ran and before its `runTool`.
  hookPrecedence: (h) => workflowType(h) === 'turnWorkflow' && hookedToolRuns(h).length > 0,
  poolAckBeforeTools: (h) =>
    workflowType(h) === 'turnWorkflow' &&
    typeof (input(h)['options'] as { budgetPoolId?: unknown } | undefined)?.budgetPoolId === 'string' &&
    scheduled(h, 'runTool').length > 0,
  errorResultFailsTurn: (h) => {
    const done = h.events.at(-1)?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
    return (
      workflowType(h) === 'turnWorkflow' &&
      done !== undefined &&
      (defaultPayloadConverter.fromPayload(done) as { isError?: boolean }).isError === true
    );
  },
  errorResultFailsSession: (h) => {
    // A session that completed after its last turn failed as a workflow (or ended in an error).
    const ends = h.events.filter(
      (e) =>
        e.eventType === EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED ||
        e.eventType === EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED ||
        e.eventType === EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED,
    );
    const last = ends.at(-1);
    const result = last?.childWorkflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
    const failed =
      last !== undefined &&
      (last.eventType !== EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED ||
        (result !== undefined &&
          (defaultPayloadConverter.fromPayload(result) as { isError?: boolean }).isError === true));
    return workflowType(h) === 'sessionWorkflow' && failed && has(h, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
  },
  // Asked wherever a turn with hooks for an event decides whether they apply.
  hookMatchers: (h) => workflowType(h) === 'turnWorkflow' && hookEvents(h).includes('PreToolUse'),
  // Asked before a Stop hook runs (the cap) and when UserPromptSubmit hooks apply.
  stopHookBlockCap: (h) => workflowType(h) === 'turnWorkflow' && hookEvents(h).includes('Stop'),
  hookStopsSucceed: (h) => workflowType(h) === 'turnWorkflow' && hookEvents(h).includes('UserPromptSubmit'),
  // Asked after a response whose stop_reason is refusal.
  refusalNoted: (h) => workflowType(h) === 'turnWorkflow' && modelStopReasons(h).includes('refusal'),
  failedTurnTotals: (h) =>
    workflowType(h) === 'sessionWorkflow' &&
    (has(h, EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED) ||
      has(h, EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED)),
};

/** Every `isPatched('…')` name used in the workflow code. */
function usedPatchNames(): Set<string> {
  const dir = join(__dirname, '..', '..', '..', 'src', 'workflows');
  const names = new Set<string>();
  for (const f of readdirSync(dir)) {
    if (!f.endsWith('.ts') || f === 'patches.ts') continue;
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/isPatched\('(\w+)'\)/g)) names.add(m[1] ?? '');
  }
  return names;
}

const rows = Object.entries(PATCHES) as Array<[PatchName, (typeof PATCHES)[PatchName]]>;

describe('patches', () => {
  test('patches: ids are unique, and every row is asked for by the workflow code (no stale row)', () => {
    const ids = rows.map(([, p]) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...usedPatchNames()].sort()).toEqual(rows.map(([name]) => name).sort());
  });

  test.each(rows)('patches: %s has since, old behaviour and a deprecation rule', (_name, p) => {
    expect(p.since).toMatch(/^[0-9a-f]{7} \(\d{4}-\d{2}-\d{2}\)$/);
    expect(p.before.length).toBeGreaterThan(20);
    expect(p.deprecateWhen.length).toBeGreaterThan(5);
  });

  test.each(rows)("patches: %s's fixture exists, lacks its marker, and reaches the patched code", (name, p) => {
    expect(existsSync(join(HISTORY_FIXTURES, p.fixture))).toBe(true);
    const h = readHistoryFixture(p.fixture);
    expect(markerIds(h)).not.toContain(p.id);
    expect(REACHES[name](h)).toBe(true);
  });

  test('patches: the histories recorded with the current code hold every marker their workflow type can write', () => {
    // Guards REACHES itself: the same predicates on today's histories see the marker.
    const session = readHistoryFixture('session-steered-v1.history.bin');
    expect(markerIds(session)).toEqual(expect.arrayContaining([PATCHES.turnMetadata.id, PATCHES.failedTurnTotals.id]));
    const turn = readHistoryFixture('turn-v2.history.bin');
    expect(markerIds(turn)).toEqual(
      expect.arrayContaining([
        PATCHES.workspace.id,
        PATCHES.sessionContext.id,
        PATCHES.parallelSessionSetup.id,
        PATCHES.localActivities.id,
        PATCHES.turnStatusAttributes.id,
        PATCHES.waitForCancelledTools.id,
      ]),
    );
  });
});
