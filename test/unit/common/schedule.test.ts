import {
  scheduledBatchId,
  scheduledTimeFromWorkflowId,
  scheduledWorkflowIdPrefix,
  MAX_SCHEDULE_ID_LENGTH,
  SCHEDULE_ID_RE,
} from '../../../src/common/schedule';

describe('scheduled batch ids', () => {
  test('scheduledBatchId: schedule id plus the scheduled time in UTC to the second', () => {
    expect(scheduledBatchId('nightly', new Date('2026-12-03T03:00:00Z'))).toBe('nightly-20261203T030000Z');
    // Sub-second parts and the offset of the time do not change the id: same fire, same batch.
    expect(scheduledBatchId('nightly', new Date('2026-12-03T04:00:00.789+01:00'))).toBe('nightly-20261203T030000Z');
    expect(scheduledBatchId('nightly', new Date('2026-12-03T03:00:01Z'))).toBe('nightly-20261203T030001Z');
    expect(() => scheduledBatchId('nightly', new Date('nope'))).toThrow(RangeError);
  });

  test('scheduledBatchId: the longest schedule id still gives a valid batch id (128 characters at most)', () => {
    const id = 'a'.repeat(MAX_SCHEDULE_ID_LENGTH);
    expect(SCHEDULE_ID_RE.test(id)).toBe(true);
    expect(SCHEDULE_ID_RE.test(`${id}a`)).toBe(false);
    const batchId = scheduledBatchId(id, new Date('2026-12-03T03:00:00Z'));
    expect(batchId.length).toBeLessThanOrEqual(128);
    expect(batchId).toMatch(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/);
  });

  test('scheduledTimeFromWorkflowId: the RFC 3339 time Temporal appends to the action workflow id', () => {
    const prefix = scheduledWorkflowIdPrefix('nightly');
    expect(prefix).toBe('agent-schedule-nightly');
    expect(scheduledTimeFromWorkflowId(`${prefix}-2026-12-03T03:00:00Z`)?.toISOString()).toBe(
      '2026-12-03T03:00:00.000Z',
    );
    expect(scheduledTimeFromWorkflowId(`${prefix}-2026-12-03T04:00:00+01:00`)?.toISOString()).toBe(
      '2026-12-03T03:00:00.000Z',
    );
    expect(scheduledTimeFromWorkflowId(prefix)).toBeNull();
    expect(scheduledTimeFromWorkflowId('agent-schedule-2026')).toBeNull();
  });
});
