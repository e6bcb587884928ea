/**
 * The flags of `agent-runner schedule create` that say when and how a schedule fires, parsed into
 * Temporal's schedule terms (`ScheduleSpec`, overlap policy, catch-up window). Pure: unit-tested
 * in test/unit/cli/schedule-spec.test.ts.
 */
import { CronExpressionParser } from 'cron-parser';
import { UsageError } from './usage-error';

/** Milliseconds of each duration unit `--every` and `--catchup-window` take. */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * Parses a duration such as `90s`, `15m`, `1h30m`, `1d` or `2w` (units ms s m h d w, combinable,
 * each a non-negative integer) into milliseconds.
 * @throws UsageError for anything else, or a duration of 0, naming `flag`
 */
export function parseDurationMs(flag: string, value: string): number {
  const v = value.trim();
  const part = /(\d+)(ms|s|m|h|d|w)/gy;
  let total = 0;
  let end = 0;
  for (let m = part.exec(v); m; m = part.exec(v)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    end = part.lastIndex;
  }
  if (v === '' || end !== v.length) {
    throw new UsageError(`${flag} must be a duration such as 30s, 15m, 1h30m, 1d or 1w, got "${value}"`);
  }
  if (total <= 0) throw new UsageError(`${flag} must be longer than 0, got "${value}"`);
  return total;
}

/** The named cron schedules Temporal accepts besides five fields. */
const CRON_NAMES = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/**
 * Checks a cron expression for a schedule: five fields (minute hour day-of-month month
 * day-of-week, as Temporal reads them) or one of `@hourly @daily @midnight @weekly @monthly
 * @yearly @annually`.
 * @returns the expression, trimmed
 * @throws UsageError naming the expression and the expected form
 */
export function parseCron(value: string): string {
  const expr = value.trim().replace(/\s+/g, ' ');
  if (CRON_NAMES.has(expr)) return expr;
  const bad = (why: string): UsageError =>
    new UsageError(
      `--cron "${value}": ${why}. Expected 5 fields: minute hour day-of-month month day-of-week (e.g. "0 3 * * *", every day at 03:00), or @hourly, @daily, @weekly, @monthly, @yearly`,
    );
  const fields = expr === '' ? 0 : expr.split(' ').length;
  if (fields !== 5) throw bad(`${fields} field${fields === 1 ? '' : 's'}`);
  try {
    CronExpressionParser.parse(expr);
  } catch (e) {
    throw bad(e instanceof Error ? e.message : String(e));
  }
  return expr;
}

/** Temporal's overlap policies, by the `--overlap` value that names each. */
export const OVERLAP_POLICIES = {
  skip: 'SKIP',
  'buffer-one': 'BUFFER_ONE',
  'buffer-all': 'BUFFER_ALL',
  'cancel-other': 'CANCEL_OTHER',
  'terminate-other': 'TERMINATE_OTHER',
  'allow-all': 'ALLOW_ALL',
} as const;

/** A Temporal overlap policy name (`SKIP`, `BUFFER_ONE`, …). */
export type OverlapPolicyName = (typeof OVERLAP_POLICIES)[keyof typeof OVERLAP_POLICIES];

/**
 * Parses `--overlap` (`skip` `buffer-one` `buffer-all` `cancel-other` `terminate-other`
 * `allow-all`, or Temporal's own spelling `BUFFER_ONE`).
 * @default SKIP (a fire while the previous batch still runs is skipped)
 * @throws UsageError for another value
 */
export function parseOverlap(value: string | undefined): OverlapPolicyName {
  if (value === undefined) return 'SKIP';
  const key = value.trim().toLowerCase().replace(/_/g, '-');
  const policy = (OVERLAP_POLICIES as Record<string, OverlapPolicyName>)[key];
  if (!policy) {
    throw new UsageError(`--overlap must be one of ${Object.keys(OVERLAP_POLICIES).join(', ')}, got "${value}"`);
  }
  return policy;
}

/** Shortest catch-up window Temporal accepts (ms). */
export const MIN_CATCHUP_WINDOW_MS = 10_000;

/** The catch-up window when `--catchup-window` is not given: a fire missed for up to a day still runs (ms). */
export const DEFAULT_CATCHUP_WINDOW_MS = 86_400_000;

/** When a schedule fires: Temporal's spec, from `--every` or `--cron` (exactly one) and `--timezone`. */
export interface ScheduleTiming {
  spec: { intervals?: Array<{ every: number; offset?: number }>; cronExpressions?: string[]; timezone?: string };
  catchupWindowMs: number;
  overlap: OverlapPolicyName;
}

/** The timing flags of `schedule create`. */
export interface ScheduleTimingFlags {
  every?: string;
  offset?: string;
  cron?: string;
  timezone?: string;
  overlap?: string;
  catchupWindow?: string;
}

/**
 * Parses the timing flags of `schedule create`.
 * @throws UsageError when neither or both of `--every` and `--cron` are given, for a bad value,
 *   `--offset` without `--every` or not shorter than it, an unknown `--timezone`, or a catch-up
 *   window under 10 s
 */
export function parseScheduleTiming(flags: ScheduleTimingFlags): ScheduleTiming {
  if ((flags.every === undefined) === (flags.cron === undefined)) {
    throw new UsageError('schedule create needs exactly one of --every <duration> (e.g. 1d) or --cron <expression>');
  }
  const spec: ScheduleTiming['spec'] = {};
  if (flags.every !== undefined) {
    const every = parseDurationMs('--every', flags.every);
    if (every < 1000) throw new UsageError(`--every must be at least 1s, got "${flags.every}"`);
    const interval: { every: number; offset?: number } = { every };
    if (flags.offset !== undefined) {
      const offset = parseDurationMs('--offset', flags.offset);
      if (offset >= every)
        throw new UsageError(`--offset (${flags.offset}) must be shorter than --every (${flags.every})`);
      interval.offset = offset;
    }
    spec.intervals = [interval];
  } else {
    if (flags.offset !== undefined) throw new UsageError('--offset goes with --every, not --cron');
    spec.cronExpressions = [parseCron(flags.cron!)];
  }
  if (flags.timezone !== undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: flags.timezone });
    } catch {
      throw new UsageError(`--timezone must be an IANA time zone such as Europe/Paris or UTC, got "${flags.timezone}"`);
    }
    spec.timezone = flags.timezone;
  }
  const catchupWindowMs =
    flags.catchupWindow === undefined
      ? DEFAULT_CATCHUP_WINDOW_MS
      : parseDurationMs('--catchup-window', flags.catchupWindow);
  if (catchupWindowMs < MIN_CATCHUP_WINDOW_MS) {
    throw new UsageError(`--catchup-window must be at least 10s (Temporal's minimum), got "${flags.catchupWindow}"`);
  }
  return { spec, catchupWindowMs, overlap: parseOverlap(flags.overlap) };
}
