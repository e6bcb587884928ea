/**
 * The specs of `CronCreate`, `CronDelete` and `CronList` offered to the model: Claude Code
 * 2.1.328's, verbatim from the recording (test/conformance/recordings/async/claude-2.1.328/tools-async,
 * first request).
 */
import type { TaskToolSpec } from '../agents/tool-specs';

/** `CronCreate`'s name, description and input schema. */
export const CRON_CREATE_SPEC: TaskToolSpec = {
  name: 'CronCreate',
  description:
    'Schedule a prompt to be enqueued at a future time. Use for both recurring schedules and one-shot reminders.\n\nUses standard 5-field cron in the user\'s local timezone: minute hour day-of-month month day-of-week. "0 9 * * *" means 9am local — no timezone conversion needed.\n\n## One-shot tasks (recurring: false)\n\nFor "remind me at X" or "at <time>, do Y" requests — fire once then auto-delete.\nPin minute/hour/day-of-month/month to specific values:\n  "remind me at 2:30pm today to check the deploy" → cron: "30 14 <today_dom> <today_month> *", recurring: false\n  "tomorrow morning, run the smoke test" → cron: "57 8 <tomorrow_dom> <tomorrow_month> *", recurring: false\n\n## Recurring jobs (recurring: true, the default)\n\nFor "every N minutes" / "every hour" / "weekdays at 9am" requests:\n  "*/5 * * * *" (every 5 min), "0 * * * *" (hourly), "0 9 * * 1-5" (weekdays at 9am local)\n\n## Avoid the :00 and :30 minute marks when the task allows it\n\nEvery user who asks for "9am" gets `0 9`, and every user who asks for "hourly" gets `0 *` — which means requests from across the planet land on the API at the same instant. When the user\'s request is approximate, pick a minute that is NOT 0 or 30:\n  "every morning around 9" → "57 8 * * *" or "3 9 * * *" (not "0 9 * * *")\n  "hourly" → "7 * * * *" (not "0 * * * *")\n  "in an hour or so, remind me to..." → pick whatever minute you land on, don\'t round\n\nOnly use minute 0 or 30 when the user names that exact time and clearly means it ("at 9:00 sharp", "at half past", coordinating with a meeting). When in doubt, nudge a few minutes early or late — the user will not notice, and the fleet will.\n\n## Durability\n\nBy default (durable: false) the job lives only in this Claude session — nothing is written to disk, and the job is gone when Claude exits. Pass durable: true to write to .claude/scheduled_tasks.json so the job survives restarts. Only use durable: true when the user explicitly asks for the task to persist ("keep doing this every day", "set this up permanently"). Most "remind me in 5 minutes" / "check back in an hour" requests should stay session-only.\n\n## Not for live watching\n\nCronCreate re-runs a prompt at fixed wall-clock intervals. To watch a log file, process, or command output and be notified the moment something changes, use the Monitor tool instead — Monitor streams events as they happen; cron polls on a schedule.\n\n## Runtime behavior\n\nJobs only fire while the REPL is idle (not mid-query). Durable jobs persist to .claude/scheduled_tasks.json and survive session restarts — on next launch they resume automatically. One-shot durable tasks that were missed while the REPL was closed are surfaced for catch-up. Session-only jobs die with the process. The scheduler shifts each job by a fixed per-job offset on top of whatever you pick: by default a recurring job runs up to 50% of its period late (max 30 min), and a one-shot job landing on :00 or :30 runs up to 90 s early. The result of this tool and of CronList gives each job\'s actual next run time: when you tell the user when a job will run, give that time, not the minute in the cron expression. Picking an off-minute is still the bigger lever.\n\nRecurring tasks auto-expire after 7 days — they fire one final time, then are deleted. This bounds session lifetime. Tell the user about the 7-day limit when scheduling recurring jobs.\n\nReturns a job ID you can pass to CronDelete.',
  input_schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      cron: {
        description:
          'Standard 5-field cron expression in local time: "M H DoM Mon DoW" (e.g. "*/5 * * * *" = every 5 minutes, "30 14 28 2 *" = Feb 28 at 2:30pm local once).',
        type: 'string',
      },
      prompt: {
        description: 'The prompt to enqueue at each fire time.',
        type: 'string',
      },
      recurring: {
        description:
          'true (default) = fire on every cron match until deleted or auto-expired after 7 days. false = fire once at the next match, then auto-delete. Use false for "remind me at X" one-shot requests with pinned minute/hour/dom/month.',
        type: 'boolean',
      },
      durable: {
        description:
          'true = persist to .claude/scheduled_tasks.json and survive restarts. false (default) = in-memory only, dies when this Claude session ends. Use true only when the user asks the task to survive across sessions.',
        type: 'boolean',
      },
    },
    required: ['cron', 'prompt'],
    additionalProperties: false,
  },
};

/** `CronDelete`'s name, description and input schema. */
export const CRON_DELETE_SPEC: TaskToolSpec = {
  name: 'CronDelete',
  description:
    'Cancel a cron job previously scheduled with CronCreate. Removes it from .claude/scheduled_tasks.json (durable jobs) or the in-memory session store (session-only jobs).',
  input_schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      id: {
        description: 'Job ID returned by CronCreate.',
        type: 'string',
      },
    },
    required: ['id'],
    additionalProperties: false,
  },
};

/** `CronList`'s name, description and input schema. */
export const CRON_LIST_SPEC: TaskToolSpec = {
  name: 'CronList',
  description:
    'List all cron jobs scheduled via CronCreate, both durable (.claude/scheduled_tasks.json) and session-only.',
  input_schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {},
    additionalProperties: false,
  },
};

/** The three cron tools, by name. */
export const CRON_TOOL_SPECS: ReadonlyMap<string, TaskToolSpec> = new Map(
  [CRON_CREATE_SPEC, CRON_DELETE_SPEC, CRON_LIST_SPEC].map((s) => [s.name, s]),
);
