import { Command, Option } from 'commander';
import { ConfigError, loadConfig } from '../config';
import type { Config } from '../config';
import { RUNNER_VERSION } from '../common/version';
import { EXIT, OUTPUT_FORMATS } from './output';
import type { PrintFlags } from './commands/print';
import { runPrint } from './commands/print';
import { runServer, runWorker } from './commands/worker';
import { UsageError } from './turn-options';
import { NoPromptError } from './stdin';
import { TemporalCliNotFoundError } from '../worker/dev-server';
import { EmbeddedServerBusyError } from '../worker/server-lock';

const out = (s: string): void => {
  process.stdout.write(`${s}\n`);
};
const err = (s: string): void => {
  process.stderr.write(`${s}\n`);
};

function config(program: Command): Config {
  const path = program.opts<{ config?: string }>().config;
  return loadConfig(path ? { path } : {});
}

/** Builds the `agent-runner` command line (exported for tests of `--help`). */
export function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('agent-runner');
  program
    .description(
      'Run an LLM coding agent whose every turn is a durable Temporal workflow.\n' +
        'Drop-in for `claude -p`: same flags, same stream-json messages, same exit semantics.\n' +
        'With no server configured, -p starts an embedded Temporal dev server and worker,\n' +
        'persisted under the data directory (~/.agent-runner, or AGENT_RUNNER_DATA_DIR).',
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
    .option('--max-turns <n>', 'stop after N model calls (result error_max_turns)')
    .option('--max-budget-usd <usd>', 'stop once the estimated cost reaches USD (result error_max_budget_usd)')
    .option('--task-budget <tokens>', 'output-token budget: nudge the model to continue while under 90% of it')
    .option('--model <id>', 'model id (default: model.name in temporal.yaml, or AGENT_RUNNER_MODEL)')
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
    .option('--append-system-prompt <text>', 'append to the system prompt')
    .option('--budget-pool <id>', 'report spend to this shared budget pool (see `agent-runner pool`)')
    .option('--verbose', 'print progress (tool calls, results, server start) on stderr')
    .option(
      '--config <file>',
      'config file (default: ./temporal.yaml if present, else built-in defaults; env AGENT_RUNNER_CONFIG)',
    )
    .addHelpText(
      'after',
      `
Exit codes: 0 success; 1 error result (max turns, budget, model or tool failure) or failed run;
2 usage or configuration error, including a missing Temporal CLI (nothing was run).

Environment: ANTHROPIC_API_KEY (worker side), ANTHROPIC_BASE_URL, TEMPORAL_ADDRESS,
TEMPORAL_NAMESPACE, AGENT_RUNNER_TASK_QUEUE, AGENT_RUNNER_DATA_DIR, AGENT_RUNNER_MODEL,
TEMPORAL_CLI_PATH, AGENT_RUNNER_CONFIG.

Examples:
  agent-runner -p "fix the failing test" --permission-mode acceptEdits --allowedTools Bash
  git diff | agent-runner -p --output-format json
  agent-runner -p --resume <session-id> "now update the changelog"
  agent-runner server          # shared dev server + worker; -p runs then use it`,
    )
    .action(async (prompt: string | undefined, flags: PrintFlags) => {
      setExit(await runPrint(config(program), prompt, flags, { stdout: out, stderr: err }));
    });

  program
    .command('worker')
    .description('run a worker for the configured server (temporal.address) or a running `agent-runner server`')
    .action(async () => {
      setExit(await runWorker(config(program), err));
    });
  program
    .command('server')
    .description('run the embedded Temporal dev server plus a worker in the foreground, printing the Web UI address')
    .option('--no-ui', 'do not serve the Temporal Web UI')
    .action(async (opts: { ui: boolean }) => {
      setExit(await runServer(config(program), err, opts.ui));
    });
  return program;
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
    if (
      e instanceof ConfigError ||
      e instanceof UsageError ||
      e instanceof NoPromptError ||
      e instanceof TemporalCliNotFoundError ||
      e instanceof EmbeddedServerBusyError
    ) {
      err(`agent-runner: ${e.message}`);
      return EXIT.usage;
    }
    err(`agent-runner: ${e instanceof Error ? e.message : String(e)}`);
    return EXIT.error;
  }
}

if (require.main === module) {
  main(process.argv).then(
    (code) => process.exit(code),
    (e: unknown) => {
      err(String(e));
      process.exit(EXIT.error);
    },
  );
}
