/**
 * The `agent-runner schedule` command group's definitions (flags, help, examples); each action
 * loads src/cli/commands/schedule.ts when it runs.
 */
import type { Command } from 'commander';
import type { Config } from '../config';
import type { BatchArgsCheck, ScheduleCreateFlags } from './commands/schedule';

const out = (s: string): void => {
  process.stdout.write(`${s}\n`);
};
const err = (s: string): void => {
  process.stderr.write(`${s}\n`);
};

const CREATE_HELP = `
Each fire runs \`agent-runner batch\` on a worker with the batch id <id>-<scheduled time>
(e.g. nightly-20261203T030000Z): the fire's nominal time, so a late, caught-up or repeated start
of the same fire is the same batch and runs none of its finished tasks again (docs/batch.md).
The task file is read at each fire, where the worker runs; edit it and the next fire runs the new
tasks. A --prompt schedule runs that one prompt as a batch of one task.

Arguments after -- are the task file and the \`batch\` flags every fire runs with (checked now):
--concurrency, --max-budget-usd (per fire), --task-max-budget-usd, --out (use {batch_id} in
the path for one file per fire), --cwd, --model, --max-turns, --permission-mode, --allowedTools, …
Not allowed: --batch-id, --retry-failed, --worker, --progress (the schedule sets them).

Fires need a server and a worker that keep running: \`agent-runner server\`, or a deployed
server with \`agent-runner worker\` processes (docs/deploy.md).

Examples:
  agent-runner schedule create nightly --cron "0 3 * * *" --timezone Europe/Paris \\
    -- tasks.jsonl --concurrency 8 --max-budget-usd 20 --out 'results-{batch_id}.jsonl'
  agent-runner schedule create hourly-triage --every 1h --overlap buffer-one \\
    --prompt "Triage the new issues in ISSUES.md" -- --permission-mode acceptEdits --cwd ~/src/app
  agent-runner schedule create smoke --every 10m --catchup-window 5m --paused -- smoke.jsonl
See docs/schedules.md.`;

const GROUP_HELP = `
Examples:
  agent-runner schedule create nightly --cron "0 3 * * *" -- tasks.jsonl --concurrency 8
  agent-runner schedule list                     # state, times, next and last fire
  agent-runner schedule describe nightly --json  # policies, counts, recent fires and their batch ids
  agent-runner schedule pause nightly --note "release freeze"
  agent-runner schedule unpause nightly
  agent-runner schedule trigger nightly          # one fire now
  agent-runner schedule delete nightly
  agent-runner list --batch nightly-20261203T030000Z   # the sessions of one fire
See \`agent-runner schedule create --help\` and docs/schedules.md.`;

/** Adds `schedule create|list|describe|pause|unpause|trigger|delete` to the program. */
export function addScheduleCommands(
  program: Command,
  setExit: (code: number) => void,
  config: () => Promise<Config>,
  checkBatchArgs: BatchArgsCheck,
): void {
  const io = { stdout: out, stderr: err };
  const schedule = program
    .command('schedule')
    .description(
      'run a batch (or one prompt) on a Temporal Schedule: nightly runs without a CI cron (docs/schedules.md)',
    )
    .addHelpText('after', GROUP_HELP);
  schedule
    .command('create')
    .description('create a schedule that runs a task file (or --prompt) as a new batch at each fire')
    .argument('<id>', "schedule id: letters, digits, _ . : - (up to 100); the prefix of every fire's batch id")
    .argument('[batch-args...]', 'after --: the task file, then the batch flags of every fire')
    .option('--every <duration>', 'fire at this interval: 30s, 15m, 1h30m, 1d, 1w (from the Unix epoch, UTC)')
    .option('--offset <duration>', 'with --every: shift the fires by this much (--every 1d --offset 3h: 03:00 UTC)')
    .option(
      '--cron <expression>',
      'fire at these times: 5 fields "min hour day-of-month month day-of-week" or @daily, @hourly, …',
    )
    .option('--timezone <tz>', 'IANA time zone of --cron (default: UTC), e.g. Europe/Paris')
    .option(
      '--overlap <policy>',
      'when a fire comes while the previous batch still runs: skip (default), buffer-one, buffer-all, cancel-other, terminate-other, allow-all',
    )
    .option(
      '--catchup-window <duration>',
      'after an outage of the server, run missed fires scheduled within this long ago (default: 1d; at least 10s)',
    )
    .option('--prompt <text>', 'run this one prompt at each fire (a batch of one task) instead of a task file')
    .option(
      '--pause-on-failure',
      'pause the schedule when a fire fails (the batch refused to run: a missing file, a bad flag)',
    )
    .option('--paused', 'create it paused (start it with: agent-runner schedule unpause <id>)')
    .option('--note <text>', 'a note kept with the schedule state (shown by describe and list --json)')
    .option('--json', 'print the created schedule as JSON')
    .addHelpText('after', CREATE_HELP)
    .action(async (id: string, batchArgs: string[], _o: unknown, cmd: Command) => {
      const { runScheduleCreate } = await import('./commands/schedule');
      setExit(
        await runScheduleCreate(
          await config(),
          id,
          batchArgs,
          cmd.optsWithGlobals<ScheduleCreateFlags>(),
          io,
          checkBatchArgs,
        ),
      );
    });
  schedule
    .command('list')
    .description("the runner's schedules: state, when, next fire, last fire, task file")
    .option('--json', "one JSON object per line (with each recent fire's batch id)")
    .action(async (_o: unknown, cmd: Command) => {
      const { runScheduleList } = await import('./commands/schedule');
      setExit(await runScheduleList(await config(), cmd.optsWithGlobals<{ json?: boolean }>(), io));
    });
  schedule
    .command('describe')
    .description("a schedule's times, policies, batch flags, counts and recent fires with their batch ids")
    .argument('<id>', 'schedule id')
    .option('--json', 'print it as JSON')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const { runScheduleDescribe } = await import('./commands/schedule');
      setExit(await runScheduleDescribe(await config(), id, cmd.optsWithGlobals<{ json?: boolean }>(), io));
    });
  const ops = [
    ['pause', 'stop firing until unpaused (a running fire keeps running)'],
    ['unpause', 'fire again at the next scheduled time (missed fires within the catch-up window run)'],
    ['trigger', 'fire once now, as scheduled for the current time (the overlap policy applies)'],
    ['delete', 'delete the schedule (a running fire keeps running; its batch can be re-run by id)'],
  ] as const;
  for (const [op, description] of ops) {
    const c = schedule.command(op).description(description).argument('<id>', 'schedule id');
    if (op === 'pause' || op === 'unpause') c.option('--note <text>', 'why (kept with the schedule state)');
    c.action(async (id: string, _o: unknown, cmd: Command) => {
      const { runScheduleOperation } = await import('./commands/schedule');
      setExit(await runScheduleOperation(await config(), id, op, cmd.optsWithGlobals<{ note?: string }>(), io));
    });
  }
}
