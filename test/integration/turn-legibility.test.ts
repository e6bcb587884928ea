/**
 * A turn as the Temporal Web UI shows it: local activities for short read-only steps, a summary
 * on every activity, static summary and details on the turn, current details, and the turn's own
 * `AgentStatus` so that an agent that failed is found as failed.
 */
import { temporal } from '@temporalio/proto';
import { defaultPayloadConverter } from '@temporalio/common';
import { SA } from '../../src/common/search-attributes';
import { makeRepo, startRunnerEnv, testTurnOptions } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

const EventType = temporal.api.enums.v1.EventType;
type Event = temporal.api.history.v1.IHistoryEvent;

function summaryOf(e: Event): string | undefined {
  const p = e.userMetadata?.summary;
  return p ? (defaultPayloadConverter.fromPayload(p as never) as string) : undefined;
}

function activityType(e: Event): string | undefined {
  return e.activityTaskScheduledEventAttributes?.activityType?.name ?? undefined;
}

/** Local activity markers: their type and summary. */
function localActivities(events: Event[]): Array<{ type: string; summary: string | undefined }> {
  return events
    .filter((e) => e.eventType === EventType.EVENT_TYPE_MARKER_RECORDED)
    .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')
    .map((e) => {
      const data = e.markerRecordedEventAttributes?.details?.['data']?.payloads?.[0];
      const d = data
        ? (defaultPayloadConverter.fromPayload(data as never) as { activity_type?: string; activityType?: string })
        : {};
      return { type: String(d.activity_type ?? d.activityType ?? '?'), summary: summaryOf(e) };
    });
}

describe('turn legibility', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('turn: Read/Glob/Grep and transcript lines run as local activities; model calls and Bash are normal ones, each with a summary', async () => {
    env = await startRunnerEnv({
      scenario: {
        steps: [
          {
            content: [
              { tool_use: { name: 'Read', input: { file_path: '{{cwd}}/src/a.ts' } } },
              { tool_use: { name: 'Grep', input: { pattern: 'TODO', path: '{{cwd}}/src' } } },
            ],
          },
          { content: [{ tool_use: { name: 'Bash', input: { command: 'npm test --silent || true\necho more' } } }] },
          { content: [{ text: 'all read' }] },
        ],
      },
    });
    const engine = env.engine({ cwd: makeRepo({ 'src/a.ts': 'export const a = 1; // TODO\n' }) });
    const { result } = await env.runTurn(engine, 'look at the code\nand the rest of the prompt', testTurnOptions());
    expect(result).toMatchObject({ subtype: 'success', result: 'all read' });

    const turnId = (await engine.state()).lastTurnWorkflowId ?? '';
    const handle = env.client.workflow.getHandle(turnId);
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = events
      .filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
      .map((e) => ({ type: activityType(e), summary: summaryOf(e) }));
    expect(scheduled).toEqual([
      { type: 'prepareWorkspace', summary: 'prepare the workspace' },
      { type: 'loadContext', summary: 'load the session context (memory files, git status)' },
      { type: 'callModel', summary: 'model call 1' },
      { type: 'callModel', summary: 'model call 2' },
      { type: 'runTool', summary: 'Bash: npm test --silent || true' },
      { type: 'callModel', summary: 'model call 3' },
    ]);
    const local = localActivities(events);
    expect(local).toEqual(
      expect.arrayContaining([
        { type: 'recordPrompt', summary: 'transcript: prompt' },
        { type: 'runTool', summary: 'Read src/a.ts' },
        { type: 'runTool', summary: 'Grep "TODO" in src' },
      ]),
    );

    const d = await handle.describe();
    expect(await d.staticSummary()).toBe('turn 1: look at the code');
    expect(await d.staticDetails()).toContain(`**session** \`${engine.sessionId}\``);
    expect(d.typedSearchAttributes.get(SA.status)).toBe('success');
    expect(d.typedSearchAttributes.get(SA.sessionId)).toBe(engine.sessionId);
  });

  test('turn: an agent that ends in an error result is found as failed (AgentStatus) while its workflow completes', async () => {
    env = await startRunnerEnv({
      responder: () => ({ content: [{ tool_use: { name: 'Glob', input: { pattern: '**/*.ts' } } }] }),
    });
    const engine = env.engine({ cwd: makeRepo({ 'x.ts': '' }) });
    const { result } = await env.runTurn(engine, 'loop', testTurnOptions({ limits: { maxTurns: 2 } }));
    expect(result.subtype).toBe('error_max_turns');
    const turnId = (await engine.state()).lastTurnWorkflowId ?? '';
    const d = await env.client.workflow.getHandle(turnId).describe();
    expect(d.status.name).toBe('COMPLETED');
    expect(d.typedSearchAttributes.get(SA.status)).toBe('error_max_turns');
    // The saved-view query of docs/architecture.md finds it.
    const failed: string[] = [];
    const query = `WorkflowType = 'turnWorkflow' AND AgentStatus != 'success' AND AgentStatus != 'running' AND AgentSessionId = '${engine.sessionId}'`;
    for (let i = 0; i < 50 && failed.length === 0; i++) {
      for await (const w of env.client.workflow.list({ query })) failed.push(w.workflowId);
      if (failed.length === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(failed).toEqual([turnId]);
  });
});
