import { ensureRatePool } from '../../client/rate-pool';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { resolve } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import type { Config } from '../../config';
import type { SDKMessage, SDKResultMessage } from '../../common/sdk-messages';
import type { QueryEngine } from '../../client/query-engine';
import type { Runtime } from '../../host/runtime';
import type { InputFormat, OutputFormat } from '../output';
import { EXIT, describeMessage, exitCodeFor, textOutput, workspaceMoveNotice } from '../output';
import type { TurnFlags } from '../turn-options';
import { UsageError, modelNaming, positiveNumber, splitToolList, turnOptionsFrom } from '../turn-options';
import { unenforceableBudget } from '../budget-prices';
import { applySettings } from '../settings-options';
import type { LoadedSettings } from '../../config-files';
import { promptFromInput } from '../stdin';
import type { McpFlags } from '../mcp-options';
import { mcpConfigFromFlags, toolActivityBoundFor } from '../mcp-options';
import { activityTimeouts } from '../../workflows/timeouts';
import { hooksFromSettings, stopHookBlockCap, turnHooks } from '../hook-options';
import type { ApprovalSettings } from '../../common/approvals';
import type { ServerModeFlags } from '../server-mode';
import { serverModeOptions } from '../server-mode';
import { checkMemoryFiles } from '../memory-check';
import { positiveInt } from '../turn-options';
import type { DefinitionFlags } from '../definition-options';
import { bareOptions, runDefinitions } from '../definition-options';
import { mergeHooks } from '../../config-files/hooks';
import { mergeMcpConfigs } from '../../config-files/mcp-config';
import { toolSearchModeOf } from '../../common/session-tools';
import { APPROVER_DEFAULT_TOOL_NAMES } from '../../common/tools';
import { RunLimits, type RunLimitReached } from '../run-limits';

/** How often `-p` adds up its running agents' spend while they run (ms). */
const SPEND_WATCH_MS = 1000;

/** How long a signal's interrupt may take to reach the server before the run quits anyway (ms). */
const INTERRUPT_DELIVERY_MS = 5_000;

export { INPUT_FORMATS, type InputFormat } from '../output';

/** Flags of `agent-runner -p`. */
export interface PrintFlags extends TurnFlags, McpFlags, ServerModeFlags, DefinitionFlags {
  outputFormat: OutputFormat;
  /** `stream-json`: user messages and control requests as JSON lines on stdin (the Agent SDK's protocol). */
  inputFormat?: InputFormat;
  /** `stream_event` messages while each model call streams (stream-json output only). */
  includePartialMessages?: boolean;
  /** Echo each stdin user message once recorded (stream-json input and output). */
  replayUserMessages?: boolean;
  /** With `--resume`/`--continue`: continue in a new session that starts as a copy. */
  forkSession?: boolean;
  /** `false` for `--no-session-persistence` (refused). */
  sessionPersistence?: boolean;
  /** `stdio`: the Agent SDK's `canUseTool` answers approvals over the control protocol. */
  permissionPromptTool?: string;
  /** Calls that would need a prompt wait for an answer (`agent-runner approvals`). */
  waitForApproval?: boolean;
  /** Seconds an approval may wait. @default 86400 */
  approvalTimeout?: string;
  /** Decision when an approval times out. @default "deny" */
  approvalDefault?: 'allow' | 'deny';
  /** Which settings files to read (`user,project,local`); all by default. Their rules and hooks apply. */
  settingSources?: string;
  /** A settings file or JSON object, above the settings files. */
  settings?: string;
  /** More working directories. */
  addDir?: string[];
  cwd?: string;
  sessionId?: string;
  resume?: string | boolean;
  continue?: boolean;
  verbose?: boolean;
  /** `--json-schema`: JSON Schema text or file for structured output. */
  jsonSchema?: string;
}

/** Where `-p` writes; injectable for tests. */
export interface PrintIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Where `--input-format stream-json` reads from. @default process.stdin */
  stdin?: NodeJS.ReadableStream;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function pickSessionId(rt: Runtime, flags: PrintFlags, cwd: string): Promise<string> {
  const earlier = await earlierSession(rt, flags, cwd);
  if (earlier !== null && !flags.forkSession) return earlier;
  const id = await newSessionId(rt, flags);
  // --fork-session: the new session starts as a copy of the earlier one, which stays as it was.
  if (earlier !== null) {
    const { forkSession } = await import('../../client/fork-session');
    await forkSession(rt.store, earlier, id);
  }
  return id;
}

/** The session `--resume` or `--continue` names, or null. */
async function earlierSession(rt: Runtime, flags: PrintFlags, cwd: string): Promise<string | null> {
  if (typeof flags.resume === 'string') {
    if (!(await rt.store.exists(flags.resume))) {
      throw new UsageError(`--resume: no conversation found with session id ${flags.resume}`);
    }
    return flags.resume;
  }
  if (flags.continue) {
    const sessions = await rt.store.listSessions();
    const here = sessions.find((s) => s.cwd === cwd) ?? null;
    if (!here) throw new UsageError(`--continue: no earlier conversation found in ${cwd}`);
    return here.sessionId;
  }
  return null;
}

async function newSessionId(rt: Runtime, flags: PrintFlags): Promise<string> {
  if (flags.sessionId) {
    if (!UUID_RE.test(flags.sessionId)) throw new UsageError(`--session-id must be a UUID, got "${flags.sessionId}"`);
    if (await rt.store.exists(flags.sessionId)) {
      throw new UsageError(`--session-id ${flags.sessionId} is already in use; continue it with --resume`);
    }
    return flags.sessionId;
  }
  return randomUUID();
}

/**
 * `agent-runner -p`: runs one turn and prints it. Returns the exit code (0 success, 1 error
 * result or failed run, 2 usage/config error). The first Ctrl-C interrupts the turn cleanly
 * (the result still prints); a second one exits at once.
 */
export async function runPrint(
  config: Config,
  promptArg: string | undefined,
  flags: PrintFlags,
  io: PrintIo,
): Promise<number> {
  const cwd = resolve(flags.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`--cwd: ${cwd} is not a directory`);
  if (flags.resume === true) throw new UsageError('--resume needs a session id in print mode');
  let settingsHooks: LoadedSettings['hooks'] = [];
  let loadedSettings: LoadedSettings | undefined;
  let options = applySettings(turnOptionsFrom(config, flags, { warn: io.stderr }), flags, {
    cwd,
    dataDir: config.dataDir,
    naming: modelNaming(config),
    warn: (l) => io.stderr(`agent-runner: ${l}`),
    onLoaded: (loaded) => {
      loadedSettings = loaded;
      // `--bare` runs no hooks from settings (their permission rules still apply).
      settingsHooks = flags.bare ? [] : loaded.hooks;
    },
  });
  // Custom commands, skills, agents and plugins (none but skill names under --bare).
  const defs = runDefinitions(flags, {
    cwd,
    ...(loadedSettings ? { settings: loadedSettings } : {}),
    warn: (l) => io.stderr(`agent-runner: ${l}`),
  });
  options = { ...options, toolSearch: toolSearchModeOf(process.env['ENABLE_TOOL_SEARCH']) };
  if (flags.bare) options = bareOptions(options, cwd);
  // Checked before anything runs: a bad schema is a usage error (exit 2).
  // The JSON Schema validator (ajv) loads only when a schema is given.
  const jsonSchemaModule = flags.jsonSchema !== undefined ? await import('../../client/json-schema') : undefined;
  const jsonSchema =
    flags.jsonSchema !== undefined ? jsonSchemaModule?.readJsonSchemaOption(flags.jsonSchema, cwd) : undefined;
  const retries = positiveInt('MAX_STRUCTURED_OUTPUT_RETRIES', process.env['MAX_STRUCTURED_OUTPUT_RETRIES']);
  if (retries !== undefined) options.maxStructuredOutputRetries = retries;
  const flagMcp = mcpConfigFromFlags(flags, cwd);
  // A plugin's MCP servers and hooks join the run's (named and run as Claude Code does).
  const mcpConfig =
    Object.keys(defs.mcp.servers).length > 0 ? mergeMcpConfigs([...(flagMcp ? [flagMcp] : []), defs.mcp]) : flagMcp;
  if (mcpConfig) {
    // A long MCP_TOOL_TIMEOUT needs the tool activity to last longer than it.
    const bound = toolActivityBoundFor(mcpConfig, activityTimeouts(options.timeouts).toolStartToCloseMs);
    if (bound !== undefined) options = { ...options, timeouts: { ...options.timeouts, toolStartToCloseMs: bound } };
  }
  const settingsHookConfig = hooksFromSettings(settingsHooks, cwd, (m) => io.stderr(`agent-runner: ${m}`));
  const hooks =
    Object.keys(defs.hooks).length > 0 ? mergeHooks([settingsHookConfig ?? {}, defs.hooks]) : settingsHookConfig;
  const stopBlockCap = hooks ? stopHookBlockCap() : undefined;
  const streamInput = flags.inputFormat === 'stream-json';
  if (streamInput && flags.outputFormat !== 'stream-json') {
    throw new UsageError('--input-format stream-json requires --output-format stream-json');
  }
  if (streamInput && promptArg !== undefined) {
    throw new UsageError('with --input-format stream-json the prompts come on stdin; drop the prompt argument');
  }
  if (flags.sessionPersistence === false) {
    throw new UsageError(
      '--no-session-persistence is not supported: every turn is a durable workflow whose messages live in the ' +
        'transcript store (workflow history holds only references to them), so a session is always persisted',
    );
  }
  if (flags.replayUserMessages && !(streamInput && flags.outputFormat === 'stream-json')) {
    throw new UsageError('--replay-user-messages requires --input-format stream-json and --output-format stream-json');
  }
  if (flags.forkSession && typeof flags.resume !== 'string' && !flags.continue) {
    io.stderr('agent-runner: --fork-session has no effect without --resume or --continue');
  }
  const approvals = approvalSettingsFrom(flags);
  if (approvals) options = { ...options, approvals };
  // With an approver AskUserQuestion is offered when `--tools` names it: its call waits for the answer.
  // So is ExitPlanMode: approved, it takes the rest of the turn out of plan mode.
  // So is EnterPlanMode. With the default tool set, all three are offered, as Claude Code's SDK does.
  for (const name of APPROVER_DEFAULT_TOOL_NAMES) {
    if (approvals && options.tools && splitToolList(flags.tools)?.includes(name)) {
      options = { ...options, tools: [...options.tools, name] };
    }
  }
  if (approvals && !options.tools) options = { ...options, approverTools: [...APPROVER_DEFAULT_TOOL_NAMES] };
  if (flags.permissionPromptTool !== undefined && flags.permissionPromptTool !== 'stdio') {
    io.stderr(
      `agent-runner: --permission-prompt-tool ${flags.permissionPromptTool}: permission prompts are not supported; ` +
        'a tool call that would need one is denied (use --allowedTools or --permission-mode)',
    );
  }
  // The memory files a new session reads are checked before anything starts (cycles exit 2).
  if (typeof flags.resume !== 'string' && !flags.continue && !flags.bare) {
    await checkMemoryFiles(cwd, options.settingSources, io.stderr);
  }
  // Piped stdin is appended to a prompt argument, as Claude Code does (`cat app.log | -p "summarize"`).
  const prompt = streamInput ? '' : await promptFromInput(promptArg, (l) => io.stderr(`agent-runner: ${l}`));
  // Everything is checked: when this run will start the background server, start it now, so that
  // it boots while the client code below loads (about 400 ms).
  const mode = serverModeOptions(flags);
  if (mode.daemon) {
    const { startBackgroundServerEarly } = await import('../../host/early-server');
    await startBackgroundServerEarly(config, mode.configPath, process.env);
  }
  const [{ QueryEngine }, { openRuntime }, { budgetPoolExists }, { storeMcpConfig, storeHooksConfig }] =
    await Promise.all([
      import('../../client/query-engine'),
      import('../../host/runtime'),
      import('../../client/budget-pool'),
      import('../../client/stored-config'),
    ]);
  const log = flags.verbose || flags.outputFormat === 'text' ? (l: string) => io.stderr(l) : () => undefined;
  const rt = await openRuntime({
    config,
    ...mode,
    log: flags.verbose ? log : () => undefined,
    notice: (l) => io.stderr(l),
    quiet: flags.verbose !== true,
  });
  let result: SDKResultMessage | undefined;
  let noPrompt = false;
  let interrupts = 0;
  /** The exit code of a signal that stopped the background tasks -p was holding its result for. */
  let stoppedTasks: number | undefined;
  let engine: QueryEngine | undefined;
  // SIGINT (Ctrl-C) and SIGTERM (a CI runner or the Agent SDK stopping us) both interrupt the turn
  // cleanly first; the result still prints. A second signal, or one while no turn runs (before the
  // first, or `--input-format stream-json` waiting for its next message), stops at once (the
  // embedded server and worker are still shut down).
  const onSignal = (signal: NodeJS.Signals): void => {
    interrupts++;
    if (interrupts > 1 || !engine?.streaming) {
      void rt.close().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
      return;
    }
    const exitCode = signal === 'SIGINT' ? 130 : 143;
    if (engine.followingTasks) {
      // Holding the result for background tasks: the interrupt stops them (a user's stop starts
      // no notification turn), the held result prints, and the exit code says it was stopped.
      stoppedTasks = exitCode;
      io.stderr(`${signal}: stopping the session's background tasks (again to quit at once)…`);
    } else io.stderr(`${signal}: interrupting the turn (again to quit at once)…`);
    const current = engine;
    // The interrupt is a signal to the session: when the server cannot take it (it is down or
    // restarting) within INTERRUPT_DELIVERY_MS, stop waiting and quit, saying where the turn is.
    let timer: NodeJS.Timeout | undefined;
    const undelivered = new Promise<'undelivered'>((resolve) => {
      timer = setTimeout(() => resolve('undelivered'), INTERRUPT_DELIVERY_MS);
    });
    void Promise.race([
      current.interrupt(`Interrupted by ${signal === 'SIGINT' ? 'user (Ctrl-C)' : 'SIGTERM'}`).then(
        () => 'delivered' as const,
        () => 'undelivered' as const,
      ),
      undelivered,
    ]).then((outcome) => {
      clearTimeout(timer);
      if (outcome === 'delivered') return;
      io.stderr(
        `agent-runner: the server did not take the interrupt; quitting. The turn may go on: \`agent-runner attach ${current.sessionId}\` follows it.`,
      );
      void rt.close().finally(() => process.exit(exitCode));
    });
  };
  const onSigint = (): void => onSignal('SIGINT');
  const onSigterm = (): void => onSignal('SIGTERM');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  try {
    // A rate pool needs no configuration (its limits are learned from the API's headers): started if missing.
    if (options.ratePoolId) await ensureRatePool(rt.client, { taskQueue: rt.taskQueue, poolId: options.ratePoolId });
    if (options.budgetPoolId && !(await budgetPoolExists(rt.client, options.budgetPoolId))) {
      throw new UsageError(
        `--budget-pool: no budget pool "${flags.budgetPool}" is running on ${rt.address}` +
          (rt.mode === 'embedded' ? ' (the embedded server of this run)' : '') +
          `; create it first with \`agent-runner pool create ${flags.budgetPool} --max-budget-usd <usd>\`` +
          (rt.mode === 'embedded' ? ', which needs `agent-runner server` running' : ''),
      );
    }
    const sessionId = await pickSessionId(rt, flags, cwd);
    if (jsonSchema && jsonSchemaModule) {
      options.jsonSchemaKey = await jsonSchemaModule.storeJsonSchema(rt.store, sessionId, jsonSchema);
    }
    if (mcpConfig)
      options = { ...options, mcp: { configRef: await storeMcpConfig(rt.store, sessionId, mcpConfig, cwd) } };
    if (hooks)
      options = {
        ...options,
        hooks: turnHooks(hooks, await storeHooksConfig(rt.store, sessionId, hooks, cwd), stopBlockCap),
      };
    engine = new QueryEngine({
      client: rt.client,
      store: rt.store,
      taskQueue: rt.taskQueue,
      cwd,
      defaults: options,
      sessionId,
      apiKeySource: process.env[config.model.apiKeyEnv] ? 'user' : 'none',
      outage: {
        timeoutMs: config.temporal.outageTimeoutMs,
        notice: (l) => io.stderr(l),
        onUnreachable: () => rt.recover(),
      },
      // A turn that shows nothing new for a few seconds: what it waits for, on stderr.
      stallNotice: (l) => io.stderr(l),
      onWarning: (w) => io.stderr(`agent-runner: ${w}`),
      includePartialMessages: flags.includePartialMessages === true && flags.outputFormat === 'stream-json',
      replayUserMessages: flags.replayUserMessages === true,
      definitions: defs.definitions,
      agentTypes: defs.agentTypes,
      ...(flags.bare ? { userConfigDir: false as const } : {}),
    });
    if (streamInput) {
      const { readLines, runStreamJsonInput } = await import('../stream-json-input');
      const { answerApproval, listApprovals } = await import('../../client/approvals');
      result = await runStreamJsonInput(readLines(io.stdin ?? process.stdin), {
        engine,
        options,
        write: (m) => io.stdout(JSON.stringify(m)),
        warn: (l) => io.stderr(l),
        definitions: defs.definitions.definitions,
        unenforceableBudget: (model, o) =>
          o.limits.maxBudgetUsd !== undefined || o.budgetPoolId !== undefined
            ? unenforceableBudget(config, model, o.budgetPoolId !== undefined ? 'the budget pool' : '--max-budget-usd')
            : null,
        ...(approvals && flags.permissionPromptTool === 'stdio'
          ? {
              approvals: {
                pending: async () =>
                  (await listApprovals(rt.client, rt.store, { sessionId })).filter((a) => a.sessionId === sessionId),
                answer: (d) => answerApproval(rt.client, rt.store, d),
              },
            }
          : {}),
      });
      if (!result) {
        io.stderr('agent-runner: no prompt: no user message arrived on stdin');
        noPrompt = true;
      }
    } else {
      const stopWatch = approvals ? watchApprovals(rt, sessionId, io) : () => Promise.resolve();
      try {
        // As Claude Code 2.1.328 (recordings agent-background, agent-send-message, agent-task-stop,
        // bash-background): a turn's result line is held while background agents run (a
        // background command holds none), and the held lines go out, in order, once a turn ends
        // with none running; the process stays until no task runs, and each notification turn
        // prints its own messages and result line.
        const held: SDKMessage[] = [];
        const eng = engine;
        // The run's limits bound its notification turns too (src/cli/run-limits.ts).
        const runLimits = new RunLimits(
          {
            ...(options.limits?.maxBudgetUsd !== undefined ? { maxBudgetUsd: options.limits.maxBudgetUsd } : {}),
            ...(options.limits?.maxTurns !== undefined ? { maxTurns: options.limits.maxTurns } : {}),
          },
          // The session's spend before this run (a resumed session's); 0 for a new one.
          await Promise.race([
            eng.state().then(
              (s) => s.totalCostUsd,
              () => 0,
            ),
            new Promise<number>((r) => setTimeout(() => r(0), 3000).unref()),
          ]),
        );
        const releaseIfIdle = async (): Promise<void> => {
          // Once a run limit stopped the tasks, the last line waits to say so.
          if (held.length > 0 && !runLimits.stopped && !(await eng.backgroundAgentsRunning())) {
            for (const m of held.splice(0)) emit(m, flags, io);
          }
        };
        /** The run's latest structured answer (--json-schema), from whichever turn gave it. */
        let answered: unknown;
        const stopForLimit = async (hit: RunLimitReached): Promise<void> => {
          runLimits.markStopped();
          io.stderr(
            `agent-runner: the run reached its ${hit === 'error_max_turns' ? '--max-turns' : '--max-budget-usd'}: stopping the session's background tasks`,
          );
          await eng.stopRun('The run reached its limit').catch(() => undefined);
        };
        const onResult = async (msg: SDKResultMessage): Promise<void> => {
          result = msg;
          held.push(msg);
          if (msg.structured_output !== undefined && msg.structured_output !== null) answered = msg.structured_output;
          const hit = runLimits.observe(msg);
          if (hit && (await eng.backgroundTasksRunning())) await stopForLimit(hit);
          // A turn that still started after the stop (a task's end on its way) is stopped too.
          else if (runLimits.stopped) await eng.stopRun('The run reached its limit').catch(() => undefined);
          await releaseIfIdle();
        };
        // While background agents run beside the turns, their spend is watched live (each had
        // what was left of the budget at its launch): once the sum reaches --max-budget-usd, stop.
        let watching = options.limits?.maxBudgetUsd !== undefined;
        const stopWatching = new AbortController();
        const spendWatch = (async (): Promise<void> => {
          while (watching && !runLimits.stopped) {
            await sleep(SPEND_WATCH_MS, undefined, { signal: stopWatching.signal }).catch(() => undefined);
            if (!watching || runLimits.stopped || !(await eng.backgroundAgentsRunning())) continue;
            const total = await eng.liveSpendUsd();
            const hit = total !== undefined ? runLimits.observeSpend(total) : null;
            if (hit && watching) await stopForLimit(hit);
          }
        })().catch(() => undefined);
        try {
          for await (const msg of engine.submitMessage(prompt, options)) {
            if (msg.type === 'result') await onResult(msg);
            else emit(msg, flags, io);
          }
          await releaseIfIdle();
          for await (const msg of engine.followTasks()) {
            if (msg.type === 'result') await onResult(msg);
            else emit(msg, flags, io);
          }
        } finally {
          watching = false;
          stopWatching.abort();
        }
        await spendWatch;
        const last = held.at(-1);
        if (stoppedTasks !== undefined) {
          // A result already streamed (a background command holds none) still ends the run as an
          // error in `--output-format json`, which prints it now.
          if (last) held[held.length - 1] = result = tasksStoppedResult(last as SDKResultMessage, stoppedTasks);
          else if (result) result = tasksStoppedResult(result, stoppedTasks);
        } else if (last) {
          const total = runLimits.stopped ? await eng.liveSpendUsd() : undefined;
          held[held.length - 1] = result = runLimits.finalResult(last as SDKResultMessage, total);
        }
        // `--output-format json` prints the run's last result: a notification turn after the
        // answer (not held to the schema) keeps the run's answer in it.
        if (result && answered !== undefined && (result.structured_output ?? null) === null && !result.is_error) {
          result = { ...result, structured_output: answered };
        }
        for (const m of held) emit(m, flags, io);
      } finally {
        await stopWatch();
      }
    }
    // With an in-process worker, let the session workflow close before the worker stops.
    if (rt.worker) await engine.endAndWait().catch(() => undefined);
    else await engine.end().catch(() => undefined);
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    await rt.close();
  }
  const moved = result ? workspaceMoveNotice(result) : null;
  if (moved) io.stderr(moved);
  if (result && flags.outputFormat === 'json') io.stdout(JSON.stringify(result));
  if (result && flags.outputFormat === 'text') {
    const out = textOutput(result);
    if (out.stdout) io.stdout(out.stdout);
    if (out.stderr) io.stderr(out.stderr);
  }
  if (noPrompt) return EXIT.usage;
  if (stoppedTasks !== undefined) return stoppedTasks;
  return result ? exitCodeFor(result) : EXIT.error;
}

/**
 * The held result of a turn whose background tasks a signal stopped: an error, since their work
 * is lost (a script that reads only the result must not take it for a success); the turn's own
 * text stays in `result`.
 */
export function tasksStoppedResult(r: SDKResultMessage, exitCode: number): SDKResultMessage {
  const signal = exitCode === 130 ? 'SIGINT' : 'SIGTERM';
  return {
    ...r,
    subtype: 'error_during_execution',
    is_error: true,
    terminal_reason: 'aborted_tasks',
    errors: [
      ...(r.errors ?? []),
      `${signal} stopped the session's background tasks before they finished: their work is lost; the turn itself had ended (${r.subtype})`,
    ],
  };
}

function emit(msg: SDKMessage, flags: PrintFlags, io: PrintIo): void {
  if (flags.outputFormat === 'stream-json') {
    io.stdout(JSON.stringify(msg));
    return;
  }
  if (flags.verbose) {
    const line = describeMessage(msg);
    if (line) io.stderr(line);
  }
}

/** Approval settings from the flags, or undefined when no one can answer (calls are then denied). */
function approvalSettingsFrom(flags: PrintFlags): ApprovalSettings | undefined {
  if (flags.permissionPromptTool !== 'stdio' && !flags.waitForApproval) return undefined;
  const seconds = positiveNumber('--approval-timeout', flags.approvalTimeout) ?? 86_400;
  return { timeoutMs: Math.round(seconds * 1000), onTimeout: flags.approvalDefault ?? 'deny' };
}

/** Tells the user on stderr about each approval the turn starts waiting for (polled). */
function watchApprovals(rt: Runtime, sessionId: string, io: PrintIo): () => Promise<void> {
  const seen = new Set<string>();
  // One poll at a time; the last one is awaited on stop (the client closes next).
  let polling: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    polling = polling.then(() => poll());
  }, 500);
  const poll = (): Promise<void> =>
    import('../../client/approvals')
      .then(({ listApprovals }) => listApprovals(rt.client, rt.store, { sessionId }))
      .then(
        (list) => {
          for (const a of list) {
            if (seen.has(a.approvalId)) continue;
            seen.add(a.approvalId);
            io.stderr(
              `agent-runner: waiting for approval ${a.approvalId}: ${a.toolName} ${JSON.stringify(a.input ?? {}).slice(0, 200)}\n` +
                (a.toolName === 'AskUserQuestion'
                  ? `  answer with: agent-runner approvals approve ${a.approvalId} --answers '{"<question>": "<label>"}'`
                  : `  answer with: agent-runner approvals approve ${a.approvalId}   (or: approvals deny ${a.approvalId} --message "…")`),
            );
          }
        },
        () => undefined,
      );
  return async () => {
    clearInterval(timer);
    await polling;
  };
}
