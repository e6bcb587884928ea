/** Waiting: Monitor, ScheduleWakeup and the Cron tools. */
import { expectSent, msAfterFirstRequest, pick, requestAt, resultsOf, streamOf } from './checks';
import { expectNotificationTurn, texts } from './helpers';
import type { AsyncScenario } from './scenario';
import { marker, say, tool, usingCaptured } from './scenario';
import { CRON_ID, MONITOR_ID, bash, notified, outputOf, shellNotification } from './scenarios-shell';
import {
  NOTIFICATION_HEAD,
  cronText,
  monitorStarted,
  monitorText,
  shellLaunched,
  shellSummary,
  taskNotification,
  taskStopped,
  wakeupText,
} from './texts';

export const WAITING_SCENARIOS: readonly AsyncScenario[] = [
  {
    name: 'monitor-until',
    title: 'Monitor with an until-loop: the launch result, the event and exit notifications',
    agents: {
      main: [
        say(
          bash({ command: 'sleep 2; touch ready.flag', description: 'Make the flag later', run_in_background: true }),
          tool('Monitor', {
            description: 'ready flag',
            timeout_ms: 30000,
            command: 'until [ -f ready.flag ]; do sleep 0.5; done; echo ready',
          }),
        ),
        ...texts('Watching.', 'Notified.', 'Notified again.', 'Extra.', 'Extra 2.'),
      ],
    },
    pending: true,
    check: (rec) => {
      const started = streamOf(rec, 'system/task_started');
      const idOf = (description: string): string =>
        String(started.find((m) => m['description'] === description)?.['task_id']);
      const [flag, monitor] = [idOf('Make the flag later'), idOf('ready flag')];
      expectSent(rec, 'toolu_as_main_0_0', shellLaunched(flag));
      expectSent(rec, 'toolu_as_main_0_1', monitorStarted(monitor, '30s'));
      expect(started.find((m) => m['task_id'] === monitor)).toMatchObject({
        task_type: 'local_bash',
        is_backgrounded: true,
      });
      // The command's exit and the monitor's end arrive within ~100 ms: in one request (one result line
      // with num_turns 0, then one turn) or in two turns; the monitor's line rides on its end notice
      // or comes as an event of its own.
      const lastStep = Math.max(...rec.requests.filter((r) => r.route === 'main').map((r) => r.step));
      const all = notified(rec, lastStep).join('\n');
      expect(all).toContain(
        shellNotification(flag, 'toolu_as_main_0_0', 'completed', shellSummary.completed('Make the flag later')).slice(
          NOTIFICATION_HEAD.length,
        ),
      );
      expect(all).toContain(`<summary>${monitorText.ended('ready flag')}</summary>`);
      expect(all).toContain('<event>ready</event>');
      expect(outputOf(rec, monitor)).toBe('ready\n\n[exited with code 0]\n');
    },
  },
  {
    name: 'monitor-events',
    title: 'Monitor of a command that prints three events and exits: one notification per event',
    agents: {
      main: [
        say(
          tool('Monitor', {
            description: 'three events',
            timeout_ms: 30000,
            command: 'for i in 1 2 3; do echo event $i; sleep 2; done',
          }),
        ),
        ...texts('Watching.', 'Event.', 'Event.', 'Event.', 'Ended.', 'Extra.', 'Extra 2.'),
      ],
    },
    pending: false,
    check: (rec) => {
      expectSent(rec, 'toolu_as_main_0_0', monitorStarted('<shell:1>', '30s'));
      // One turn per event line (each a notification without status), then one when the stream ends.
      for (const [step, n] of [
        [2, 1],
        [3, 2],
        [4, 3],
      ] as const) {
        expect(notified(rec, step).at(-1)).toBe(
          taskNotification({ taskId: '<shell:1>', summary: monitorText.event('three events'), event: `event ${n}` }),
        );
      }
      expect(notified(rec, 5).at(-1)).toBe(
        shellNotification('<shell:1>', 'toolu_as_main_0_0', 'completed', monitorText.ended('three events')),
      );
      const results = resultsOf(rec);
      expect(results).toHaveLength(5);
      // Event turns carry an origin without runId; the end of the stream carries the run id.
      expect(results[1]?.['origin']).toEqual({ kind: 'task-notification', producer: 'session-task' });
      expectNotificationTurn(results[4], 4, '<run:1>');
      // Events are not in the stream as task messages: only the end is.
      expect(streamOf(rec, 'system/task_notification')).toHaveLength(1);
    },
  },
  {
    name: 'monitor-timeout-stop',
    title: 'Monitor past its timeout_ms (one expiry event), and TaskStop of another monitor (no notification)',
    agents: {
      main: [
        say(tool('Monitor', { description: 'never ends', timeout_ms: 2000, command: 'sleep 30' })),
        say(tool('Monitor', { description: 'to be stopped', timeout_ms: 60000, command: 'sleep 30' })),
        usingCaptured(MONITOR_ID, (id) => say(tool('TaskStop', { task_id: id }))),
        ...texts('Watching.', 'Expired.', 'Extra.', 'Extra 2.'),
      ],
    },
    pending: false,
    check: (rec) => {
      expectSent(rec, 'toolu_as_main_0_0', monitorStarted('<shell:1>', '2s'));
      expectSent(rec, 'toolu_as_main_1_0', monitorStarted('<shell:2>', '1m'));
      expectSent(rec, 'toolu_as_main_2_0', taskStopped('<shell:2>', 'local_bash', 'sleep 30'));
      // The stopped monitor does not notify the model; the expired one does, once, as an event.
      expect(notified(rec, 4)).toEqual([
        taskNotification({
          taskId: '<shell:1>',
          summary: monitorText.event('never ends'),
          event: monitorText.expiredNoEvents('2s'),
        }),
      ]);
      expect(streamOf(rec, 'system/task_notification').map((m) => pick(m, ['summary', 'status']))).toEqual([
        { summary: 'to be stopped', status: 'stopped' },
        { summary: 'never ends', status: 'stopped' },
      ]);
      expect(msAfterFirstRequest(rec)).toBeLessThan(20_000);
    },
  },
  {
    name: 'monitor-quiet',
    title: 'Monitor of a command that exits without output: the notification',
    agents: {
      main: [
        say(tool('Monitor', { description: 'quiet one', timeout_ms: 30000, command: 'sleep 1' })),
        ...texts('Watching.', 'It ended.', 'Extra.'),
      ],
    },
    pending: false,
    check: (rec) => {
      expect(notified(rec, 2)).toEqual([
        shellNotification('<shell:1>', 'toolu_as_main_0_0', 'completed', monitorText.quiet('quiet one', 0)),
      ]);
    },
  },
  {
    name: 'schedule-wakeup-stop',
    title:
      'ScheduleWakeup of 5 s and of 100000 s (clamped), a call without prompt, then stop: the tool results; the run does not wait',
    agents: {
      main: [
        say(
          tool('ScheduleWakeup', {
            delaySeconds: 5,
            reason: 'checking the build soon',
            prompt: `${marker('wake')} Check the build.`,
            noop: false,
          }),
        ),
        say(
          tool('ScheduleWakeup', {
            delaySeconds: 100000,
            reason: 'checking the build much later',
            prompt: `${marker('wake')} Check the build.`,
            noop: true,
          }),
        ),
        say(tool('ScheduleWakeup', { delaySeconds: 120, reason: 'no prompt given' })),
        say(tool('ScheduleWakeup', { stop: true })),
        ...texts('No wake-up pending.', 'Extra.'),
      ],
      wake: texts('Woke up.', 'Extra wake.'),
    },
    pending: false,
    check: (rec) => {
      expectSent(rec, 'toolu_as_main_0_0', wakeupText.scheduled(60));
      expectSent(rec, 'toolu_as_main_1_0', wakeupText.scheduled(3600));
      expectSent(rec, 'toolu_as_main_2_0', wakeupText.promptRequired, true);
      expectSent(rec, 'toolu_as_main_3_0', wakeupText.stoppedCancelled(1));
      expect(resultsOf(rec)).toHaveLength(1);
      expect(rec.requests.some((r) => r.route === 'wake')).toBe(false);
      expect(msAfterFirstRequest(rec)).toBeLessThan(30_000);
    },
  },
  {
    name: 'schedule-wakeup-60',
    title: 'ScheduleWakeup of 60 s: the tool result, and whether -p waits for the wake-up',
    slow: true,
    timeoutMs: 150_000,
    agents: {
      main: [
        say(
          tool('ScheduleWakeup', {
            delaySeconds: 60,
            reason: 'checking the build in a minute',
            prompt: `${marker('wake')} Check the build.`,
            noop: false,
          }),
        ),
        ...texts('Waiting a minute.', 'Extra.'),
      ],
      wake: [say(tool('ScheduleWakeup', { stop: true })), ...texts('Woke up; the build is done.', 'Extra wake.')],
    },
    pending: true,
    check: (rec) => {
      expectSent(rec, 'toolu_as_main_0_0', wakeupText.scheduled());
      // -p stays alive for the pending wake-up: its prompt comes back as a plain user message,
      // on a whole minute at least 60 s later.
      const woke = rec.requests.find((r) => r.route === 'wake');
      const armed = rec.requests.find((r) => r.route === 'main' && r.step === 1);
      expect((woke?.atMs ?? 0) - (armed?.atMs ?? 0)).toBeGreaterThanOrEqual(59_000);
      expect((woke?.atMs ?? 0) - (armed?.atMs ?? 0)).toBeLessThanOrEqual(121_000);
      expect(requestAt(rec, 'wake', 0).messages.at(-1)?.content).toEqual([
        expect.objectContaining({ type: 'text', text: '[as:wake] Check the build.' }),
      ]);
      expect(
        streamOf(rec, 'command_lifecycle').map((m) => pick(m, ['state', 'wakeup_source', 'scheduled_for'])),
      ).toEqual([{ state: 'started', wakeup_source: 'loop_wakeup', scheduled_for: '<epoch>' }, { state: 'completed' }]);
      expectSent(rec, 'toolu_as_wake_0_0', wakeupText.stoppedNone);
      const results = resultsOf(rec);
      expect(results.map((r) => pick(r, ['result', 'result_index']))).toEqual([
        { result: 'Waiting a minute.', result_index: 0 },
        { result: 'Woke up; the build is done.', result_index: 1 },
      ]);
      expect(results[1]).not.toHaveProperty('origin');
    },
  },
  {
    name: 'cron-create-list-delete',
    title: 'CronCreate, CronList, CronDelete: their results; errors for a bad expression and an unknown id',
    agents: {
      main: [
        say(tool('CronCreate', { cron: '*/5 * * * *', prompt: `${marker('cron')} Tick.`, recurring: true })),
        say(tool('CronList', {})),
        usingCaptured(CRON_ID, (id) => say(tool('CronDelete', { id }))),
        say(
          tool('CronList', {}),
          tool('CronCreate', { cron: 'not a cron', prompt: 'x' }),
          tool('CronDelete', { id: 'nope' }),
          tool('CronCreate', { cron: '0 0 31 2 *', prompt: 'x', recurring: false }),
        ),
        ...texts('Done.', 'Extra.'),
      ],
      cron: texts('Tick.', 'Tick 2.'),
    },
    pending: false,
    check: (rec) => {
      expectSent(rec, 'toolu_as_main_0_0', cronText.created('<cron:1>', 'Every 5 minutes'));
      expectSent(rec, 'toolu_as_main_1_0', cronText.listed('<cron:1>', 'Every 5 minutes', '[as:cron] Tick.'));
      expectSent(rec, 'toolu_as_main_2_0', cronText.cancelled('<cron:1>'));
      expectSent(rec, 'toolu_as_main_3_0', cronText.none);
      expectSent(rec, 'toolu_as_main_3_1', cronText.invalid('not a cron'), true);
      expectSent(rec, 'toolu_as_main_3_2', cronText.unknownId('nope'), true);
      expectSent(rec, 'toolu_as_main_3_3', cronText.neverMatches('0 0 31 2 *'), true);
    },
  },
  {
    name: 'cron-pending',
    title: 'a recurring cron every minute left pending at the end of the turn: -p does not wait for it',
    timeoutMs: 200_000,
    agents: {
      main: [
        say(tool('CronCreate', { cron: '* * * * *', prompt: `${marker('cron')} Tick.`, recurring: true })),
        ...texts('Scheduled.', 'Extra.'),
      ],
      cron: [
        usingCaptured(CRON_ID, (id) => say(tool('CronDelete', { id }))),
        ...texts('Ticked and deleted the job.', 'Extra.'),
      ],
    },
    pending: false,
    check: (rec) => {
      expectSent(rec, 'toolu_as_main_0_0', cronText.created('<cron:1>', 'Every minute'));
      // A session-only cron does not keep -p alive: the process exits after the turn, the job never fires.
      expect(rec.requests.some((r) => r.route === 'cron')).toBe(false);
      expect(resultsOf(rec)).toHaveLength(1);
      expect(msAfterFirstRequest(rec)).toBeLessThan(30_000);
      expect(rec.meta.exitCode).toBe(0);
    },
  },
  {
    name: 'cron-durable',
    title: 'CronCreate durable: true: .claude/scheduled_tasks.json, CronList, and -p exiting with the job pending',
    agents: {
      main: [
        say(tool('CronCreate', { cron: '7 9 * * 1-5', prompt: `${marker('cron')} Morning check.`, durable: true })),
        say(tool('CronList', {})),
        ...texts('Scheduled for weekday mornings.', 'Extra.'),
      ],
      cron: texts('Tick.'),
    },
    pending: false,
    check: (rec) => {
      expectSent(rec, 'toolu_as_main_0_0', cronText.created('<cron:1>', 'Weekdays at 9:07 AM', true));
      expectSent(
        rec,
        'toolu_as_main_1_0',
        cronText.listed('<cron:1>', 'Weekdays at 9:07 AM', '[as:cron] Morning check.', true),
      );
      const file = JSON.parse(rec.meta.files['.claude/scheduled_tasks.json'] ?? '{}') as { tasks?: unknown[] };
      expect(file.tasks).toEqual([
        {
          id: '<cron:1>',
          cron: '7 9 * * 1-5',
          prompt: '[as:cron] Morning check.',
          createdAt: '<epoch>',
          recurring: true,
          createdBySessionId: '<session>',
          createdByPid: '<pid>',
          createdByProcStart: '<n>',
          createdInProject: '<REPO>',
        },
      ]);
      expect(msAfterFirstRequest(rec)).toBeLessThan(30_000);
    },
  },
];
