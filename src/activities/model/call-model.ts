import { contextWindowOf } from '../../common/model-limits';
import { resolveToolPath } from '../tools/file-state';
import { toolUseLabel } from '../../common/summary';
import type Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { CallModelInput, CallModelSummary } from '../../common/model';
import { ModelErrorType } from '../../common/model';
import type { ToolUseSummary } from '../../common/tools';
import { TOOL_NAMES } from '../../common/tools';
import type { TranscriptEntry } from '../../common/transcript';
import { TRANSCRIPT_SCHEMA_VERSION } from '../../common/transcript';
import type { Usage } from '../../common/usage';
import type { ModelPrice } from '../../common/usage';
import { emptyUsage, usageDetailsOf } from '../../common/usage';
import { costOfUsage } from '../../engine/cost';
import { batchDue } from '../../engine/microcompact';
import type { TranscriptStore } from '../../store/transcript-store';
import type { StreamEventWriter } from '../../store/stream-events';
import { TranscriptChainError } from '../../store/transcript-store';
import type { ModelAttemptUsage } from '../../store/transcript-store';
import { storageFailure } from '../store-errors';
import { StoreUnavailableError } from '../../store/outage';
import { HeldResponses } from './held-responses';
import { structuredOutputTools } from '../structured-output';
import { billableRecords, lineTotals, toBilling } from './billing';
import { describeCallFailure, unstoredResponseFailure } from './call-failure';
import { replayedReminder, withFileReminder } from './file-reminders';
import { failFastForFallback } from './fallback';
import { classifyModelError } from './errors';
import { tokensSinceLastCall, withMicrocompact } from './microcompact';
import { microcompactWithSnip, withSnip } from './snip';
import { withCollapse } from './collapse';
import { withToolResultBudget } from './tool-result-budget';
import { buildMessages, buildSystem } from './request';
import { listedAgents } from '../agents/agent-list';
import { agentListing } from '../../common/agents';
import { betaHeaders } from './betas';
import { thinkingParams } from './thinking-params';
import type { ModelProvider } from '../../common/model-capabilities';
import { assembleStream } from './stream';
import { watchedStream } from './stream-watchdog';
import type { AssembledMessage } from './stream';
import { layeredSystemPrompt } from './system-prompt';
import { getContextContent, MissingContextContentError } from '../../store/context-content';
import { SKILL_TOOL, TOOL_SEARCH_BETA, TOOL_SEARCH_TOOL } from '../../common/session-tools';
import { loadedToolNames, offeredTools } from '../session-tools/offered-tools';
import type { ModelToolSpec } from '../tools/registry';
import { definitionsOf } from '../commands/prepare-command';
import { modelInvocable } from '../../config-files/definitions/catalog';

/** Tool names of `--tools` that are not built-in tools of the registry. */
const SESSION_TOOL_NAMES: ReadonlySet<string> = new Set([SKILL_TOOL, TOOL_SEARCH_TOOL]);

/** Whether the session has skills or commands the model may load (the Skill tool is offered). */
async function offersSkills(
  store: TranscriptStore,
  input: Pick<CallModelInput, 'sessionId' | 'definitionsKey'>,
): Promise<boolean> {
  if (input.definitionsKey === undefined) return false;
  return modelInvocable(await definitionsOf(store, input.sessionId, input.definitionsKey)).length > 0;
}
import { heartbeatEvery } from '../heartbeats';
import { withoutBackgroundTasks } from '../tools/bash';

/** What the activities use of a model client (Anthropic's own, or a provider's: same `messages`). */
export type ModelClient = Pick<Anthropic, 'messages'>;

/** What `callModel` needs from the worker. */
export interface ModelDeps {
  store: TranscriptStore;
  /** The model client: Anthropic's, or Bedrock's, Vertex's, Foundry's (SDK retries must be off: `maxRetries: 0`). */
  anthropic(model?: string): ModelClient;
  /** Which API `anthropic()` calls (model ids, request parameters). @default 'firstParty' */
  provider?: ModelProvider;
  /** Price of a model, or null when it is not in the table. */
  priceFor(model: string): ModelPrice | null;
  /** Tool definitions sent to the model, by name. */
  toolsForModel(names: string[]): Anthropic.Tool[];
  /** Tool definitions of a turn's stored MCP tool list (by ref). */
  mcpToolsForModel?(sessionId: string, ref: string): Promise<Anthropic.Tool[]>;
  /** Context window of a model (tokens). @default {@link contextWindowOf} (Claude Code's figures) */
  contextWindowFor?(model: string): number;
  /** The running activity's context. @default {@link activityAttemptContext} */
  attemptContext?(): AttemptContext;
  /** Fault injection for the fault suite; unset in production. */
  faults?: ModelFaultHooks;
  /** This worker's host queue (workspaces followed): a call for a workspace held elsewhere checks no files. */
  hostQueue?: string;
  /**
   * Longest wait for the next event of a response stream, ms; 0 or absent = no limit. The worker
   * sets {@link streamIdleTimeoutMs} (Claude Code's 300000 by default).
   */
  streamIdleTimeoutMs?: number;
}

/**
 * The events of a stream, each also published to a side channel as `{event}` (the first with
 * `ttft_ms`, the time from the request to it); keep-alive pings are not published.
 */
async function* publishing<E extends { type: string }>(
  events: AsyncIterable<E>,
  tap: StreamEventWriter,
  requestedAt: number,
  thinkingDisplay: string | undefined,
): AsyncIterable<E> {
  let first = true;
  for await (const ev of events) {
    if (ev.type !== 'ping') {
      // Claude Code marks the events that show thinking with the display it asked for.
      const display = thinkingDisplay !== undefined && showsThinking(ev) ? { thinking_display: thinkingDisplay } : {};
      tap.publish(first ? { event: ev, ttft_ms: Date.now() - requestedAt, ...display } : { event: ev, ...display });
    }
    first = false;
    yield ev;
  }
}

/** `message_start`, a thinking block's start and its `thinking_delta`s. */
function showsThinking(ev: { type: string }): boolean {
  const e = ev as { type: string; content_block?: { type?: string }; delta?: { type?: string } };
  return (
    e.type === 'message_start' ||
    (e.type === 'content_block_start' && e.content_block?.type === 'thinking') ||
    (e.type === 'content_block_delta' && e.delta?.type === 'thinking_delta')
  );
}

/**
 * Builds the system prompt of a call from the parts the input names by content key (read from
 * the session's content blobs; the text never travels in workflow history).
 * @throws ApplicationFailure `TranscriptError` (non-retryable) when a part is not in the store.
 */
export async function systemPromptFor(
  store: TranscriptStore,
  input: Pick<CallModelInput, 'sessionId' | 'systemPromptKey' | 'appendSystemPromptKey'>,
): Promise<string> {
  try {
    const read = (key: string | undefined): Promise<string | undefined> =>
      key === undefined ? Promise.resolve(undefined) : getContextContent(store, input.sessionId, key);
    const [systemPrompt, appendSystemPrompt] = await Promise.all([
      read(input.systemPromptKey),
      read(input.appendSystemPromptKey),
    ]);
    return layeredSystemPrompt({
      ...(systemPrompt !== undefined ? { systemPrompt } : {}),
      ...(appendSystemPrompt !== undefined ? { appendSystemPrompt } : {}),
    });
  } catch (err) {
    if (!(err instanceof MissingContextContentError)) throw err;
    throw ApplicationFailure.create({ type: ModelErrorType.Transcript, message: err.message, nonRetryable: true });
  }
}

/**
 * What a model-call activity uses of its Temporal context. Injected (`ModelDeps.attemptContext`)
 * so that the activity can run in tests without a worker.
 */
export interface AttemptContext {
  /** Attempt number of the activity, from 1. */
  attempt: number;
  /** Id of the workflow (the turn) that scheduled the activity. */
  turnId: string;
  /** Heartbeat timeout of the activity, ms, when one is set. */
  heartbeatTimeoutMs?: number;
  /**
   * Epoch ms by which the attempt ends itself (shortly before its start-to-close timeout), so
   * that its failure reports what it was billed; absent = none.
   */
  deadline?: number;
  /** Aborted when the activity is cancelled (also when this attempt was superseded). */
  signal: AbortSignal;
  /** Records a heartbeat (small details only: they may end up in workflow history). */
  heartbeat(details?: unknown): void;
}

/** Time an attempt keeps before its start-to-close timeout to end itself with a clear failure, ms. */
const ATTEMPT_END_MARGIN_MS = 3000;

/** The {@link AttemptContext} of the running activity. */
export function activityAttemptContext(): AttemptContext {
  const ctx = Context.current();
  // Start-to-close counts from the attempt's start: about now (the activity has just begun).
  const { startToCloseTimeoutMs } = ctx.info;
  return {
    attempt: ctx.info.attempt,
    turnId: ctx.info.workflowExecution?.workflowId ?? '',
    ...(ctx.info.heartbeatTimeoutMs ? { heartbeatTimeoutMs: ctx.info.heartbeatTimeoutMs } : {}),
    ...(startToCloseTimeoutMs > ATTEMPT_END_MARGIN_MS * 2
      ? { deadline: Date.now() + startToCloseTimeoutMs - ATTEMPT_END_MARGIN_MS }
      : {}),
    signal: ctx.cancellationSignal,
    heartbeat: (details) => ctx.heartbeat(details),
  };
}

/** Where a model-call attempt stands, sent as heartbeat details (a few bytes, never content). */
export interface CallModelHeartbeat {
  attempt: number;
  /** SSE events received so far (0 while waiting for the response headers). */
  events: number;
  /** True once the response is recorded in the store. */
  recorded: boolean;
}

/** Fault points for the fault suite (`test/faults`); never set in production. */
export interface ModelFaultHooks {
  /**
   * True to send no heartbeat for this attempt, as if its worker could not reach Temporal (a
   * network partition, a stalled process) while it still reaches the API: Temporal then starts
   * another attempt beside it.
   */
  silentHeartbeats?(info: { callUuid: string; attempt: number }): boolean;
  /** Awaited after a response's stream has ended (its line is written), before the activity returns. */
  afterStreamEnd?(info: { sessionId: string; callUuid: string; attempt: number }): Promise<void>;
}

/** Most time between two heartbeats of a model call, ms. */
const MAX_HEARTBEAT_INTERVAL_MS = 1000;

function summarize(
  entry: TranscriptEntry,
  cwd: string,
  deps: ModelDeps,
  durationMs: number,
  replayed: boolean,
): CallModelSummary {
  const m = entry.message;
  const content = (Array.isArray(m?.content) ? m.content : []) as Array<Record<string, unknown>>;
  const model = m?.model ?? '';
  const toolUses: ToolUseSummary[] = content
    .filter((b) => b['type'] === 'tool_use')
    .map((b) => {
      const input = (b['input'] ?? {}) as Record<string, unknown>;
      // NotebookEdit names its file notebook_path.
      const fp = input['file_path'] ?? (b['name'] === 'NotebookEdit' ? input['notebook_path'] : undefined);
      return {
        id: String(b['id']),
        name: String(b['name']),
        ...(typeof fp === 'string' && fp.length > 0 && fp.length < 4096 ? { filePath: resolveToolPath(cwd, fp) } : {}),
        label: toolUseLabel(String(b['name']), input, cwd),
      };
    });
  const billed = lineTotals(entry, deps.priceFor);
  // Web searches the API ran for the response are priced beside its tokens.
  const details = usageDetailsOf(m?.usage);
  const searches = costOfUsage(emptyUsage(), deps.priceFor(model), details.webSearchRequests);
  return {
    model,
    stopReason: m?.stop_reason ?? null,
    usage: billed.usage,
    costUsd: billed.costUsd === null || searches === null ? null : billed.costUsd + searches,
    thinkingTokens: details.thinkingTokens,
    ...(details.webSearchRequests > 0 ? { webSearchRequests: details.webSearchRequests } : {}),
    billedAttempts: billed.attempts,
    contextWindow: deps.contextWindowFor?.(model) ?? contextWindowOf(model),
    maxOutputTokens: entry.maxTokens ?? 0,
    toolUses,
    contentTypes: content.map((b) => String(b['type'])),
    durationMs,
    replayed,
    ...(m?.stop_reason === 'refusal' && typeof m.id === 'string' ? { refusedMessageId: m.id } : {}),
  };
}

/** `b - a` field by field, never below 0 (tokens). */
function usageSince(a: Usage, b: Usage): Usage {
  return {
    input_tokens: Math.max(0, b.input_tokens - a.input_tokens),
    output_tokens: Math.max(0, b.output_tokens - a.output_tokens),
    cache_creation_input_tokens: Math.max(0, b.cache_creation_input_tokens - a.cache_creation_input_tokens),
    cache_read_input_tokens: Math.max(0, b.cache_read_input_tokens - a.cache_read_input_tokens),
  };
}

/** The request of one model call, built from the store (what `callModel` sends and batches carry). */
export interface ModelRequest {
  context: Awaited<ReturnType<typeof withFileReminder>>;
  micro: Awaited<ReturnType<typeof withMicrocompact>>;
  /** The tool-result budget's view (stage 2) and snip's (stage 3), before microcompact's. */
  budget: Awaited<ReturnType<typeof withToolResultBudget>>;
  snip: Awaited<ReturnType<typeof withSnip>>;
  /** Context collapse's view (stage 5, after microcompact's). */
  collapse: Awaited<ReturnType<typeof withCollapse>>;
  offered: ReturnType<typeof offeredTools>;
  /** Betas the request needs (headers: {@link requestBetas}). */
  betas: string[];
  params: Anthropic.MessageCreateParamsStreaming;
  /** The thinking display asked for, if any. */
  display: string | undefined;
}

/** Betas of a built request: the thinking ones, and tool search's when tools are deferred. */
export function requestBetas(req: Pick<ModelRequest, 'betas' | 'offered'>): string[] {
  return req.offered.plan.active ? [...req.betas, TOOL_SEARCH_BETA] : req.betas;
}

/**
 * Builds a call's request from the store: the context chain (microcompacted, with file
 * reminders, whose lines it writes), the tools offered and the thinking parameters.
 * @throws ApplicationFailure `TranscriptError` (non-retryable) when the chain is broken
 */
export async function buildModelRequest(deps: ModelDeps, input: CallModelInput, turnId: string): Promise<ModelRequest> {
  let chain: TranscriptEntry[];
  try {
    chain = await deps.store.chain(input.sessionId, input.parentUuid);
  } catch (err) {
    if (err instanceof TranscriptChainError) {
      throw ApplicationFailure.create({ type: ModelErrorType.Transcript, message: err.message, nonRetryable: true });
    }
    throw err;
  }
  // Files the model read that changed on disk since get a reminder line before this call: checked
  // on the workspace's host only, where they are now (after a move, under the new root).
  const ws = input.workspace;
  // The tool-result budget first (the seeds' order): a fresh message over it sends its largest results by reference.
  const budget = await withToolResultBudget(deps.store, { ...input, turnId }, chain, input.toolResultBudget);
  // Snip and microcompact rewrite the cached prefix: a new batch only once the context has grown
  // to the trigger (between, the recorded view is sent byte for byte and the cache serves it).
  const ac = input.autoCompact;
  const due = batchDue(
    ac && ac.lastContextTokens + tokensSinceLastCall(budget.chain),
    ac?.thresholdTokens,
    input.microcompact,
  );
  const snipOptions = due ? input.snip : { ...input.snip, enabled: false };
  const microOptions = due ? input.microcompact : { ...input.microcompact, enabled: false };
  // Stale rounds left out (with a microcompact batch, or when they free enough on their own).
  const snip = await withSnip(
    deps.store,
    { ...input, parentUuid: budget.parentUuid, turnId },
    budget.chain,
    snipOptions,
    microOptions,
  );
  // Old tool results cleared (recorded on the chain, plus a new batch when it frees enough).
  const micro = await withMicrocompact(
    deps.store,
    { ...input, parentUuid: snip.parentUuid, turnId },
    snip.chain,
    microcompactWithSnip(microOptions, snip),
  );
  // Runs of old rounds whose results were cleared folded into a digest: new ones only with this
  // call's microcompact batch (the prefix is rewritten anyway); the recorded ones always.
  const collapse = await withCollapse(
    deps.store,
    { ...input, parentUuid: micro.parentUuid, turnId },
    micro.chain,
    micro.cleared,
    input.collapse,
    micro.line !== undefined,
  );
  const context = await withFileReminder(
    deps.store,
    {
      ...input,
      parentUuid: collapse.parentUuid,
      turnId,
      ...(ws?.formerRoots ? { moved: { repoRoot: ws.repoRoot, formerRoots: ws.formerRoots } } : {}),
    },
    collapse.chain,
    { checkFiles: ws === undefined || ws.hostQueue === deps.hostQueue },
  );
  // Deferred tools stay out of `tools` until a ToolSearch result on the chain loaded them.
  const offered = offeredTools(
    {
      builtins: (
        deps.toolsForModel(
          (input.tools ?? [...TOOL_NAMES]).filter((n) => !SESSION_TOOL_NAMES.has(n)),
        ) as ModelToolSpec[]
      ).map((t) => (input.backgroundTasks === false ? withoutBackgroundTasks(t) : t)),
      skills: await offersSkills(deps.store, input),
      extra: (await structuredOutputTools(deps.store, input)) as ModelToolSpec[],
      mcp: (input.mcpToolsRef && deps.mcpToolsForModel
        ? await deps.mcpToolsForModel(input.sessionId, input.mcpToolsRef)
        : []) as ModelToolSpec[],
      mode: input.toolSearch,
      model: input.model,
      ...(input.tools ? { listedTools: input.tools } : {}),
      ...(input.ownToolList ? { ownList: true } : {}),
      contextWindow: deps.contextWindowFor?.(input.model) ?? contextWindowOf(input.model),
    },
    loadedToolNames(context.chain),
  );
  const { betas, ...effort } = thinkingParams(
    input.model,
    deps.provider ?? 'firstParty',
    input.thinking,
    input.maxTokens,
  );
  const params: Anthropic.MessageCreateParamsStreaming = {
    model: input.model,
    system: buildSystem(await systemPromptFor(deps.store, input)),
    messages: buildMessages(context.chain, {
      cleared: micro.cleared,
      replaced: budget.replaced,
      ...(offered.plan.active ? { deferredTools: offered.plan.deferred } : {}),
      ...(input.agentTypes
        ? {
            [input.agentTypes.afterFirstResults ? 'agentListingAfterResults' : 'agentListing']: agentListing(
              await listedAgents(deps.store, input.sessionId, input.agentTypes),
            ),
          }
        : {}),
    }),
    tools: offered.tools as Anthropic.Tool[],
    metadata: { user_id: input.sessionId },
    stream: true,
    // max_tokens, thinking, context_management, output_config (src/activities/model/thinking-params.ts)
    ...(effort as Pick<Anthropic.MessageCreateParamsStreaming, 'max_tokens'>),
  };
  const thinkingParam = (effort as { thinking?: { display?: string } }).thinking;
  const display = thinkingParam?.display;
  return { context, micro, budget, snip, collapse, offered, betas, params, display };
}

/**
 * Creates the `callModel` activity: reads the context chain from the store, streams one Messages
 * API call and writes the assistant line, returning a small summary of the line the store holds.
 *
 * Durability (DESIGN.md rules 2 and 8):
 * - It heartbeats on a timer from the start, also while it waits for the response headers, so a
 *   slow first byte never looks like a dead worker.
 * - The line is written as soon as the response is complete (at `message_delta`), before the
 *   stream ends; an attempt that finds the line already stored (the call completed but its worker
 *   died) returns it without calling the API again.
 * - Lines are first-writer-wins: when two attempts run at once (a superseded attempt still alive),
 *   both return the stored line's summary, whichever wrote it.
 * - Every attempt the API billed is counted once: see `billing.ts`. The summary's `usage` and
 *   `costUsd` are the call's billed totals (the stored response's usage plus repeated attempts).
 * @throws ApplicationFailure typed by {@link classifyModelError}; `TranscriptError` (non-retryable)
 *   when the context chain is broken; store errors as they are (the caller maps them).
 */
export function createCallModel(deps: ModelDeps): (input: CallModelInput) => Promise<CallModelSummary> {
  // Complete responses whose line the store did not take before their attempt ran out of time.
  const held = new HeldResponses();
  return async function callModel(input: CallModelInput): Promise<CallModelSummary> {
    const actx = (deps.attemptContext ?? activityAttemptContext)();
    const progress: CallModelHeartbeat = { attempt: actx.attempt, events: 0, recorded: false };
    const silent = deps.faults?.silentHeartbeats?.({ callUuid: input.assistantUuid, attempt: actx.attempt }) === true;
    const heartbeat = (): void => {
      if (!silent) actx.heartbeat(progress);
    };
    // Every third of the heartbeat timeout (at most every MAX_HEARTBEAT_INTERVAL_MS), from the start.
    const beat = heartbeatEvery(
      Math.max(50, Math.min(MAX_HEARTBEAT_INTERVAL_MS, (actx.heartbeatTimeoutMs ?? Infinity) / 3)),
      heartbeat,
    );
    try {
      // A response an earlier attempt on this worker read but could not store: written now (the
      // store waits), never requested again.
      const kept = held.take(input.sessionId, input.assistantUuid);
      if (kept) {
        const line = await appendHeld(kept);
        return { ...summarize(line, input.cwd, deps, 0, true), ...(await replayedReminder(deps.store, input, line)) };
      }
      const existing = await deps.store.get(input.sessionId, input.assistantUuid);
      if (existing) {
        return {
          ...summarize(existing, input.cwd, deps, 0, true),
          ...(await replayedReminder(deps.store, input, existing)),
        };
      }
      const stored = await streamCall(input, actx, progress);
      await deps.faults?.afterStreamEnd?.({
        sessionId: input.sessionId,
        callUuid: input.assistantUuid,
        attempt: actx.attempt,
      });
      return {
        ...summarize(stored.entry, input.cwd, deps, stored.durationMs, false),
        ...(stored.reminder ? { fileReminder: stored.reminder } : {}),
        ...(stored.microcompact ? { microcompact: stored.microcompact } : {}),
        ...(stored.toolResultBudget ? { toolResultBudget: stored.toolResultBudget } : {}),
        ...(stored.snip ? { snip: stored.snip } : {}),
        ...(stored.collapse ? { collapse: stored.collapse } : {}),
      };
    } finally {
      beat.stop();
    }
  };

  /** Appends a held line (kept again when the store is still unreachable); returns the stored line. */
  async function appendHeld(entry: TranscriptEntry): Promise<TranscriptEntry> {
    try {
      return (await deps.store.append(entry)).entry;
    } catch (err) {
      throw unstored(err, entry);
    }
  }

  /**
   * A complete response whose line the store did not take: kept on this worker for the call's
   * next attempt, and its billed usage travels with the failure (counted if no attempt follows).
   */
  function unstored(err: unknown, entry: TranscriptEntry): unknown {
    if (!(err instanceof StoreUnavailableError)) return err;
    held.keep(entry);
    const failure = storageFailure(err);
    return failure ? unstoredResponseFailure(failure, entry, deps.priceFor) : err;
  }

  async function streamCall(
    input: CallModelInput,
    actx: AttemptContext,
    progress: CallModelHeartbeat,
  ): Promise<{
    entry: TranscriptEntry;
    durationMs: number;
    reminder: Awaited<ReturnType<typeof withFileReminder>>['reminder'];
    microcompact: Awaited<ReturnType<typeof withMicrocompact>>['line'];
    toolResultBudget: Awaited<ReturnType<typeof withToolResultBudget>>['line'];
    snip: Awaited<ReturnType<typeof withSnip>>['line'];
    collapse: Awaited<ReturnType<typeof withCollapse>>['line'];
  }> {
    const { context, micro, budget, snip, collapse, offered, betas, params, display } = await buildModelRequest(
      deps,
      input,
      actx.turnId,
    );
    const started = Date.now();
    let requestId: string | null = null;
    let startUsage: Usage | null = null;
    let stored: TranscriptEntry | undefined;
    const attemptUsage = (
      msg: Readonly<AssembledMessage>,
      phase: 'start' | 'end',
      usage: Usage,
    ): ModelAttemptUsage => ({
      callUuid: input.assistantUuid,
      attempt: actx.attempt,
      phase,
      requestId,
      messageId: msg.id,
      model: msg.model,
      usage,
    });
    // Collected while the request is under way, not between the response and its line. A record
    // written after this (an older attempt still alive) is listed by a later call's line.
    const billable = billableRecords(deps.store, input.sessionId, input.assistantUuid, context.chain);
    billable.catch(() => undefined); // awaited by `record`; a failed request never reads it
    /** This attempt's `start` record: in the store for a crash before the line, in the line itself. */
    let startRecord: ModelAttemptUsage | undefined;
    let startWrite: Promise<void> | undefined;
    /**
     * Records the complete response: the line, listing what the call was billed (first writer
     * wins). This attempt's final usage is in the line; it is stored on its own only when another
     * attempt's line won, for a later call to count. One durable write between the response and
     * the line: the shorter that window, the rarer a repeated call after a crash.
     */
    const record = async (msg: Readonly<AssembledMessage>): Promise<TranscriptEntry> => {
      const endUsage = startUsage ? usageSince(startUsage, msg.usage) : msg.usage;
      const end = attemptUsage(msg, 'end', endUsage);
      // Earlier attempts' records the store could not give are listed by a later line instead
      // (records of recent calls that no line lists are collected by every call).
      const records = await billable.catch(() => [] as ModelAttemptUsage[]);
      // Listed once even when the store already holds it (units are unique).
      const billing = toBilling([...records, ...(startRecord ? [startRecord] : []), end]);
      const { invalidToolInputs, ...message } = msg;
      const entry: TranscriptEntry = {
        v: TRANSCRIPT_SCHEMA_VERSION,
        type: 'assistant',
        uuid: input.assistantUuid,
        parentUuid: context.parentUuid,
        sessionId: input.sessionId,
        timestamp: new Date().toISOString(),
        message: message as unknown as TranscriptEntry['message'],
        maxTokens: params.max_tokens,
        ...(display !== undefined && message.content.some((b) => b['type'] === 'thinking')
          ? { thinkingDisplay: display }
          : {}),
        turnId: actx.turnId,
        ...(requestId ? { requestId } : {}),
        ...(Object.keys(invalidToolInputs).length ? { invalidToolInputs } : {}),
        billing,
      };
      let result: Awaited<ReturnType<TranscriptStore['append']>>;
      try {
        result = await deps.store.append(entry);
      } catch (err) {
        // The store stayed unreachable for as long as this attempt may run: the response is kept
        // on this worker, and the call's next attempt here writes it instead of calling again.
        throw unstored(err, entry);
      }
      if (!result.written) await deps.store.putModelAttemptUsage(input.sessionId, end);
      progress.recorded = true;
      return result.entry;
    };
    // The watchdog's own abort, beside the activity's cancellation.
    const giveUp = new AbortController();
    try {
      const { data, request_id } = await deps
        .anthropic(input.model)
        .messages.create(params, {
          signal: AbortSignal.any([actx.signal, giveUp.signal]),
          // `defer_loading` tools and `tool_reference` results are a beta of the Messages API.
          ...betaHeaders(requestBetas({ betas, offered })),
        })
        .withResponse();
      requestId = request_id ?? null;
      // A stream that goes quiet is given up (and the attempt ends before its start-to-close).
      const watched = watchedStream(data, {
        idleMs: deps.streamIdleTimeoutMs ?? 0,
        ...(actx.deadline !== undefined ? { deadline: actx.deadline } : {}),
        onGiveUp: () => giveUp.abort(),
      });
      // `--include-partial-messages`: the raw events also go to the store's side channel.
      const tap = input.streamEvents ? deps.store.streamEvents?.open(input.sessionId, input.assistantUuid) : undefined;
      const assembled = await assembleStream(tap ? publishing(watched, tap, started, display) : watched, {
        onEvent: (n) => {
          progress.events = n;
        },
        onStart: async (msg) => {
          startUsage = { ...msg.usage };
          startRecord = attemptUsage(msg, 'start', startUsage);
          // Durable while the model generates (not awaited here): it matters only if this attempt
          // dies before its line is written, and the line lists it itself.
          startWrite = deps.store.putModelAttemptUsage(input.sessionId, startRecord);
          startWrite.catch(() => undefined); // awaited below
        },
        onComplete: async (msg) => {
          stored = await record(msg);
        },
      });
      await tap?.close();
      // A stream without `message_delta` but with `message_stop` is complete too.
      stored ??= await record(assembled);
      await startWrite;
    } catch (err) {
      // A failure reports what was billed: the start record must be in the store first.
      await startWrite?.catch(() => undefined);
      // A store error (a complete response the store did not take carries its billing already).
      const unstoredResponse = err instanceof ApplicationFailure && err.type === ModelErrorType.TranscriptUnavailable;
      if (storageFailure(err) || actx.signal.aborted || unstoredResponse) throw err;
      throw await describeCallFailure(failFastForFallback(classifyModelError(err), input, actx.attempt), {
        store: deps.store,
        sessionId: input.sessionId,
        callUuid: input.assistantUuid,
        priceFor: deps.priceFor,
        chain: context.chain,
        requestChars: JSON.stringify(params).length,
        ...(startRecord ? { known: [startRecord] } : {}),
      });
    }
    return {
      entry: stored,
      durationMs: Date.now() - started,
      reminder: context.reminder,
      microcompact: micro.line,
      toolResultBudget: budget.line,
      snip: snip.line,
      collapse: collapse.line,
    };
  }
}
