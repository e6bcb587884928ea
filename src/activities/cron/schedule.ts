/**
 * Cron expressions as `CronCreate` in Claude Code 2.1.328 takes them: standard 5-field cron
 * (`M H DoM Mon DoW`) in the local time zone, parsed and stepped by cron-parser; the
 * human-readable schedule, the `<when>` of a next run, and 2.1.328's texts
 * (test/conformance/recordings/async/claude-2.1.328/cron-*; quoted in
 * docs/reference/claude-code-async-tools.md), and its per-job offsets of a fire time (read from its
 * bundled code). The pure part the cron activities call (src/activities/cron/cron-call.ts).
 */
import { CronExpressionParser } from 'cron-parser';

/** How far ahead a next run is looked for, ms (2.1.328: "in the next year"). */
export const CRON_HORIZON_MS = 366 * 24 * 3600_000;

/** A cron expression that was checked. */
export type CronCheck =
  { ok: true; cron: string; nextFireAt: number } | { ok: false; error: 'invalid' | 'never'; message: string };

/** 2.1.328's `is_error` texts of CronCreate and CronDelete. */
export const cronErrorText = {
  invalid: (cron: string): string => `Invalid cron expression '${cron}'. Expected 5 fields: M H DoM Mon DoW.`,
  never: (cron: string): string => `Cron expression '${cron}' does not match any calendar date in the next year.`,
  unknownId: (id: string): string => `No scheduled job with id '${id}'`,
};

/**
 * Checks `cron` and finds its first run after `fromMs` (epoch ms), in the local time zone.
 * Exactly 5 fields (cron-parser also takes a seconds field; 2.1.328 does not).
 */
export function checkCron(cron: string, fromMs: number): CronCheck {
  const expr = cron.trim();
  if (expr.split(/\s+/).length !== 5) return { ok: false, error: 'invalid', message: cronErrorText.invalid(cron) };
  try {
    const it = CronExpressionParser.parse(expr, {
      currentDate: new Date(fromMs),
      endDate: new Date(fromMs + CRON_HORIZON_MS),
    });
    return { ok: true, cron: expr, nextFireAt: it.next().getTime() };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // A date that exists in no month (`31 2`), or none within the horizon.
    const never = /day of month|out of the time span|no more|end date/i.test(message);
    return never
      ? { ok: false, error: 'never', message: cronErrorText.never(cron) }
      : { ok: false, error: 'invalid', message: cronErrorText.invalid(cron) };
  }
}

/** The run after `fromMs` of a checked expression (epoch ms), or null when none is within the horizon. */
export function nextCronRun(cron: string, fromMs: number): number | null {
  const c = checkCron(cron, fromMs);
  return c.ok ? c.nextFireAt : null;
}

const clock12 = (h: number, m: number): string =>
  `${h % 12 === 0 ? 12 : h % 12}:${String(m).padStart(2, '0')} ${h < 12 ? 'AM' : 'PM'}`;

/**
 * The human-readable schedule 2.1.328 shows: `Every minute`, `Every 5 minutes`,
 * `Weekdays at 9:07 AM` (recorded), and by the same pattern `Every hour at :07`, `Every day at
 * 9:07 AM`; any other expression is shown as itself.
 */
export function humanSchedule(cron: string): string {
  const [min, hour, dom, mon, dow] = cron.trim().split(/\s+/);
  const n = (s: string | undefined): number | null => (s !== undefined && /^\d+$/.test(s) ? Number(s) : null);
  if (min === '*' && hour === '*' && dom === '*' && mon === '*' && dow === '*') return 'Every minute';
  const step = /^\*\/(\d+)$/.exec(min ?? '');
  if (step && hour === '*' && dom === '*' && mon === '*' && dow === '*') {
    return step[1] === '1' ? 'Every minute' : `Every ${step[1]} minutes`;
  }
  const m = n(min);
  const h = n(hour);
  if (m !== null && hour === '*' && dom === '*' && mon === '*' && dow === '*')
    return `Every hour at :${String(m).padStart(2, '0')}`;
  if (m !== null && h !== null && dom === '*' && mon === '*') {
    if (dow === '1-5') return `Weekdays at ${clock12(h, m)}`;
    if (dow === '*') return `Every day at ${clock12(h, m)}`;
  }
  return cron.trim();
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A next run as 2.1.328 writes it: local `Dec 1 7:34pm`. */
export function cronWhen(ms: number): string {
  const d = new Date(ms);
  const h = d.getHours();
  return `${MONTHS[d.getMonth()]} ${d.getDate()} ${h % 12 === 0 ? 12 : h % 12}:${String(d.getMinutes()).padStart(2, '0')}${h < 12 ? 'am' : 'pm'}`;
}

/**
 * 2.1.328's scheduler settings (its `recurringFrac`, `recurringCapMs`, `oneShotMaxMs`,
 * `oneShotFloorMs`, `oneShotMinuteMod`, `recurringMaxAgeMs`, `cacheLeadMs`; read from the bundled
 * code): a recurring job runs up to half its period late (at most 30 min), a one-shot landing on
 * :00 or :30 up to 90 s early, a recurring job expires 7 days after its creation.
 */
export const CRON_SCHEDULER = {
  recurringFrac: 0.5,
  recurringCapMs: 1_800_000,
  oneShotMaxMs: 90_000,
  oneShotFloorMs: 0,
  oneShotMinuteMod: 30,
  recurringMaxAgeMs: 604_800_000,
  cacheLeadMs: 15_000,
} as const;

/** A job's fixed offset in [0, 1): its id's first 8 hex digits over 2^32 (2.1.328). */
export function jobFraction(id: string): number {
  const f = parseInt(id.slice(0, 8), 16) / 4294967296;
  return Number.isFinite(f) ? f : 0;
}

/** `*\/N * * * *`: the schedules whose 5-minute period is pulled 15 s early (2.1.328's prompt-cache lead). */
const MINUTE_STEP = /^\*\/\d+ \* \* \* \*$/;
/** The prompt-cache lifetime the lead is for, ms (2.1.328's `vYr`). */
const CACHE_TTL_MS = 300_000;

/**
 * When a job fires next, after `fromMs` (epoch ms; a recurring job's last fire or its creation),
 * as 2.1.328 computes it: a recurring job at its next cron match plus its fixed share of the
 * period (`jobFraction · 0.5 · period`, at most 30 min), except a `*\/5`-like schedule, which
 * fires 15 s before its period ends; a one-shot at its match, up to 90 s earlier when that is
 * on :00 or :30 (never before `fromMs`). Null when no match is within the horizon.
 */
export function jobFireAt(job: { cron: string; id: string; recurring: boolean }, fromMs: number): number | null {
  const s = CRON_SCHEDULER;
  const a = nextCronRun(job.cron, fromMs);
  if (a === null) return null;
  if (!job.recurring) {
    if (new Date(a).getMinutes() % s.oneShotMinuteMod !== 0) return a;
    const early = s.oneShotFloorMs + jobFraction(job.id) * (s.oneShotMaxMs - s.oneShotFloorMs);
    return Math.max(a - early, fromMs);
  }
  const b = nextCronRun(job.cron, a);
  if (b === null) return a;
  const period = b - a;
  const lead = s.cacheLeadMs;
  if (MINUTE_STEP.test(job.cron.trim()) && lead < period && period >= CACHE_TTL_MS && period - lead < CACHE_TTL_MS) {
    return fromMs + period - lead;
  }
  return a + Math.min(jobFraction(job.id) * s.recurringFrac * period, s.recurringCapMs);
}

/** True when a recurring job created at `createdAtMs` has reached its age limit at `nowMs`: it fires a last time and is deleted. */
export function jobAgedOut(createdAtMs: number, nowMs: number): boolean {
  return CRON_SCHEDULER.recurringMaxAgeMs > 0 && nowMs - createdAtMs >= CRON_SCHEDULER.recurringMaxAgeMs;
}

/** A fire time as 2.1.328 shows it: rounded to the nearest minute first. */
const shownAt = (ms: number): number => Math.round(ms / 60_000) * 60_000;

/** CronCreate's result of a one-shot job (2.1.328's text, from its bundled code). */
export function cronOneShotText(id: string, human: string, nextFireAt: number, durable: boolean): string {
  const where = durable
    ? 'Persisted to .claude/scheduled_tasks.json.'
    : 'Session-only (not written to disk, dies when Claude exits).';
  return `Scheduled one-shot task ${id} (${human}). Next run: ${cronWhen(shownAt(nextFireAt))}. ${where} It will fire once then auto-delete.`;
}

/** CronCreate's result of a recurring job (recorded; `durable`: written to `.claude/scheduled_tasks.json`). */
export function cronCreatedText(id: string, human: string, nextFireAt: number, durable: boolean): string {
  const where = durable
    ? 'Persisted to .claude/scheduled_tasks.json.'
    : 'Session-only (not written to disk, dies when Claude exits).';
  return `Scheduled recurring job ${id} (${human}). Next run: ${cronWhen(shownAt(nextFireAt))}. ${where} Auto-expires after 7 days. Use CronDelete to cancel sooner.`;
}

/** One line of CronList (recorded). */
export function cronListLine(job: {
  id: string;
  human: string;
  recurring: boolean;
  durable: boolean;
  nextFireAt: number;
  prompt: string;
}): string {
  return `${job.id} — ${job.human} (${job.recurring ? 'recurring' : 'one-shot'})${job.durable ? '' : ' [session-only]'}, next run ${cronWhen(shownAt(job.nextFireAt))}: ${job.prompt}`;
}

/** CronList with no jobs, and CronDelete's result (recorded). */
export const cronText = {
  none: 'No scheduled jobs.',
  cancelled: (id: string): string => `Cancelled job ${id}.`,
};
