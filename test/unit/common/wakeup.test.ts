import { clampWakeupDelay, wakeupDueAtMs } from '../../../src/common/wakeup';
import { wakeupClock, wakeupScheduledText, wakeupStoppedText } from '../../../src/activities/wakeup/texts';

describe('ScheduleWakeup decisions (2.1.328: clamp [60, 3600] s, fire at the next whole minute)', () => {
  test('clampWakeupDelay: 5 → 60 and 100000 → 3600 (clamped); 60 and 270 kept; NaN or missing → 60, ±Infinity → 3600/60', () => {
    expect(clampWakeupDelay(5)).toEqual({ seconds: 60, wasClamped: true });
    expect(clampWakeupDelay(100_000)).toEqual({ seconds: 3600, wasClamped: true });
    expect(clampWakeupDelay(60)).toEqual({ seconds: 60, wasClamped: false });
    expect(clampWakeupDelay(270)).toEqual({ seconds: 270, wasClamped: false });
    expect(clampWakeupDelay(Number.NaN)).toEqual({ seconds: 60, wasClamped: true });
    expect(clampWakeupDelay(null)).toEqual({ seconds: 60, wasClamped: true });
    expect(clampWakeupDelay(Number.POSITIVE_INFINITY)).toEqual({ seconds: 3600, wasClamped: true });
    expect(clampWakeupDelay(Number.NEGATIVE_INFINITY)).toEqual({ seconds: 60, wasClamped: true });
  });

  test('wakeupDueAtMs: rounded up to the whole minute (60 s requested at :34 fires in 86 s, as recorded)', () => {
    const now = Date.UTC(2026, 11, 1, 19, 33, 34);
    expect(wakeupDueAtMs(now, 60) - now).toBe(86_000);
    const onMinute = Date.UTC(2026, 11, 1, 19, 33, 0);
    expect(wakeupDueAtMs(onMinute, 60) - onMinute).toBe(60_000);
    expect(wakeupDueAtMs(now, 3600) % 60_000).toBe(0);
  });

  test("texts: 2.1.328's scheduled text (clamped part only when clamped) and both stop texts", () => {
    const now = Date.UTC(2026, 11, 1, 19, 33, 34);
    const due = wakeupDueAtMs(now, 60);
    expect(wakeupClock(due)).toMatch(/^\d\d:35:00$/);
    expect(wakeupScheduledText(due, now, undefined)).toBe(
      `Next wakeup scheduled for ${wakeupClock(due)} (in 86s). If you owe the user a status update this tick, write it now as ordinary response text; then end the turn — the harness re-invokes you when the wakeup fires or a task-notification arrives.`,
    );
    expect(wakeupScheduledText(due, now, 60)).toContain(
      '(in 86s) (clamped to 60s from your requested value). If you owe',
    );
    expect(wakeupStoppedText(1)).toBe(
      "Loop stopped — cancelled 1 pending wakeup(s); no further dynamic-loop wakeups scheduled. If you armed a Monitor for this loop, TaskStop it now. Then write the loop's outcome for the user as ordinary visible response text — and end the turn.",
    );
    expect(wakeupStoppedText(0)).toMatch(
      /^Loop stopped — any dynamic loop in this session is ended; there was no pending wakeup to cancel\./,
    );
  });
});
