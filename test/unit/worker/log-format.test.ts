import { ApplicationFailure } from '@temporalio/common';
import { formatLogEntry } from '../../../src/worker/log-format';

describe('worker log lines', () => {
  test('log: a failed activity is one readable line with its type, attempt, workflow, time and error, not JSON', () => {
    const error = ApplicationFailure.create({ message: 'rate limited\nmore detail', type: 'ModelError.RateLimit' });
    const line = formatLogEntry('Activity failed', {
      sdkComponent: 'worker',
      taskToken: 'CiQwMWEy',
      activityType: 'callModel',
      activityId: '7',
      attempt: 2,
      workflowId: 'agent-session-s-turn-1',
      workflowRunId: 'r',
      namespace: 'default',
      taskQueue: 'q',
      isLocal: false,
      durationMs: 1234,
      error,
    });
    expect(line).toBe(
      'activity callModel failed (attempt 2, agent-session-s-turn-1, 1.2 s): ModelError.RateLimit: rate limited',
    );
    expect(line).not.toMatch(/[{}]/);
  });

  test('log: other entries are message plus key=value pairs, quoted only when needed, kept short', () => {
    expect(
      formatLogEntry('Worker state changed', { sdkComponent: 'worker', taskQueue: 'agent-runner', state: 'RUNNING' }),
    ).toBe('Worker state changed taskQueue=agent-runner state=RUNNING');
    expect(formatLogEntry('x', { note: 'two words', n: 3, err: new Error('boom') })).toBe(
      'x note="two words" n=3 err="Error: boom"',
    );
    expect(formatLogEntry('big', { blob: 'y'.repeat(5000) }).length).toBeLessThanOrEqual(400);
  });
});
