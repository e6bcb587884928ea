import { STALL_NOTICE_MS, stallReasons } from '../../../src/client/pending-work';
import type { PendingActivityView, PendingWork } from '../../../src/client/pending-work';

const NOW = 1_800_000_000_000;
const act = (a: Partial<PendingActivityView>): PendingActivityView => ({
  type: 'runTool',
  state: 'started',
  attempt: 1,
  maximumAttempts: 20,
  ...a,
});
const work = (...activities: PendingActivityView[]): PendingWork => ({ activities });

describe('pending work: what a turn waits for', () => {
  test('pending work: an activity that heartbeats, or just started, is no stall', () => {
    expect(stallReasons(work(act({ startedMs: NOW - 60_000, lastHeartbeatMs: NOW - 500 })), NOW)).toEqual([]);
    expect(stallReasons(work(act({ startedMs: NOW - 1000 })), NOW)).toEqual([]);
    expect(stallReasons(work(act({ state: 'scheduled', scheduledMs: NOW - 1000 })), NOW)).toEqual([]);
  });

  test('pending work: a worker that stopped heartbeating is named, with how long it has been silent', () => {
    const reasons = stallReasons(
      work(
        act({
          startedMs: NOW - 60_000,
          lastHeartbeatMs: NOW - 20_000,
          lastWorker: '4242@host-a',
          heartbeatTimeoutMs: 30_000,
        }),
      ),
      NOW,
      'Bash: npm test',
    );
    expect(reasons).toEqual([
      'Bash: npm test: its worker (4242@host-a) has not sent a heartbeat for 20 s; Temporal gives it to another worker once its heartbeat timeout (30 s) passes, in 10 s',
    ]);
  });

  test('pending work: a retried activity says its attempt, the next one, and its last failure', () => {
    const reasons = stallReasons(
      work(
        act({
          type: 'prepareWorkspace',
          state: 'scheduled',
          attempt: 3,
          maximumAttempts: 0,
          scheduledMs: NOW - 20_000,
          nextAttemptMs: NOW + 4000,
          lastFailure:
            "cannot rebuild the workspace: git fetch failed: fatal: '/repos/remote.git' does not appear to be a git repository",
        }),
      ),
      NOW,
    );
    expect(reasons).toEqual([
      "preparing the workspace (or moving it to a live worker) is being retried (attempt 3, next in 4 s): cannot rebuild the workspace: git fetch failed: fatal: '/repos/remote.git' does not appear to be a git repository",
    ]);
  });

  test('pending work: a task no worker takes (a gone host) and a workflow task no worker runs are said after a few seconds', () => {
    const w: PendingWork = {
      activities: [act({ type: 'callModel', state: 'scheduled', scheduledMs: NOW - STALL_NOTICE_MS - 1000 })],
      workflowTask: { scheduledMs: NOW - 12_000, attempt: 1 },
    };
    expect(stallReasons(w, NOW)).toEqual([
      'the model call waits for a worker to take it (6 s)',
      'the turn waits for a worker to run its next step (12 s): the worker that ran it is gone, and another takes it over once worker.stickyQueueTimeoutMs passes',
    ]);
  });
});
