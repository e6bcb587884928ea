/**
 * A turn as the Temporal Web UI shows it: local activities for short read-only steps, a summary
 * on every activity, static summary and details on the turn, current details, and the turn's own
 * `AgentStatus` so that an agent that failed is found as failed.
 */
import { resultOfFailure } from '../../src/common/agent-result';
import type { TurnOutcome } from '../../src/common/turn';
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

  test('turn: an agent that ends in an error result is listed as Failed (its turn and its session), the result still readable', async () => {
    env = await startRunnerEnv({
      responder: () => ({ content: [{ tool_use: { name: 'Glob', input: { pattern: '**/*.ts' } } }] }),
    });
    const engine = env.engine({ cwd: makeRepo({ 'x.ts': '' }) });
    const { result } = await env.runTurn(engine, 'loop', testTurnOptions({ limits: { maxTurns: 2 } }));
    expect(result).toMatchObject({ subtype: 'error_max_turns', num_turns: 2, is_error: true });
    const turnId = (await engine.state()).lastTurnWorkflowId ?? '';
    const d = await env.client.workflow.getHandle(turnId).describe();
    // The Web UI's list shows the workflow status: Failed, with the result's subtype and error.
    expect(d.status.name).toBe('FAILED');
    expect(d.typedSearchAttributes.get(SA.status)).toBe('error_max_turns');
    const failure = await env.client.workflow
      .getHandle(turnId)
      .result()
      .then(
        () => null,
        (e: unknown) => (e as { cause?: { type?: string; message?: string } }).cause,
      );
    expect(failure).toMatchObject({
      type: 'AgentResult.error_max_turns',
      message: expect.stringMatching(/^error_max_turns: Reached maximum number of turns \(2\)/),
    });
    // Whoever reads the turn's result gets the outcome from the failure (attach, batch, the session).
    const carried = resultOfFailure<TurnOutcome>(failure);
    expect(carried).toMatchObject({ subtype: 'error_max_turns', numTurns: 2 });
    const again = [];
    for await (const m of engine.follow({ turnWorkflowId: turnId, offset: 0 })) again.push(m);
    expect(again.at(-1)).toMatchObject({ type: 'result', subtype: 'error_max_turns', num_turns: 2 });
    expect((await engine.state()).turnCount).toBe(1);
    // Its session, ended after that turn, is Failed too.
    await engine.end();
    const session = env.client.workflow.getHandle(`agent-session-${engine.sessionId}`);
    const closed = await session.result().then(
      () => 'completed',
      (e: unknown) => (e as { cause?: { type?: string } }).cause?.type,
    );
    expect(closed).toBe('AgentResult.error_max_turns');
    expect((await session.describe()).status.name).toBe('FAILED');
    // The saved-view query of docs/architecture.md finds it.
    const failed: string[] = [];
    const query = `WorkflowType = 'turnWorkflow' AND AgentStatus != 'success' AND AgentStatus != 'running' AND AgentSessionId = '${engine.sessionId}'`;
    for (let i = 0; i < 50 && failed.length === 0; i++) {
      for await (const w of env.client.workflow.list({ query })) failed.push(w.workflowId);
      if (failed.length === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(failed).toEqual([turnId]);
  });

  test('turn: a successful turn and its session complete (Completed in the list)', async () => {
    env = await startRunnerEnv({ responder: () => ({ content: [{ text: 'fine' }] }) });
    const engine = env.engine({ cwd: makeRepo({}) });
    const { result } = await env.runTurn(engine, 'hello');
    expect(result).toMatchObject({ subtype: 'success', result: 'fine' });
    const turnId = (await engine.state()).lastTurnWorkflowId ?? '';
    expect((await env.client.workflow.getHandle(turnId).describe()).status.name).toBe('COMPLETED');
    await engine.end();
    const session = env.client.workflow.getHandle(`agent-session-${engine.sessionId}`);
    await session.result();
    expect((await session.describe()).status.name).toBe('COMPLETED');
  });
});
