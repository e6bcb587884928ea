import { shellNotificationBlocks } from '../../../../src/activities/background/notification';
import { NOTIFICATION_HEAD } from '../../../../src/activities/agents/texts';
import type { TaskFinishedMessage, TaskRecord } from '../../../../src/common/tasks';

const record: TaskRecord = {
  kind: 'shell',
  taskId: 'b12345678',
  runId: 'r1',
  run: 1,
  status: 'running',
  owner: 'session',
  description: 'ready flag',
  toolUseId: 'toolu_1',
  startedBy: 'turn-1',
  startedAtMs: 0,
  workflowId: 'w',
  refs: { outputFile: '/tmp/t/b12345678.output' },
  shell: { command: 'until x; do sleep 1; done', timeoutMs: 2000, monitor: true },
};

function finished(over: Partial<TaskFinishedMessage>): TaskFinishedMessage {
  return {
    taskId: 'b12345678',
    runId: 'r1',
    status: 'completed',
    endedAtMs: 1,
    usage: { totalTokens: 0, toolUses: 0, durationMs: 1, costUsd: 0 },
    modelUsage: {},
    refs: { outputFile: '/tmp/t/b12345678.output' },
    ...over,
  };
}

const frame = (lines: string[]): string =>
  `${NOTIFICATION_HEAD}<task-notification>\n${lines.join('\n')}\n</task-notification>\n</system-reminder>`;
const head = [
  '<task-id>b12345678</task-id>',
  '<tool-use-id>toolu_1</tool-use-id>',
  '<output-file>/tmp/t/b12345678.output</output-file>',
];

describe("a monitor's end notification (2.1.328's)", () => {
  test('exit 0 with output, exit 0 without, another exit', () => {
    const end = (code: number, hadOutput: boolean) =>
      shellNotificationBlocks(
        record,
        finished({
          status: code === 0 ? 'completed' : 'failed',
          shellEnd: { kind: 'exited', exitCode: code },
          monitor: { events: hadOutput ? 1 : 0, wroteStderr: false, hadOutput },
        }),
      );
    expect(end(0, true)).toEqual([
      frame([...head, '<status>completed</status>', '<summary>Monitor "ready flag" stream ended</summary>']),
    ]);
    expect(end(0, false)).toEqual([
      frame([
        ...head,
        '<status>completed</status>',
        '<summary>Monitor "ready flag" ended without producing output (exit 0)</summary>',
      ]),
    ]);
    expect(end(3, true)).toEqual([
      frame([...head, '<status>failed</status>', '<summary>Monitor "ready flag" script failed (exit 3)</summary>']),
    ]);
  });

  test('expiry: one event, with the stderr hint when the command wrote to stderr, or the event count', () => {
    const expired = (events: number, wroteStderr: boolean) =>
      shellNotificationBlocks(
        record,
        finished({
          status: 'killed',
          killedBy: 'system',
          shellEnd: { kind: 'timeout' },
          monitor: { events, wroteStderr, hadOutput: events > 0 },
        }),
      );
    const event = (e: string) =>
      frame(['<task-id>b12345678</task-id>', '<summary>Monitor event: "ready flag"</summary>', `<event>${e}</event>`]);
    expect(expired(0, true)).toEqual([
      event(
        "[Monitor expired after 2s with no events delivered. Its command wrote to stderr, which isn't delivered as events and may mean it failed: see `/tmp/t/b12345678.output`. Re-arm it if you still need the watch — and widen the filter if silence was unexpected.]",
      ),
    ]);
    expect(expired(1, false)).toEqual([
      event('[Monitor expired after 2s with 1 event delivered. Re-arm it if you still need the watch.]'),
    ]);
  });

  test('a lost monitor is told as a lost background command (failed, not re-run)', () => {
    const [text] = shellNotificationBlocks(
      record,
      finished({ status: 'failed', shellEnd: { kind: 'lost', reason: 'its worker stopped' } }),
    );
    expect(text).toContain('<status>failed</status>');
    expect(text).toContain('has an unknown outcome: its worker stopped');
  });
});
