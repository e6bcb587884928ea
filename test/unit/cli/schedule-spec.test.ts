import {
  DEFAULT_CATCHUP_WINDOW_MS,
  parseCron,
  parseDurationMs,
  parseOverlap,
  parseScheduleTiming,
} from '../../../src/cli/schedule-spec';
import { UsageError } from '../../../src/cli/usage-error';
import { scheduledBatchArgv } from '../../../src/activities/schedule/run-scheduled-batch';
import { buildProgram } from '../../../src/cli/main';
import { SCHEDULED_BATCH_INPUT_VERSION } from '../../../src/common/schedule';

describe('schedule timing flags', () => {
  test('parseDurationMs: units combine; bad or empty durations are usage errors naming the flag', () => {
    expect(parseDurationMs('--every', '2s')).toBe(2000);
    expect(parseDurationMs('--every', '1h30m')).toBe(90 * 60_000);
    expect(parseDurationMs('--every', '1d')).toBe(86_400_000);
    expect(parseDurationMs('--every', '1w')).toBe(7 * 86_400_000);
    expect(parseDurationMs('--every', '250ms')).toBe(250);
    for (const bad of ['', '5', 'abc', '1x', '1.5h', '-1h', '1h 30m', '0s']) {
      expect(() => parseDurationMs('--every', bad)).toThrow(UsageError);
    }
    expect(() => parseDurationMs('--catchup-window', '1y')).toThrow(/--catchup-window must be a duration/);
  });

  test('parseCron: five fields or a named schedule; a wrong field count or value says the expected form', () => {
    expect(parseCron('0 3 * * *')).toBe('0 3 * * *');
    expect(parseCron('  */15   9-17 * * 1-5 ')).toBe('*/15 9-17 * * 1-5');
    expect(parseCron('@daily')).toBe('@daily');
    expect(() => parseCron('0 3 * *')).toThrow(/4 fields\. Expected 5 fields: minute hour/);
    expect(() => parseCron('0 0 3 * * *')).toThrow(/6 fields/);
    expect(() => parseCron('61 3 * * *')).toThrow(/--cron "61 3 \* \* \*"/);
    expect(() => parseCron('@sometimes')).toThrow(UsageError);
  });

  test('parseOverlap: skip by default; kebab or Temporal spelling; others refused with the list', () => {
    expect(parseOverlap(undefined)).toBe('SKIP');
    expect(parseOverlap('buffer-one')).toBe('BUFFER_ONE');
    expect(parseOverlap('ALLOW_ALL')).toBe('ALLOW_ALL');
    expect(() => parseOverlap('sometimes')).toThrow(/--overlap must be one of skip, buffer-one, buffer-all/);
  });

  test('parseScheduleTiming: exactly one of --every/--cron; offset, timezone and catch-up window checked', () => {
    expect(parseScheduleTiming({ every: '1d', offset: '3h' })).toEqual({
      spec: { intervals: [{ every: 86_400_000, offset: 3 * 3_600_000 }] },
      catchupWindowMs: DEFAULT_CATCHUP_WINDOW_MS,
      overlap: 'SKIP',
    });
    expect(
      parseScheduleTiming({ cron: '0 3 * * *', timezone: 'Europe/Paris', catchupWindow: '2h', overlap: 'buffer-all' }),
    ).toEqual({
      spec: { cronExpressions: ['0 3 * * *'], timezone: 'Europe/Paris' },
      catchupWindowMs: 2 * 3_600_000,
      overlap: 'BUFFER_ALL',
    });
    expect(() => parseScheduleTiming({})).toThrow(/exactly one of --every/);
    expect(() => parseScheduleTiming({ every: '1d', cron: '@daily' })).toThrow(/exactly one of --every/);
    expect(() => parseScheduleTiming({ every: '500ms' })).toThrow(/at least 1s/);
    expect(() => parseScheduleTiming({ every: '1h', offset: '1h' })).toThrow(/--offset .* must be shorter/);
    expect(() => parseScheduleTiming({ cron: '@daily', offset: '1h' })).toThrow(/--offset goes with --every/);
    expect(() => parseScheduleTiming({ every: '1d', timezone: 'Mars/Olympus' })).toThrow(/IANA time zone/);
    expect(() => parseScheduleTiming({ every: '1d', catchupWindow: '5s' })).toThrow(/at least 10s/);
  });
});

describe('scheduled batch command line', () => {
  test('scheduledBatchArgv: the fire batch id is added and replaces {batch_id} in the flags', () => {
    expect(
      scheduledBatchArgv({
        v: SCHEDULED_BATCH_INPUT_VERSION,
        scheduleId: 'nightly',
        taskFile: '/x/tasks.jsonl',
        args: ['--out', 'results-{batch_id}.jsonl', '--concurrency', '2'],
        cwd: '/x',
        batchId: 'nightly-20261203T030000Z',
      }),
    ).toEqual([
      'batch',
      '/x/tasks.jsonl',
      '--out',
      'results-nightly-20261203T030000Z.jsonl',
      '--concurrency',
      '2',
      '--batch-id',
      'nightly-20261203T030000Z',
      '--progress',
      'lines',
    ]);
  });

  test('schedule create --help explains every flag and shows examples', () => {
    const program = buildProgram(() => undefined);
    const create = program.commands.find((c) => c.name() === 'schedule')!.commands.find((c) => c.name() === 'create')!;
    let help = '';
    create.configureOutput({ writeOut: (s) => (help += s) });
    create.outputHelp();
    for (const flag of [
      '--every',
      '--offset',
      '--cron',
      '--timezone',
      '--overlap',
      '--catchup-window',
      '--prompt',
      '--pause-on-failure',
      '--paused',
      '--note',
      '--json',
    ]) {
      expect(help).toContain(flag);
    }
    expect(help).toMatch(/Examples:\n\s+agent-runner schedule create nightly --cron/);
    expect(help).toContain('<id>-<scheduled time>');
  });
});
