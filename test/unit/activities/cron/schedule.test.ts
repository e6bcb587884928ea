import {
  checkCron,
  cronCreatedText,
  cronErrorText,
  cronListLine,
  cronText,
  cronWhen,
  humanSchedule,
  nextCronRun,
} from '../../../../src/activities/cron/schedule';

const at = (y: number, mo: number, d: number, h: number, mi: number, s = 0): number =>
  new Date(y, mo - 1, d, h, mi, s).getTime();

describe("cron expressions as 2.1.328's CronCreate takes them (5 fields, local time)", () => {
  test('checkCron: the next run after now, in local time', () => {
    const now = at(2026, 12, 1, 19, 33, 34);
    expect(checkCron('*/5 * * * *', now)).toEqual({
      ok: true,
      cron: '*/5 * * * *',
      nextFireAt: at(2026, 12, 1, 19, 35),
    });
    expect(checkCron('* * * * *', now)).toMatchObject({ nextFireAt: at(2026, 12, 1, 19, 34) });
    // Tuesday 1 Dec 2026 → Wednesday 2 Dec at 9:07.
    expect(checkCron('7 9 * * 1-5', now)).toMatchObject({ nextFireAt: at(2026, 12, 2, 9, 7) });
    expect(nextCronRun('0 9 * * *', now)).toBe(at(2026, 12, 2, 9, 0));
  });

  test("checkCron: 2.1.328's errors: not 5 fields (a seconds field too), nonsense, a date that never comes", () => {
    const now = at(2026, 12, 1, 19, 33, 34);
    expect(checkCron('not a cron', now)).toEqual({
      ok: false,
      error: 'invalid',
      message: "Invalid cron expression 'not a cron'. Expected 5 fields: M H DoM Mon DoW.",
    });
    expect(checkCron('0 0 * * * *', now)).toMatchObject({ ok: false, error: 'invalid' });
    expect(checkCron('x y z w v', now)).toMatchObject({ ok: false, error: 'invalid' });
    expect(checkCron('0 0 31 2 *', now)).toEqual({
      ok: false,
      error: 'never',
      message: "Cron expression '0 0 31 2 *' does not match any calendar date in the next year.",
    });
    expect(nextCronRun('0 0 31 2 *', now)).toBeNull();
    expect(cronErrorText.unknownId('nope')).toBe("No scheduled job with id 'nope'");
  });

  test('humanSchedule: the recorded forms (Every minute, Every 5 minutes, Weekdays at 9:07 AM), the expression itself otherwise', () => {
    expect(humanSchedule('* * * * *')).toBe('Every minute');
    expect(humanSchedule('*/5 * * * *')).toBe('Every 5 minutes');
    expect(humanSchedule('7 9 * * 1-5')).toBe('Weekdays at 9:07 AM');
    expect(humanSchedule('30 14 * * 1-5')).toBe('Weekdays at 2:30 PM');
    expect(humanSchedule('0 0 1 1 *')).toBe('0 0 1 1 *');
  });

  test("texts: CronCreate's, CronList's and CronDelete's as recorded", () => {
    const next = at(2026, 12, 1, 19, 35);
    expect(cronWhen(next)).toBe('Dec 1 7:35pm');
    expect(cronWhen(at(2026, 12, 2, 9, 7))).toBe('Dec 2 9:07am');
    expect(cronCreatedText('1a2b3c4d', 'Every 5 minutes', next, false)).toBe(
      'Scheduled recurring job 1a2b3c4d (Every 5 minutes). Next run: Dec 1 7:35pm. Session-only (not written to disk, dies when Claude exits). Auto-expires after 7 days. Use CronDelete to cancel sooner.',
    );
    expect(cronCreatedText('1a2b3c4d', 'Weekdays at 9:07 AM', next, true)).toContain(
      'Next run: Dec 1 7:35pm. Persisted to .claude/scheduled_tasks.json. Auto-expires after 7 days.',
    );
    expect(
      cronListLine({
        id: '1a2b3c4d',
        human: 'Every 5 minutes',
        recurring: true,
        durable: false,
        nextFireAt: next,
        prompt: '[as:cron] Tick.',
      }),
    ).toBe('1a2b3c4d — Every 5 minutes (recurring) [session-only], next run Dec 1 7:35pm: [as:cron] Tick.');
    expect(cronText.none).toBe('No scheduled jobs.');
    expect(cronText.cancelled('1a2b3c4d')).toBe('Cancelled job 1a2b3c4d.');
  });
});
