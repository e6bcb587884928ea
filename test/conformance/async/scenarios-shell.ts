/** Background shells: Bash run_in_background, reading, stopping, timeouts, failures, the sleep block. */
import { expectSent, msAfterFirstRequest, notificationsOf, pick, requestAt, resultsOf, streamOf } from './checks';
import type { Recording } from './recording';
import type { AsyncScenario } from './scenario';
import { say, text, tool, usingCaptured } from './scenario';
import { expectNotificationTurn, texts } from './helpers';
import {
  NOTIFICATION_HEAD,
  SHELL_TIMEOUT_NOTE,
  outputFile,
  shellLaunched,
  shellSummary,
  sleepBlocked,
  taskNotification,
  taskStopped,
} from './texts';

export const bash = (input: Record<string, unknown>): ReturnType<typeof tool> => tool('Bash', input);

/** The notification of a finished background command (or monitor), as the model gets it. */
export function shellNotification(
  id: string,
  toolUseId: string,
  status: string,
  summary: string,
  extra: { note?: string; event?: string } = {},
): string {
  return taskNotification({ taskId: id, toolUseId, outputFile: outputFile(id), status, summary, ...extra });
}

/** The notifications the model got in the request of main step `step` (all of them, history included). */
export const notified = (rec: Recording, step: number): string[] =>
  notificationsOf(requestAt(rec, 'main', step), NOTIFICATION_HEAD);

/** The task output file of task `id` as the CLI left it. */
export const outputOf = (rec: Recording, id: string): string | undefined =>
  rec.meta.taskOutputs[`claude-0/<PROJECT>/<session>/tasks/${id}.output`];
/** The id a background Bash launch returns. */
export const SHELL_ID = /with ID: (\S+?)\.?(?:\s|$)/;
/** The id a Monitor launch returns (`Monitor started (task <id>, …`). */
export const MONITOR_ID = /\(task (\S+?),/;
/** The id CronCreate returns (`Scheduled recurring job <id> …`). */
export const CRON_ID = /job ([0-9a-f]{8})\b/;
/** The output file a launch names. */
export const OUTPUT_FILE = /(\S+\.output)\b/;

export const SHELL_SCENARIOS: readonly AsyncScenario[] = [
  {
    name: 'bash-background',
    title: 'Bash run_in_background: the launch result, the exit notification and the turn it starts',
    agents: {
      main: [
        say(text('Building.'), bash({ command: 'sleep 2; echo built', description: 'Build', run_in_background: true })),
        ...texts('The build is running.', 'The build finished.', 'Extra.'),
      ],
    },
    pending: false,
    smoke: true,
    check: (rec) => {
      expectSent(rec, 'toolu_as_main_0_1', shellLaunched('<shell:1>'));
      const started = streamOf(rec, 'system/task_started')[0];
      expect(started).toMatchObject({
        task_id: '<shell:1>',
        task_type: 'local_bash',
        is_backgrounded: true,
        description: 'Build',
      });
      expect(started).not.toHaveProperty('prompt');
      expect(streamOf(rec, 'system/background_tasks_changed')[0]?.['tasks']).toEqual([
        { task_id: '<shell:1>', run_id: '<run:1>', task_type: 'local_bash', description: 'Build' },
      ]);
      expect(pick(streamOf(rec, 'system/task_notification')[0], ['status', 'summary'])).toEqual({
        status: 'completed',
        summary: shellSummary.completed('Build'),
      });
      expect(notified(rec, 2)).toEqual([
        shellNotification('<shell:1>', 'toolu_as_main_0_1', 'completed', shellSummary.completed('Build')),
      ]);
      // Unlike a background agent, a background command does not hold the turn's result line.
      const results = resultsOf(rec);
      expect(results.map((r) => r['result'])).toEqual(['The build is running.', 'The build finished.']);
      expect(rec.stream.indexOf(results[0]!)).toBeLessThan(
        rec.stream.indexOf(streamOf(rec, 'system/task_notification')[0]!),
      );
      expectNotificationTurn(results[1], 1, '<run:1>');
      expect(outputOf(rec, '<shell:1>')).toBe('built\n\n[exited with code 0]\n');
      // The -p process waited for the command (2 s) before exiting.
      expect(rec.meta.durationMs).toBeGreaterThanOrEqual(2000);
    },
  },
  {
    name: 'bash-background-read',
    title: 'reading a background command: its output file while it runs and after it exits',
    agents: {
      main: [
        say(
          bash({ command: 'echo line1; sleep 3; echo line2', description: 'Print two lines', run_in_background: true }),
        ),
        usingCaptured(OUTPUT_FILE, (f) => say(tool('Read', { file_path: f }))),
        ...texts('It has printed line1.'),
        usingCaptured(OUTPUT_FILE, (f) => say(tool('Read', { file_path: f }))),
        ...texts('It printed both lines.', 'Extra.'),
      ],
    },
    pending: false,
    check: (rec) => {
      expectSent(rec, 'toolu_as_main_1_0', '1\tline1\n2\t');
      expectSent(rec, 'toolu_as_main_3_0', '1\tline1\n2\tline2\n3\t\n4\t[exited with code 0]\n5\t');
      expect(resultsOf(rec).map((r) => r['result'])).toEqual(['It has printed line1.', 'It printed both lines.']);
    },
  },
  {
    name: 'bash-background-stop',
    title: 'TaskStop of a background command: its result, the notification',
    agents: {
      main: [
        say(bash({ command: 'sleep 30', description: 'Wait', run_in_background: true })),
        usingCaptured(SHELL_ID, (id) => say(tool('TaskStop', { task_id: id }))),
        ...texts('Stopped.', 'Extra.', 'Extra 2.'),
      ],
    },
    pending: false,
    check: (rec) => {
      expectSent(rec, 'toolu_as_main_1_0', taskStopped('<shell:1>', 'local_bash', 'sleep 30'));
      expect(pick(streamOf(rec, 'system/task_updated')[0], ['patch'])).toEqual({
        patch: { status: 'killed', end_time: '<epoch>' },
      });
      expect(pick(streamOf(rec, 'system/task_notification')[0], ['status', 'summary'])).toEqual({
        status: 'stopped',
        summary: 'Wait',
      });
      // A stopped command does not notify the model: no second turn.
      expect(resultsOf(rec)).toHaveLength(1);
      expect(rec.requests.filter((r) => r.route === 'main')).toHaveLength(3);
      expect(outputOf(rec, '<shell:1>')).toBe('\n[killed]\n');
      expect(msAfterFirstRequest(rec)).toBeLessThan(10_000);
    },
  },
  {
    name: 'bash-background-timeout',
    title: 'a background command past its timeout: stopped at the limit, the notification',
    agents: {
      main: [
        say(bash({ command: 'echo started; sleep 30', description: 'Wait', run_in_background: true, timeout: 2000 })),
        ...texts('Waiting.', 'It was stopped.', 'Extra.'),
      ],
    },
    pending: false,
    check: (rec) => {
      expect(pick(streamOf(rec, 'system/task_notification')[0], ['status', 'summary'])).toEqual({
        status: 'stopped',
        summary: shellSummary.timedOut('Wait'),
      });
      expect(notified(rec, 2)).toEqual([
        shellNotification('<shell:1>', 'toolu_as_main_0_0', 'killed', shellSummary.timedOut('Wait'), {
          note: SHELL_TIMEOUT_NOTE,
        }),
      ]);
      expect(msAfterFirstRequest(rec)).toBeLessThan(10_000);
    },
  },
  {
    name: 'bash-background-fail',
    title: 'a background command that fails: the notification of a non-zero exit',
    agents: {
      main: [
        say(bash({ command: 'echo oops >&2; exit 3', description: 'Fail', run_in_background: true })),
        ...texts('Waiting.', 'It failed.', 'Extra.'),
      ],
    },
    pending: true,
    check: (rec) => {
      expect(pick(streamOf(rec, 'system/task_updated')[0], ['patch'])).toEqual({
        patch: { status: 'failed', end_time: '<epoch>' },
      });
      expect(notified(rec, 2)).toEqual([
        shellNotification('<shell:1>', 'toolu_as_main_0_0', 'failed', shellSummary.failed('Fail', 3)),
      ]);
      expect(outputOf(rec, '<shell:1>')).toBe('oops\n\n[exited with code 3]\n');
      expect(resultsOf(rec).map((r) => r['subtype'])).toEqual(['success', 'success']);
      expect(rec.meta.exitCode).toBe(0);
    },
  },
  {
    name: 'bash-sleep-blocked',
    title: 'a foreground sleep: long leading sleeps are blocked, a short one runs',
    agents: {
      main: [
        say(bash({ command: 'sleep 30', description: 'Wait' })),
        say(bash({ command: 'sleep 1 && echo ok', description: 'Wait briefly' })),
        say(bash({ command: 'sleep 5; echo late', description: 'Wait five seconds' })),
        ...texts('Done.'),
      ],
    },
    pending: false,
    check: (rec) => {
      expectSent(rec, 'toolu_as_main_0_0', sleepBlocked(30), true);
      expectSent(rec, 'toolu_as_main_1_0', 'ok');
      expectSent(rec, 'toolu_as_main_2_0', 'late');
      // A foreground command that runs long is registered as a (foreground) task after a few seconds.
      expect(pick(streamOf(rec, 'system/task_started')[0], ['task_type', 'is_backgrounded', 'description'])).toEqual({
        task_type: 'local_bash',
        is_backgrounded: false,
        description: 'Wait five seconds',
      });
      expect(pick(streamOf(rec, 'system/task_notification')[0], ['status', 'output_file'])).toEqual({
        status: 'completed',
        output_file: '',
      });
    },
  },
];
