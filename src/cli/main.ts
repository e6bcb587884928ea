/**
 * The `agent-runner` command line. Only commander and the option tables load at start-up; each
 * command imports what it uses when it runs, so `--help`, `--version` and usage errors never load
 * Temporal, the worker, the bundler or the dev-server launcher (and control commands load no worker).
 */
import { Command, Option } from 'commander';
import type { Config } from '../config';
import { RUNNER_VERSION } from '../common/version';
import { EXIT, INPUT_FORMATS, OUTPUT_FORMATS } from './output';
import { isUsageError } from '../common/errors';
import type { PrintFlags } from './commands/print';
import type { BatchFlags } from './commands/batch';
import type { ListFlags } from './commands/list';
import type { StatusFlags } from './commands/status';
import type { InterruptFlags } from './commands/interrupt';
import type { LimitsFlags } from './commands/limits';
import type { PoolCreateFlags } from './commands/pool';
import type { RatePoolFlags } from './commands/rate-pool';
import type { ApprovalsAnswerFlags, ApprovalsListFlags } from './commands/approvals';
import type { AttachFlags } from './commands/attach';
import type { StoreCopyFlags, StoreMigrateFlags } from './commands/store';
import type { WorkspaceExportFlags } from './commands/workspace';
import type { WorkerFlags } from './commands/worker';
import { errorText } from './error-text';
import { addScheduleCommands } from './schedule-program';
import { UsageError } from './usage-error';

const out = (s: string): void => {
  process.stdout.write(`${s}\n`);
};
const err = (s: string): void => {
  process.stderr.write(`${s}\n`);
};

async function config(program: Command): Promise<Config> {
  const { loadConfig } = await import('../config');
  const path = program.opts<{ config?: string }>().config;
  return loadConfig(path ? { path } : {});
}

/** Builds the `agent-runner` command line (exported for tests of `--help`). */
export function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('agent-runner');
  program
    .description(
      // Paragraphs without manual line breaks: commander wraps them to the terminal's width.
      'Run an LLM coding agent whose every turn is a durable Temporal workflow. ' +
        'Drop-in for `claude -p`: same flags, same stream-json messages, same exit semantics.\n\n' +
        'With no server configured or running, the first -p starts a shared Temporal dev server ' +
        'and worker in the background (stopped after 10 idle minutes); later and parallel runs ' +
        'use it. Its data lives under ~/.agent-runner (or AGENT_RUNNER_DATA_DIR).',
    )
    .version(RUNNER_VERSION)
    .argument('[prompt]', 'the task; read from stdin when absent (with -p)')
    .option('-p, --print', 'run one turn without interaction and print the result (the only mode)')
    .addOption(
      new Option(
        '--output-format <format>',
        'text: final answer; json: one result object; stream-json: one message per line',
      )
        .choices(OUTPUT_FORMATS)
        .default('text'),
    )
    .addOption(
      new Option(
        '--input-format <format>',
        'text: the prompt; stream-json: user messages and control requests as JSON lines on stdin (Agent SDK protocol)',
      )
        .choices(INPUT_FORMATS)
        .default('text'),
    )
    .option(
      '--include-partial-messages',
      "with --output-format stream-json: stream_event messages with the model's deltas while each call streams",
    )
    .option(
      '--replay-user-messages',
      'with stream-json input and output: echo each user message back once it is recorded (isReplay: true)',
    )
    .option(
      '--fork-session',
      'with --resume or --continue: continue in a new session that starts as a copy of the old one',
    )
    .option(
      '--no-session-persistence',
      'refused: the transcript store is what makes a turn durable, so sessions are always persisted',
    )
    .option(
      '--permission-prompt-tool <tool>',
      'stdio: ask the Agent SDK (canUseTool) over the stream-json control protocol; calls then wait for approval',
    )
    .option('--wait-for-approval', 'calls that would need a prompt wait for `agent-runner approvals approve|deny`')
    .option('--approval-timeout <seconds>', 'longest wait for an approval, then --approval-default (default: 86400)')
    .addOption(
      new Option('--approval-default <decision>', 'decision when an approval times out (default: deny)').choices([
        'allow',
        'deny',
      ]),
    )
    .option(
      '--setting-sources <sources>',
      'comma-separated sources of settings (rules, hooks) and memory (CLAUDE.md) files to read: user, project, local (default: all; "" for none)',
    )
    .option('--settings <file-or-json>', 'a settings file or a JSON string to load more settings from')
    .option('--add-dir <directories...>', 'more directories the tools may read and edit')
    .option(
      '--plugin-dir <dir>',
      'load a Claude Code plugin from a local directory (its commands, skills, agents, hooks and MCP servers); repeatable',
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    )
    .option(
      '--agents <json>',
      'custom agent types for the Agent tool, as JSON: {"name": {"description": "...", "prompt": "...", "tools": [...], "model": "..."}}',
    )
    .option(
      '--bare',
      'no CLAUDE.md, git status, hooks, plugins, skills or custom commands; only Bash, Edit and Read (the mode for scripts)',
    )
    .option(
      '--allow-dangerously-skip-permissions',
      'accepted for compatibility (the Agent SDK sends it); bypassing still needs --permission-mode bypassPermissions',
    )
    .option('--max-turns <n>', 'stop after N model calls (result error_max_turns)')
    .option('--max-budget-usd <usd>', 'stop once the estimated cost reaches USD (result error_max_budget_usd)')
    .option('--task-budget <tokens>', 'output-token budget: nudge the model to continue while under 90% of it')
    .option('--model <id>', 'model id (default: model.name in temporal.yaml, or AGENT_RUNNER_MODEL)')
    .option('--fallback-model <id>', 'model to switch to when the model keeps answering overloaded (529)')
    .option(
      '--batch-api',
      'send model calls through the Message Batches API at half price; turns wait on durable timers (docs/batch-api.md)',
    )
    .option('--effort <level>', 'effort of the model: low | medium | high | xhigh | max (models that take one)')
    .option(
      '--max-thinking-tokens <n>',
      'thinking budget of models that think with one (4.x; 0 = no thinking); 5.x models think adaptively',
    )
    .addOption(new Option('--thinking <mode>', 'adaptive | enabled | disabled (as the Agent SDK passes it)').hideHelp())
    .addOption(new Option('--thinking-display <display>', 'updates | summarized | omitted').hideHelp())
    .option(
      '--json-schema <schema>',
      'JSON Schema (JSON text or a file) for a structured answer: result.structured_output',
    )
    .option('--cwd <dir>', 'working directory the tools run in (default: the current directory)')
    .option('--session-id <uuid>', 'use this id for a new session')
    .option('-r, --resume <sessionId>', 'continue an earlier session (rebuilt from its transcript)')
    .option('-c, --continue', 'continue the most recent session of this directory')
    .option('--permission-mode <mode>', 'default | acceptEdits | bypassPermissions | plan | dontAsk (default: default)')
    .option('--dangerously-skip-permissions', 'same as --permission-mode bypassPermissions')
    .option(
      '--allowedTools, --allowed-tools <tools...>',
      'tools that run without asking, e.g. "Bash Edit" or "Bash(git *)"',
    )
    .option('--disallowedTools, --disallowed-tools <tools...>', 'tools that never run')
    .option('--tools <tools...>', 'tools offered to the model (default: Read Write Edit Bash Glob Grep)')
    .option('--system-prompt <text>', 'replace the default system prompt')
    .option('--system-prompt-file <file>', 'replace the default system prompt with the text of a file')
    .option('--append-system-prompt <text>', 'append to the system prompt')
    .option('--mcp-config <configs...>', 'MCP servers: JSON files or strings ({"mcpServers": {…}}, as claude)')
    .option('--strict-mcp-config', 'use only the servers of --mcp-config (agent-runner reads no other MCP config)')
    .option('--append-system-prompt-file <file>', 'append the text of a file to the system prompt')
    .option('--budget-pool <id>', 'report spend to this shared budget pool (see `agent-runner pool`)')
    .option(
      '--rate-pool <id>',
      'lease every model call from this shared rate pool (requests/tokens per minute; started if missing; env AGENT_RUNNER_RATE_POOL)',
    )
    .option('--rate-priority <n>', "the leases' priority in the rate pool: 1 (first) to 5 (last), default 3")
    .option('--verbose', 'print progress (tool calls, results, server start) on stderr')
    .option(
      '--no-daemon',
      'with no server running, run a private embedded server in this process instead of starting the shared ' +
        'background one (env AGENT_RUNNER_NO_DAEMON=1)',
    )
    .option(
      '--config <file>',
      'config file (default: ./temporal.yaml if present, else built-in defaults; env AGENT_RUNNER_CONFIG)',
    )
    .addHelpText(
      'after',
      `
Exit codes: 0 success; 1 error result (max turns, budget, model or tool failure) or failed run;
2 usage or configuration error, including a missing Temporal CLI or an unreachable
configured server (nothing was run).

Environment: ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL (read by the worker: with a shared
server or a configured cluster, the values it was started with apply), TEMPORAL_ADDRESS,
TEMPORAL_NAMESPACE, AGENT_RUNNER_TASK_QUEUE, AGENT_RUNNER_DATA_DIR, AGENT_RUNNER_MODEL,
TEMPORAL_CLI_PATH, AGENT_RUNNER_CONFIG, AGENT_RUNNER_STORE_URL, AGENT_RUNNER_NO_DAEMON.

Examples:
  agent-runner -p "fix the failing test" --permission-mode acceptEdits --allowedTools Bash
  git diff | agent-runner -p --output-format json
  agent-runner -p --resume <session-id> "now update the changelog"
  agent-runner server status   # the shared server: address, Web UI, running turns
  agent-runner server stop     # stop it (the next -p starts it again)`,
    )
    .action(async (prompt: string | undefined, flags: PrintFlags) => {
      const { runPrint } = await import('./commands/print');
      setExit(await runPrint(await config(program), prompt, flags, { stdout: out, stderr: err }));
    });

  program
    .command('worker')
    .description('run a worker for the configured server (temporal.address) or a running `agent-runner server`')
    .option(
      '--deployment-name <name>',
      'Worker Deployment of this worker: turns on Worker Versioning (worker.deploymentName, AGENT_RUNNER_DEPLOYMENT_NAME)',
    )
    .option(
      '--build-id <id>',
      "this release's build id in the deployment (worker.buildId, AGENT_RUNNER_BUILD_ID; default: agent-runner@<version>+<bundle hash>)",
    )
    .addOption(
      new Option(
        '--versioning-behavior <behavior>',
        'workflows without their own behaviour: PINNED or AUTO_UPGRADE (worker.defaultVersioningBehavior)',
      ).choices(['PINNED', 'AUTO_UPGRADE'] satisfies Array<WorkerFlags['versioningBehavior']>),
    )
    .action(async (flags: WorkerFlags) => {
      const { runWorker, withVersioningFlags } = await import('./commands/worker');
      setExit(await runWorker(withVersioningFlags(await config(program), flags), err));
    });
  program
    .command('attach')
    .description("print a session's latest turn, running or finished: its stream (as it goes on) and its result")
    .argument('<session>', 'session id')
    .addOption(
      new Option('--output-format <format>', 'text: final answer; json: the result; stream-json: every message')
        .choices(OUTPUT_FORMATS)
        .default('text'),
    )
    .option('--turn <n>', 'the n-th turn of the session instead of the latest')
    .action(async (session: string, _o: unknown, cmd: Command) => {
      const { runAttach } = await import('./commands/attach');
      const flags = cmd.optsWithGlobals<AttachFlags>();
      setExit(await runAttach(await config(program), session, flags, { stdout: out, stderr: err }));
    });
  const server = program
    .command('server')
    .description(
      'run the shared Temporal dev server plus a worker in the foreground (Web UI address printed); ' +
        '`server status` / `server stop` for the one of this data directory',
    )
    .option('--no-ui', 'do not serve the Temporal Web UI')
    .addOption(new Option('--background', 'run as the background server a run starts (stops when idle)').hideHelp())
    .action(async (opts: { ui: boolean; background?: boolean }) => {
      const { runServer } = await import('./commands/worker');
      setExit(await runServer(await config(program), err, opts));
    });
  server
    .command('status')
    .description('is a shared server running for this data directory? where, since when, how many turns (exit 1: none)')
    .option('--json', 'print the status as JSON')
    .action(async (opts: { json?: boolean }) => {
      const { runServerStatus } = await import('./commands/server');
      setExit(await runServerStatus(await config(program), opts, { stdout: out, stderr: err }));
    });
  server
    .command('stop')
    .description('stop the shared server of this data directory (running turns continue when a server runs again)')
    .action(async () => {
      const { runServerStop } = await import('./commands/server');
      setExit(await runServerStop(await config(program), { stdout: out, stderr: err }));
    });
  program
    .command('batch')
    .description('run every task of a JSONL file as its own session; re-running the same command resumes it')
    .argument('<tasks-file>', 'one JSON object per line: {"id", "prompt", "cwd" or "repo", "maxTurns", …}')
    .option('--concurrency <n>', 'tasks running at once (default: 4)')
    .option('--out <file>', 'write one result message per task (JSONL, with task_id); "-" for stdout')
    .option('--batch-id <id>', "batch id (default: from the file's absolute path and content hash)")
    .option('--task-max-budget-usd <usd>', "budget of each task (a task's own maxBudgetUsd wins)")
    .option('--worker', 'also run a worker in this process (default: only with the embedded server)')
    .option('--retry-failed', 'run again (as new sessions) only the tasks whose latest run ended in an error result')
    .option('--progress <mode>', 'auto | bar | lines | none (default: auto: a bar on a terminal, lines otherwise)')
    .option('--progress-interval <s>', 'seconds between progress lines in lines mode (default: 10)')
    .addHelpText(
      'after',
      `
Also applies (as defaults of every task): --max-turns, --model, --permission-mode,
--dangerously-skip-permissions, --allowedTools, --disallowedTools, --tools, --system-prompt,
--append-system-prompt, --task-budget, --cwd (directory of tasks without cwd/repo), --config.
--max-budget-usd <usd> is the budget of the WHOLE batch (a shared budget pool): once spent,
running tasks stop with error_max_budget_usd and no more tasks start.

Exit codes: 0 every task succeeded; 1 a task failed or a line was skipped; 2 usage error
(bad flag, unreadable file, no valid task); 130 interrupted (re-run to resume).
See docs/batch.md.`,
    )
    .action(async (file: string, _opts: BatchFlags, cmd: Command) => {
      const flags = cmd.optsWithGlobals<BatchFlags>();
      const { runBatchCommand } = await import('./commands/batch');
      setExit(
        await runBatchCommand(
          await config(program),
          file,
          flags,
          { stdout: out, stderr: err, progressStream: process.stderr },
          // The command line as typed (after `agent-runner`): suggested re-runs repeat every flag.
          // Commander keeps the parsed argv in `rawArgs` (not in its typings).
          ((program as Command & { rawArgs?: string[] }).rawArgs ?? process.argv).slice(2),
        ),
      );
    });
  program
    .command('list')
    .description('list sessions: status, cost, model, cwd and the first line of the prompt (batch and task too)')
    .option('--batch <id>', 'only the sessions of this batch')
    .option('--status <status>', 'only sessions with this status (running, success, error_max_turns, …)')
    .option('--query <query>', 'extra Temporal visibility query, e.g. "StartTime > \'2026-01-01T00:00:00Z\'"')
    .option('--limit <n>', 'at most N sessions, most recent first (default: 200)')
    .option('--json', 'one JSON object per line instead of a table')
    .action(async (opts: ListFlags) => {
      const { runList } = await import('./commands/list');
      setExit(await runList(await config(program), opts, { stdout: out, stderr: err }));
    });
  addControlCommands(program, setExit);
  addApprovalCommands(program, setExit);
  addStoreCommands(program, setExit);
  addScheduleCommands(program, setExit, () => config(program), checkBatchArgs);
  program
    .command('workspace')
    .description("a session's working tree (recorded as git snapshots in the store)")
    .command('export')
    .description('rebuild the working tree of a session (base commit + last snapshot) in a new directory')
    .argument('<session>', 'session id')
    .option('--to <dir>', 'target directory (must not exist or be empty)')
    .action(async (session: string, opts: WorkspaceExportFlags) => {
      const { runWorkspaceExport } = await import('./commands/workspace');
      setExit(await runWorkspaceExport(await config(program), session, opts, { stdout: out }));
    });
  return program;
}

/** `store migrate` and `store copy`: the transcript store itself (see docs/deploy.md). */
function addStoreCommands(program: Command, setExit: (code: number) => void): void {
  const io = { stdout: out, stderr: err };
  const store = program
    .command('store')
    .description('the transcript store: apply PostgreSQL migrations, copy sessions between stores');
  store
    .command('migrate')
    .description('bring the PostgreSQL schema up to date (workers also do it when they start)')
    .option('--url <url>', 'store URL (default: store.url / AGENT_RUNNER_STORE_URL)')
    .action(async (opts: StoreMigrateFlags) => {
      const { runStoreMigrate } = await import('./commands/store');
      setExit(await runStoreMigrate(await config(program), opts, io));
    });
  store
    .command('copy')
    .description('copy sessions (lines, run markers, content) between stores; re-running copies what is missing')
    .option('--from <url>', 'source: postgres://…, jsonl:DIR, or "config" (the configured store)')
    .option('--to <url>', 'target: postgres://…, jsonl:DIR, or "config"')
    .option('--session <id...>', 'only these sessions (default: all)')
    .action(async (opts: StoreCopyFlags) => {
      const { runStoreCopy } = await import('./commands/store');
      setExit(await runStoreCopy(await config(program), opts, io));
    });
}

/**
 * Checks a schedule's `batch` arguments (`<file> [flags]`) against the `batch` command's own
 * definition, running nothing: an unknown flag or a missing value is refused when the schedule is
 * created, not at its first fire.
 * @throws UsageError with commander's message
 */
function checkBatchArgs(argv: string[]): void {
  const probe = buildProgram(() => undefined);
  const silent = { writeOut: (): void => undefined, writeErr: (): void => undefined };
  probe.exitOverride().configureOutput(silent);
  const batch = probe.commands.find((c) => c.name() === 'batch');
  if (!batch) throw new Error('checkBatchArgs: no batch command');
  batch
    .exitOverride()
    .configureOutput(silent)
    .action(() => undefined);
  try {
    probe.parse(['batch', ...argv], { from: 'user' });
  } catch (e) {
    const message = e instanceof Error ? e.message.replace(/^error: /, '') : String(e);
    throw new UsageError(`schedule create: the batch arguments ${JSON.stringify(argv.slice(1).join(' '))}: ${message}`);
  }
}

/**
 * `status`, `interrupt`, `limits` and `pool`: commands that act on running sessions and budget
 * pools. They need a reachable server (temporal.address or a running `agent-runner server`).
 * Flags that the root command also has (`--max-budget-usd`, `--max-turns`, `--task-budget`) are
 * parsed by the root, so the actions read them with `optsWithGlobals()`.
 */
function addControlCommands(program: Command, setExit: (code: number) => void): void {
  const io = { stdout: out, stderr: err };
  program
    .command('status')
    .description("show a session's turns, usage, cost and limits, and what its running turn is doing")
    .argument('<session>', 'session id')
    .option('--json', 'print the status as JSON')
    .action(async (session: string, _o: StatusFlags, cmd: Command) => {
      const { runStatus } = await import('./commands/status');
      setExit(await runStatus(await config(program), session, cmd.optsWithGlobals<StatusFlags>(), io));
    });
  program
    .command('interrupt')
    .description("stop a session's running turn cleanly (it ends with error_during_execution; resume continues)")
    .argument('<session>', 'session id')
    .option('--reason <text>', 'reason recorded in the result errors')
    .option('--json', 'print the outcome as JSON')
    .action(async (session: string, _o: InterruptFlags, cmd: Command) => {
      const { runInterrupt } = await import('./commands/interrupt');
      setExit(await runInterrupt(await config(program), session, cmd.optsWithGlobals<InterruptFlags>(), io));
    });
  program
    .command('limits')
    .description('show or change the limits of a session (and its running turn) or of a budget pool')
    .argument('<target>', 'session id or budget pool id')
    .option('--max-budget-usd <usd>', 'USD limit ("none" removes it; for a pool: the pool limit)')
    .option('--max-turns <n>', 'model calls per turn ("none" removes it)')
    .option('--task-budget <tokens>', 'output-token budget per turn ("none" removes it)')
    .option('--pool', 'the target is a budget pool')
    .option('--session', 'the target is a session')
    .option('--json', 'print the limits as JSON')
    .action(async (target: string, _o: LimitsFlags, cmd: Command) => {
      const { runLimits } = await import('./commands/limits');
      setExit(await runLimits(await config(program), target, cmd.optsWithGlobals<LimitsFlags>(), io));
    });
  const pool = program
    .command('pool')
    .description('shared budget pools (one USD limit for many turns) and rate pools (see docs/limits.md)');
  pool
    .command('create')
    .description('start a budget pool (no-op if it is already running)')
    .argument('<id>', 'pool id (letters, digits, . _ : -)')
    .option('--max-budget-usd <usd>', 'the limit of the pool in USD (required)')
    .option('--json', 'print the pool as JSON')
    .action(async (id: string, _o: PoolCreateFlags, cmd: Command) => {
      const { runPoolCreate } = await import('./commands/pool');
      setExit(await runPoolCreate(await config(program), id, cmd.optsWithGlobals<PoolCreateFlags>(), io));
    });
  pool
    .command('rate')
    .description(
      'start (if missing) and show a rate pool: requests/tokens per minute leased to every turn run with --rate-pool <id>',
    )
    .argument('<id>', 'pool id (letters, digits, . _ : -)')
    .option('--rpm <n>', "requests per minute (default: learned from the API's anthropic-ratelimit-* headers)")
    .option('--itpm <n>', 'input tokens per minute (default: learned)')
    .option('--otpm <n>', 'output tokens per minute (default: learned)')
    .option('--json', 'print the pool as JSON')
    .action(async (id: string, _o: RatePoolFlags, cmd: Command) => {
      const { runRatePool } = await import('./commands/rate-pool');
      setExit(await runRatePool(await config(program), id, cmd.optsWithGlobals<RatePoolFlags>(), io));
    });
  pool
    .command('list')
    .description(
      'every budget pool: status (open, exhausted, completed; unknown when no worker answered within 5 s), limit, spend and members',
    )
    .option('--json', 'one JSON object per line')
    .action(async (_o: { json?: boolean }, cmd: Command) => {
      const { runPoolList } = await import('./commands/pool');
      setExit(await runPoolList(await config(program), cmd.optsWithGlobals<{ json?: boolean }>(), io));
    });
  pool
    .command('close')
    .description('close a pool: its workflow ends with its final spend (refused while turns are in it, unless --force)')
    .argument('<id>', 'pool id')
    .option('--force', 'close it even with running turns in it (they go on without its limit)')
    .option('--json', 'print the final state as JSON')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const { runPoolClose } = await import('./commands/pool');
      setExit(
        await runPoolClose(await config(program), id, cmd.optsWithGlobals<{ force?: boolean; json?: boolean }>(), io),
      );
    });
  pool
    .command('show')
    .description("show a pool's limit, spend, members and status")
    .argument('<id>', 'pool id')
    .option('--json', 'print the pool as JSON')
    .action(async (id: string, _o: { json?: boolean }, cmd: Command) => {
      const { runPoolShow } = await import('./commands/pool');
      setExit(await runPoolShow(await config(program), id, cmd.optsWithGlobals<{ json?: boolean }>(), io));
    });
}

/** `approvals list|approve|deny|answer`: durable human approvals (src/cli/commands/approvals.ts). */
function addApprovalCommands(program: Command, setExit: (code: number) => void): void {
  const io = { stdout: out, stderr: err };
  const approvals = program
    .command('approvals')
    .description('tool calls that turns wait on for approval: list them, approve or deny them from any process');
  approvals
    .command('list')
    .description('pending approvals (all running sessions, or one)')
    .option('--session <id>', 'only this session')
    .option('--json', 'one JSON object per line')
    .action(async (o: ApprovalsListFlags) => {
      const { runApprovalsList } = await import('./commands/approvals');
      setExit(await runApprovalsList(await config(program), o, io));
    });
  for (const [name, behavior] of [
    ['approve', 'allow'],
    ['deny', 'deny'],
  ] as const) {
    approvals
      .command(name)
      .description(`${name} a pending tool call; the waiting turn goes on`)
      .argument('<approval-id>', 'id from `approvals list` (<session id>:<tool_use id>)')
      .option('--message <text>', behavior === 'deny' ? 'what the model is told' : 'note kept with the answer')
      .option('--json', 'print the outcome as JSON')
      .action(async (id: string, o: ApprovalsAnswerFlags) => {
        const { runApprovalsAnswer } = await import('./commands/approvals');
        setExit(await runApprovalsAnswer(await config(program), behavior, id, o, io));
      });
  }
  approvals.commands
    .find((c) => c.name() === 'approve')
    ?.option('--updated-input <json>', 'run the tool with this input instead')
    .option(
      '--answers <json>',
      'AskUserQuestion: the choices, {"<question>": "<label>", …} (several labels joined by ", ")',
    );
  approvals
    .command('answer')
    .description(
      'answer from JSON ({"approvalId", "behavior": "allow"|"deny", "message"?, "updatedInput"?, "answers"?}); prints JSON',
    )
    .argument('[json]', 'the answer; read from stdin when absent')
    .action(async (json: string | undefined) => {
      const text = json ?? (await readStdinText());
      const { runApprovalsJson } = await import('./commands/approvals');
      setExit(await runApprovalsJson(await config(program), text, io));
    });
}

async function readStdinText(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A reader that closes our stdout early (`agent-runner --help | head`) ends the process quietly
 * with the exit code so far, instead of an unhandled `EPIPE` error with a stack trace.
 */
function exitQuietlyOnClosedPipe(code: () => number): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(code());
      throw e;
    });
  }
}

/** Entry point of the `agent-runner` binary. */
export async function main(argv: string[]): Promise<number> {
  let code: number = EXIT.success;
  const program = buildProgram((c) => {
    code = c;
  });
  program.exitOverride();
  program.configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });
  try {
    await program.parseAsync(argv);
    return code;
  } catch (e: unknown) {
    const ce = e as { code?: string; exitCode?: number };
    if (ce.code === 'commander.helpDisplayed' || ce.code === 'commander.version' || ce.code === 'commander.help')
      return 0;
    if (typeof ce.code === 'string' && ce.code.startsWith('commander.')) return EXIT.usage;
    // "Nothing was run because of how it was called or configured" (an AgentRunnerError of kind
    // `usage`, src/common/errors.ts): the message without a stack, exit 2.
    if (isUsageError(e)) {
      err(`agent-runner: ${e.message}`);
      return EXIT.usage;
    }
    const { fileSystemReason } = await import('../host/preflight');
    const fsReason = fileSystemReason(e);
    const fsPath = (e as NodeJS.ErrnoException).path;
    if (fsReason !== null && fsPath !== undefined) {
      err(
        `agent-runner: cannot write ${fsPath}: ${fsReason}. ` +
          'Choose a writable data directory with AGENT_RUNNER_DATA_DIR (or dataDir in temporal.yaml).',
      );
      return EXIT.error;
    }
    if (fsReason !== null) {
      // A write on an open file (no path in the error): the data directory is where it goes.
      err(
        `agent-runner: a write to the data directory failed: ${fsReason} (${(e as NodeJS.ErrnoException).code}). ` +
          'Free space or make it writable (AGENT_RUNNER_DATA_DIR, or dataDir in temporal.yaml), then run again; ' +
          'a session that started resumes with --resume.',
      );
      return EXIT.error;
    }
    err(`agent-runner: ${errorText(e)}`);
    return EXIT.error;
  }
}

/**
 * Runs `agent-runner` as a program (the `bin` script): `main`, then `process.exit` with its code;
 * an early-closed stdout ends it quietly.
 */
export function runBinary(argv: string[]): void {
  let code: number = EXIT.success;
  exitQuietlyOnClosedPipe(() => code);
  main(argv).then(
    (c) => {
      code = c;
      exitWhenFlushed(c);
    },
    (e: unknown) => {
      err(String(e instanceof Error && e.stack ? e.stack : e));
      exitWhenFlushed(EXIT.error);
    },
  );
}

/**
 * Exits with `code` once stdout and stderr have handed everything written to them to the OS. A
 * pipe's writes may be queued (a reader slower than us, a full 64 KiB pipe buffer); `process.exit`
 * at once would drop the rest of the output.
 */
export function exitWhenFlushed(code: number): void {
  // A reader that never reads again must not hold the process forever.
  setTimeout(() => process.exit(code), FLUSH_TIMEOUT_MS).unref();
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

/** Longest wait for stdout and stderr to drain at exit, in ms. */
const FLUSH_TIMEOUT_MS = 10_000;

if (require.main === module) runBinary(process.argv);
