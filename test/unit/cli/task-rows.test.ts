import { taskRows } from '../../../src/cli/task-rows';
import type { TaskRecord } from '../../../src/common/tasks';

const base = { run: 1, owner: 'session' as const, toolUseId: 'toolu_1', startedBy: 'turn-1', refs: {} };

describe('status: the rows of running tasks', () => {
  test('taskRows: a pending wake-up with its due time, a background command with its age and limit, a cron job with its next fire, an agent; finished tasks left out', () => {
    const now = Date.UTC(2026, 11, 2, 0, 0, 0);
    const tasks: TaskRecord[] = [
      {
        ...base,
        kind: 'wakeup',
        taskId: 'wakeup',
        runId: 'r1',
        status: 'running',
        description: 'watching CI run',
        startedAtMs: now - 10_000,
        workflowId: '',
        wakeup: { dueAtMs: now + 86_000, promptRef: { key: 'prompt/x', bytes: 5, sha256: 'x' } },
      },
      {
        ...base,
        kind: 'shell',
        taskId: 'b12345678',
        runId: 'r2',
        status: 'running',
        description: 'Build',
        startedAtMs: now - 125_000,
        workflowId: 'w-shell',
        shell: { command: 'make', timeoutMs: 600_000 },
      },
      {
        ...base,
        kind: 'shell',
        taskId: 'b11112222',
        runId: 'r5',
        status: 'running',
        description: 'errors in deploy.log',
        startedAtMs: now - 30_000,
        workflowId: 'w-mon',
        shell: { command: 'tail -f deploy.log | grep ERROR', timeoutMs: 300_000, monitor: true },
      },
      {
        ...base,
        kind: 'shell',
        taskId: 'b87654321',
        runId: 'r3',
        status: 'completed',
        description: 'Old',
        startedAtMs: now - 500_000,
        workflowId: 'w-old',
      },
      {
        ...base,
        kind: 'cron',
        taskId: '1a2b3c4d',
        runId: 'r4',
        status: 'running',
        description: 'Every 5 minutes',
        startedAtMs: now - 60_000,
        workflowId: '',
        cron: {
          cron: '*/5 * * * *',
          humanSchedule: 'Every 5 minutes',
          recurring: true,
          durable: false,
          promptRef: { key: 'prompt/y', bytes: 5, sha256: 'y' },
          createdAtMs: now - 60_000,
          nextFireAtMs: now + 225_000,
          fires: 0,
        },
      },
    ];
    expect(taskRows(tasks, now)).toEqual([
      ['wake-up', 'due 2026-12-02T00:01:26.000Z (in 1m 26s): watching CI run'],
      ['background command', 'b12345678 "Build" running 2m 5s, limit 10m 0s'],
      ['monitor', 'b11112222 "errors in deploy.log" running 30s, limit 5m 0s'],
      ['cron', '1a2b3c4d */5 * * * * (Every 5 minutes, recurring) next 2026-12-02T00:03:45.000Z (in 3m 45s)'],
    ]);
  });
});
