import type Anthropic from '@anthropic-ai/sdk';
import type { Config } from '../config';
import { findPrice } from '../config';
import type { CallModelInput, CallModelSummary } from '../common/model';
import type { RecordPromptInput } from '../common/turn';
import type { AgentMetrics } from '../telemetry/agent-metrics';
import type { AgentEvents } from '../telemetry/agent-events';
import { withAgentEvents, withCodeActivityMetrics, withCodeEditMetrics } from './agent-events';
import { withAgentSpans } from './agent-spans';
import type { Tracer } from '@opentelemetry/api';
import type { ModelPrice } from '../common/usage';
import type { TranscriptStore } from '../store/transcript-store';
import { createCallModel } from './model/call-model';
import { createBatchActivities } from './model/batch';
import type { ModelClient } from './model/call-model';
import { createToolModelCalls } from './tools/web/model-calls';
import { modelClientsFromConfig, providerPrice } from './model/providers';
import type { ModelClients } from './model/providers';
import { modelProviderOf } from '../config/provider';
import type { ModelProvider } from '../common/model-capabilities';
import type { ModelFaultHooks } from './model/call-model';
import { createCompactContext } from './model/compact';
import { streamIdleTimeoutMs } from './model/stream-watchdog';
import { createRunTool } from './run-tool';
import { ChildEnvironments } from '../env/child-env';
import { withGitConfigScan } from '../env/git-env';
import { ALL_BUILTIN_TOOLS, toolsForModel } from './tools/registry';
import type { ModelToolSpec } from './tools/registry';
import { executeTool } from './tools/execute';
import { createLoadSession, createRecordPrompt, createRecordTranscript } from './transcript';
import { createLoadContext } from './context/load-context';
import { withStorageErrors } from './store-errors';
import { activityStoreOutage, withAttemptStart } from './store-wait';
import { waitingStore } from '../store/outage';
import { withHeartbeats } from './heartbeats';
import { createPrepareWorkspace, type PrepareWorkspaceInput, type WorkspaceHost } from './workspace/prepare';
import { storeSnapshot } from './workspace/snapshot';
import type { Activities } from './types';
import { isMcpToolName } from '../common/mcp';
import { createConnectMcpServers, createMcpToolExecutor, mcpToolSpecs } from './mcp/activities';
import { McpClientPool } from './mcp/pool';
import { createRunHooks } from './hooks/run-hooks';
import { createPrepareCommand } from './commands/prepare-command';
import { createSessionTools } from './session-tools';
import { SKILL_TOOL } from '../common/session-tools';
import { createPlanAgent } from './agents/plan-agent';
import { createAgentWorktree } from './agents/worktree';
import { taskToolSpec } from './agents/tool-specs';
import { createRecordAgentResult } from './agents/record-result';
import { createReadTaskCall } from './agents/read-task-call';
import { createRunBackgroundShell } from './background/run-shell';
import { createReadWakeupCall, createRecordWakeupResult } from './wakeup/wakeup-call';
import { SCHEDULE_WAKEUP_SPEC } from './wakeup/tool-spec';
import { createNextCronFire, createReadCronCall, createRecordCronResult } from './cron/cron-call';
import { CRON_TOOL_SPECS } from './cron/tool-specs';
import { MONITOR_SPEC } from './monitor/tool-spec';
import { createRecordNotification, createStoreTaskNotification } from './agents/notifications';
import { createRunScheduledBatch } from './schedule/run-scheduled-batch';

export type { Activities } from './types';

/** Dependencies of the activities, injected by the worker (and by tests). */
export interface ActivityDeps {
  store: TranscriptStore;
  config: Pick<Config, 'model' | 'prices'> & Partial<Pick<Config, 'tools' | 'temporal' | 'store'>>;
  /** Environment to read the API key from. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Overrides the model client (tests); the argument is the model to call. */
  anthropic?: (model?: string) => ModelClient;
  /** Which API the client calls. @default from config `model.provider` and the environment */
  provider?: ModelProvider;
  /** Fault points of model calls, for the fault suite (`test/faults`); unset in production. */
  modelFaults?: ModelFaultHooks;
  /** The worker's MCP client pool (the worker closes it on shutdown). @default a new pool */
  mcpPool?: McpClientPool;
  /** This worker's host queue and workspace settings; absent = workspaces are not followed. */
  workspace?: WorkspaceHost;
  /** Agent metrics under Claude Code's names (`src/telemetry`); absent = telemetry off. */
  metrics?: AgentMetrics;
  /** Agent events under Claude Code's names (`src/telemetry`); absent = events off. */
  events?: AgentEvents;
  /** Spans of model calls and tool runs (`src/telemetry/tracing.ts`); absent = traces off. */
  tracer?: Tracer;
}

/**
 * Creates every activity the workflows use. They share one view of the store that waits through
 * an outage of it within each attempt (`store-wait.ts`, up to `store.outageTimeoutMs`): a write
 * is retried, never the model call or the tool run whose result it holds.
 */
export function createActivities(given: ActivityDeps): Activities {
  const outageTimeoutMs = given.config.store?.outageTimeoutMs;
  const outage = activityStoreOutage(given.store, outageTimeoutMs !== undefined ? { timeoutMs: outageTimeoutMs } : {});
  const deps: ActivityDeps = { ...given, store: waitingStore(given.store, outage) };
  const clients = deps.anthropic ? undefined : modelClientsFromConfig(deps.config, deps.env ?? process.env);
  const anthropic = deps.anthropic ?? ((model?: string) => (clients as ModelClients).client(model));
  const env = deps.env ?? process.env;
  const provider = deps.provider ?? clients?.provider ?? modelProviderOf(deps.config.model, env);
  const priceFor = (model: string): ModelPrice | null =>
    providerPrice(findPrice(deps.config.prices, model) ?? null, model, provider, env, model in deps.config.prices);
  const modelCalls = createToolModelCalls({ client: anthropic, provider, priceFor });
  const mcp = { store: deps.store, pool: deps.mcpPool ?? new McpClientPool(deps.env ? { env: deps.env } : {}) };
  const mcpTools = createMcpToolExecutor(mcp);
  const modelDeps = {
    store: deps.store,
    anthropic,
    provider,
    priceFor,
    // The task tools (Agent, SendMessage, TaskStop, ListAgents) have Claude Code's own specs.
    toolsForModel: (names: string[]) => runnerToolSpecs(names) as Anthropic.Tool[],
    ...(deps.modelFaults ? { faults: deps.modelFaults } : {}),
    ...(deps.workspace ? { hostQueue: deps.workspace.hostQueue } : {}),
    // Claude Code's stream watchdog (its environment variables win over the config).
    streamIdleTimeoutMs: streamIdleTimeoutMs(deps.config.model.streamIdleTimeoutMs ?? 0, deps.env ?? process.env),
    mcpToolsForModel: async (sessionId: string, ref: string) =>
      (await mcpToolSpecs(deps.store, sessionId, ref)) as Anthropic.Tool[],
  };
  const ws = deps.workspace;
  const childEnv = new ChildEnvironments(deps.config);
  const sessionTools = createSessionTools({
    store: deps.store,
    mcpSpecs: (sessionId, ref) => mcpToolSpecs(deps.store, sessionId, ref),
    toolSpecs: runnerToolSpecs,
  });
  // A store that cannot be written fails the activity at once (see storageFailure).
  const activities = timedAttempts({
    callModel: withStorageErrors(withModelMetrics(createCallModel(modelDeps), deps.metrics)),
    ...createBatchActivities(modelDeps),
    compactContext: withStorageErrors(createCompactContext(modelDeps)),
    runTool: withStorageErrors(
      createRunTool({
        store: deps.store,
        ...(deps.config.tools ? { settings: { ...deps.config.tools } } : {}),
        executeTool,
        executeMcpTool: (sessionId, ref, name, input, ctx) => mcpTools.execute(sessionId, ref, name, input, ctx),
        // An MCP tool's effects are unknown, and a skill's `!` lines run commands: neither is
        // re-run blindly after a crash.
        isIdempotent: (name) =>
          isMcpToolName(name) || name === SKILL_TOOL ? false : (ALL_BUILTIN_TOOLS.get(name)?.idempotent ?? true),
        sessionTools,
        ...(ws
          ? {
              // A streamed pack cannot be sent again: the whole snapshot is made again while the
              // store is unreachable (same tree, same snapshot), so a tool that ran keeps its result.
              snapshot: (i: { sessionId: string; toolUseId: string; root: string; base: string }) =>
                outage.run(() =>
                  withGitConfigScan(() =>
                    storeSnapshot({ store: deps.store, ...i, maxBytes: ws.config.maxSnapshotBytes }),
                  ),
                ),
            }
          : {}),
        // Tool processes get the worker's environment minus the runner's secrets (src/env/child-env.ts).
        childEnv,
        modelCalls,
        ...(ws ? { hostQueue: ws.hostQueue } : {}),
      }),
    ),
    // Git work lists a repository's config once per activity (src/env/git-env.ts).
    prepareWorkspace: withStorageErrors(ws ? gitScanOnce(createPrepareWorkspace(deps.store, ws)) : notFollowed),
    recordTranscript: withStorageErrors(createRecordTranscript(deps.store)),
    recordPrompt: withStorageErrors(withSessionMetrics(createRecordPrompt(deps.store), deps.metrics)),
    loadSession: withStorageErrors(createLoadSession(deps.store, priceFor)),
    connectMcpServers: withStorageErrors(withHeartbeats(createConnectMcpServers(mcp))),
    runHooks: withStorageErrors(createRunHooks({ store: deps.store, ...(deps.env ? { env: deps.env } : {}) })),
    loadContext: withStorageErrors(gitScanOnce(createLoadContext(deps.store))),
    prepareCommand: withStorageErrors(withHeartbeats(createPrepareCommand({ store: deps.store, childEnv }))),
    planAgent: withStorageErrors(createPlanAgent(deps.store)),
    agentWorktree: gitScanOnce(createAgentWorktree()),
    recordAgentResult: withStorageErrors(createRecordAgentResult(deps.store)),
    readTaskCall: withStorageErrors(createReadTaskCall(deps.store)),
    storeTaskNotification: withStorageErrors(createStoreTaskNotification(deps.store)),
    recordNotification: withStorageErrors(createRecordNotification(deps.store)),
    runBackgroundShell: withStorageErrors(createRunBackgroundShell(deps.store)),
    readWakeupCall: withStorageErrors(createReadWakeupCall(deps.store)),
    recordWakeupResult: withStorageErrors(createRecordWakeupResult(deps.store)),
    readCronCall: withStorageErrors(createReadCronCall(deps.store)),
    nextCronFire: createNextCronFire(),
    recordCronResult: withStorageErrors(createRecordCronResult(deps.store)),
    runScheduledBatch: createRunScheduledBatch(deps.env ? { env: deps.env } : {}),
  });
  const counted = withCodeActivityMetrics(deps.metrics, deps.store, withCodeEditMetrics(deps.metrics, activities));
  return withAgentSpans(deps.tracer, withAgentEvents(deps.events, deps.store, counted));
}

/**
 * The model's specs of tools by name: the built-in registry's, and Claude Code's own for the task
 * tools (Agent, SendMessage, TaskStop, ListAgents), ScheduleWakeup and the Cron tools.
 */
function runnerToolSpecs(names: readonly string[]): ModelToolSpec[] {
  return names.map(
    (n) =>
      (taskToolSpec(n) ??
        CRON_TOOL_SPECS.get(n) ??
        (n === MONITOR_SPEC.name ? MONITOR_SPEC : undefined) ??
        (n === SCHEDULE_WAKEUP_SPEC.name ? SCHEDULE_WAKEUP_SPEC : toolsForModel([n])[0])) as ModelToolSpec,
  );
}

/**
 * `callModel` that records each call's billed usage under Claude Code's metric names, once: by
 * the attempt that made the call (a summary of a line already stored, `replayed`, was counted by
 * the attempt that stored it).
 */
function withModelMetrics(
  fn: (input: CallModelInput) => Promise<CallModelSummary>,
  metrics: AgentMetrics | undefined,
): (input: CallModelInput) => Promise<CallModelSummary> {
  if (!metrics) return fn;
  return async (input) => {
    const summary = await fn(input);
    if (!summary.replayed)
      metrics.modelCall({ sessionId: input.sessionId }, summary.model, summary.usage, summary.costUsd);
    return summary;
  };
}

/**
 * `recordPrompt` that counts `claude_code.session.count` when it writes a conversation's first
 * prompt (no parent): once per session, whatever the retries (the store says who wrote the line).
 */
function withSessionMetrics(
  fn: (input: RecordPromptInput) => Promise<{ uuid: string; written: boolean }>,
  metrics: AgentMetrics | undefined,
): (input: RecordPromptInput) => Promise<{ uuid: string; written: boolean }> {
  if (!metrics) return fn;
  return async (input) => {
    const out = await fn(input);
    if (out.written && input.parentUuid === null) metrics.sessionStarted({ sessionId: input.sessionId });
    return out;
  };
}

/** Every activity with its attempt's start recorded (the store's waits end before its timeout). */
function timedAttempts(acts: Activities): Activities {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(acts)) {
    out[name] = withAttemptStart(fn as (...args: unknown[]) => Promise<unknown>);
  }
  return out as unknown as Activities;
}

/** `prepareWorkspace` of a worker that does not follow workspaces. */
async function notFollowed(input: PrepareWorkspaceInput): Promise<null> {
  void input;
  return null;
}

/** `fn` with its git commands listing the repository's config once per call. */
function gitScanOnce<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return (...args) => withGitConfigScan(() => fn(...args));
}
