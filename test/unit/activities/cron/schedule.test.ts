import {
  checkCron,
  cronCreatedText,
  cronErrorText,
  cronListLine,
  cronText,
  cronWhen,
  humanSchedule,
  nextCronRun,
  jobFraction,
  jobFireAt,
  jobAgedOut,
  cronOneShotText,
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

describe("a job's fire time as 2.1.328's scheduler computes it (per-job offsets, 7-day expiry)", () => {
  const now = at(2026, 12, 1, 19, 33, 34);

  test("jobFraction: the id's first 8 hex digits over 2^32; not hex → 0", () => {
    expect(jobFraction('00000000')).toBe(0);
    expect(jobFraction('80000000')).toBe(0.5);
    expect(jobFraction('zzzzzzzz')).toBe(0);
  });

  test('jobFireAt: a recurring job runs late by its share of half the period, at most 30 min', () => {
    // Every hour at :07; id 0x80000000 → half of half an hour = 15 min late.
    expect(jobFireAt({ cron: '7 * * * *', id: '80000000', recurring: true }, now)).toBe(at(2026, 12, 1, 20, 22));
    expect(jobFireAt({ cron: '7 * * * *', id: '00000000', recurring: true }, now)).toBe(at(2026, 12, 1, 20, 7));
    // Daily: half a day of offset is capped at 30 min.
    expect(jobFireAt({ cron: '7 9 * * *', id: 'ffffffff', recurring: true }, now)).toBe(at(2026, 12, 2, 9, 37));
    // Every minute: up to 30 s late.
    expect(jobFireAt({ cron: '* * * * *', id: '80000000', recurring: true }, now)).toBe(at(2026, 12, 1, 19, 34, 15));
  });

  test('jobFireAt: a */5 schedule fires 15 s before its 5-minute period ends (the prompt-cache lead)', () => {
    expect(jobFireAt({ cron: '*/5 * * * *', id: 'ffffffff', recurring: true }, now)).toBe(now + 285_000);
  });

  test('jobFireAt: a one-shot on :00 or :30 runs up to 90 s early, never before now; other minutes exact', () => {
    expect(jobFireAt({ cron: '0 20 1 12 *', id: '80000000', recurring: false }, now)).toBe(at(2026, 12, 1, 19, 59, 15));
    expect(jobFireAt({ cron: '7 20 1 12 *', id: 'ffffffff', recurring: false }, now)).toBe(at(2026, 12, 1, 20, 7));
    expect(jobFireAt({ cron: '34 19 1 12 *', id: 'ffffffff', recurring: false }, now)).toBe(at(2026, 12, 1, 19, 34));
    expect(jobFireAt({ cron: '0 0 31 2 *', id: '00000000', recurring: false }, now)).toBeNull();
  });

  test('jobAgedOut: a recurring job reaches its limit 7 days after creation', () => {
    expect(jobAgedOut(now, now + 7 * 86_400_000 - 1)).toBe(false);
    expect(jobAgedOut(now, now + 7 * 86_400_000)).toBe(true);
  });

  test("cronOneShotText and the shown time (rounded to the minute): 2.1.328's one-shot result", () => {
    expect(cronOneShotText('abcd1234', '7 20 1 12 *', at(2026, 12, 1, 20, 6, 40), false)).toBe(
      'Scheduled one-shot task abcd1234 (7 20 1 12 *). Next run: Dec 1 8:07pm. Session-only (not written to disk, dies when Claude exits). It will fire once then auto-delete.',
    );
  });
});
