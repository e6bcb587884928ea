/** Background shells, monitors, wake-ups and crons. */
import type { StepSpec } from '../../../src/fake-model';
import type { AsyncScenario } from './scenario';
import { marker, say, text, tool, usingCaptured } from './scenario';

const todo = (): void => undefined;
const texts = (...ts: string[]): StepSpec[] => ts.map((t) => say(text(t)));
const bash = (input: Record<string, unknown>) => tool('Bash', input);
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
    pending: true,
    check: todo,
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
    pending: true,
    check: todo,
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
    pending: true,
    check: todo,
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
    pending: true,
    check: todo,
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
    check: todo,
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
    pending: true,
    check: todo,
  },
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
    check: todo,
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
            command: 'for i in 1 2 3; do echo event $i; sleep 1; done',
          }),
        ),
        ...texts('Watching.', 'Event.', 'Event.', 'Event.', 'Ended.', 'Extra.', 'Extra 2.'),
      ],
    },
    pending: true,
    check: todo,
  },
  {
    name: 'monitor-timeout-stop',
    title: 'Monitor past its timeout_ms, and TaskStop of another monitor',
    agents: {
      main: [
        say(
          tool('Monitor', { description: 'never ends', timeout_ms: 2000, command: 'sleep 30' }),
          tool('Monitor', { description: 'to be stopped', timeout_ms: 60000, command: 'sleep 30' }),
        ),
        usingCaptured(MONITOR_ID, (id) => say(tool('TaskStop', { task_id: id }))),
        ...texts('Watching.', 'Expired.', 'Extra.', 'Extra 2.'),
      ],
    },
    pending: true,
    check: todo,
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
    pending: true,
    check: todo,
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
    check: todo,
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
    pending: true,
    check: todo,
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
    pending: true,
    check: todo,
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
    pending: true,
    check: todo,
  },
];
