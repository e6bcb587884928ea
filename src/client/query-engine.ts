import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { WithStartWorkflowOperation } from '@temporalio/client';
import type { SessionInput, SessionSpend, SessionState, SubmitResponse } from '../common/session';
import type { SDKMessage, SDKSystemInitMessage, SDKUserMessage } from '../common/sdk-messages';
import type { TurnOptions, TurnOutcome, TurnProgress } from '../common/turn';
import type { TranscriptEntry } from '../common/transcript';
import { WORKFLOW_STATE_VERSION } from '../common/turn';
import type { TranscriptStore } from '../store/transcript-store';
import type { LimitPatch } from '../workflows/messages';
import { cronCommandSignal } from '../workflows/cron-messages';
import {
  endSessionSignal,
  interruptSignal,
  stopRunSignal,
  sessionStateQuery,
  sessionStatusQuery,
  setLimitsSignal,
  submitMessageUpdate,
  turnProgressQuery,
} from '../workflows/messages';
import { sessionWorkflowId, turnNumberOf, turnWorkflowId } from '../common/ids';
import { isUnknownSearchAttributeError, sessionStartSearchAttributes } from '../common/search-attributes';
import type { McpServerState } from '../common/mcp';
import { loadMcpTools } from '../store/mcp-sidecar';
import { entryToSdkMessages, initMessage } from './sdk-message';
import { outcomeOfFailure, readTurnLine, turnResultMessage } from './turn-result';
import { storePrompt } from './prompt-ref';
import type { SessionDefinitions } from './slash-commands';
import { resolvePrompt } from './slash-commands';
import { putDefinitions } from '../store/definitions';
import type { AgentDefinition } from '../common/agents';
import { putAgentList, sessionAgentTypes } from './agent-types';
import type { SubagentStreamDeps } from './subagent-stream';
import {
  agentRunMessages,
  backgroundTasksChanged,
  interruptedAgentMessage,
  taskStartedMessage,
} from './subagent-stream';
import { ShellStream } from './shell-stream';
import type { SubagentStats, TaskRecord } from '../common/tasks';
import { emptySubagentStats } from '../common/tasks';
import type { UserPrompt } from '../common/user-prompt';
import { isEmptyPrompt, promptText } from '../common/user-prompt';
import { mergeModelUsage, totalCost } from '../engine/cost';
import { turnInputOf } from './turn-input';
import type { OutageOptions } from './outage';
import { firstLine, sessionDetails, sessionMemo, sessionSummary } from './session-metadata';
import { OutageWaiter, isServerUnreachable } from './outage';
import { StallWatcher } from './pending-work';
import { resultOfFailure } from '../common/agent-result';
import type { MemoryFile } from '../common/context';
import { loadUserMemory } from '../config-files/memory-files';
import { claudeConfigDir } from '../config-files/settings';
import { ContextContentWriter, storeContextOptions } from './stored-config';
import { PartialMessages } from './partial-messages';
import { AgentRunnerError } from '../common/errors';

/**
 * Options of one submitted turn: turn options, plus `jsonSchema` (structured output), which is
 * stored in the transcript store (a content blob) and sent as `jsonSchemaKey`.
 */
export type SubmitOptions = Partial<TurnOptions> & { jsonSchema?: Record<string, unknown> };

/** Options of a {@link QueryEngine}. */
export interface QueryEngineOptions {
  /** Temporal client connected to the namespace the workers serve. */
  client: Client;
  /** Where message content is read from (the workers' transcript store). */
  store: TranscriptStore;
  taskQueue: string;
  /** Working directory of the session (tools run there). */
  cwd: string;
  /** Turn defaults (model, limits, permissions). */
  defaults: TurnOptions;
  /** Session id. @default a new random UUID */
  sessionId?: string;
  /** Idle time after which the session workflow completes (ms). @default 900000 */
  idleTimeoutMs?: number;
  /** How often a running turn is polled for new messages (ms). @default 100 */
  pollIntervalMs?: number;
  /** `apiKeySource` reported in `system/init`. @default "user" */
  apiKeySource?: SDKSystemInitMessage['apiKeySource'];
  /**
   * Search attributes set when this engine starts the session workflow (`AgentSessionId` always,
   * plus these): `false` sets none. A server without the runner's attributes registered refuses
   * them; the start is then retried without, once per client. @default {}
   */
  searchAttributes?: { batchId?: string; taskId?: string } | false;
  /**
   * Waiting through a Temporal outage: how long to keep waiting for an unreachable server while
   * starting or following a turn, and where notices go. @default 600000 ms, no notices
   */
  outage?: OutageOptions;
  /**
   * Claude config directory whose `CLAUDE.md` is the user's own memory, sent to new sessions
   * (unless `settingSources` leaves out `user`); `false` reads none.
   * @default `CLAUDE_CONFIG_DIR`, else `~/.claude`
   */
  userConfigDir?: string | false;
  /** Receives warnings about the user's memory files (cut to the limits, imports not followed). */
  onWarning?: (text: string) => void;
  /**
   * Stream `stream_event` messages (the model's deltas) while each call streams, and a
   * `system`/`status` before each request (`--include-partial-messages`). They come from the
   * store's side channel, never from workflow history; a store without one sends none.
   * @default false
   */
  includePartialMessages?: boolean;
  /** Echo each prompt as a `user` message with `isReplay: true` once it is recorded (`--replay-user-messages`). @default false */
  replayUserMessages?: boolean;
  /**
   * The session's custom commands, skills, agents and plugins (read where the session starts,
   * src/config-files/definitions): stored once in the session's content, the turns carry their key.
   * `/name args` prompts run a command or skill of them; `system/init` lists them.
   */
  definitions?: SessionDefinitions;
  /**
   * The session's agent types (src/client/agent-types.ts: built-in, files, `--agents`, the SDK's
   * `agents`): stored once, turns that offer subagents carry the ref (`agentsRef`); `system/init`
   * lists their names. @default the built-in types and the catalog's agents
   */
  agentTypes?: readonly AgentDefinition[];
  /**
   * Where to say what a followed turn waits for when it shows nothing new for a few seconds (an
   * activity retried and why, a worker gone: see `src/client/pending-work.ts`). @default silent
   */
  stallNotice?: (line: string) => void;
}

/** Clients whose server refused the runner's search attributes (they are not sent again). */
const noSearchAttributes = new WeakSet<Client>();

/**
 * How long {@link QueryEngine.state} waits for the session workflow to fold in a turn whose
 * result this engine has yielded (ms). A session task takes a few ms; 5 s covers a busy worker.
 */
const SESSION_APPLY_WAIT_MS = 5_000;

/** Where a caller is in a turn's stream; pass it to {@link QueryEngine.follow} to continue. */
export interface StreamPosition {
  turnWorkflowId: string;
  /** Number of transcript events already delivered. */
  offset: number;
  /**
   * The session's spend before the turn (from `start`): the result reports the session's totals.
   * Without it (following a turn this engine did not start) they are asked of the session.
   */
  sessionBefore?: SessionSpend;
}

/** Thrown by {@link QueryEngine.start} (and `submitMessage`) for an empty or blank prompt; nothing is started. */
export class EmptyPromptError extends AgentRunnerError {
  override readonly name = 'EmptyPromptError';
  readonly kind = 'usage';
  constructor() {
    super('the prompt is empty: give a non-empty prompt');
  }
}

/**
 * One conversation, backed by a durable `sessionWorkflow` (the seeds' QueryEngine, with state in
 * Temporal instead of process memory). `submitMessage()` starts a turn and yields its SDK
 * messages while it runs: `system/init`, then `assistant` and `user` (tool results) messages as
 * each is recorded, then one `result`. A caller that lost its stream resumes with `follow()`.
 *
 * Errors: an unreachable server is waited for (see {@link QueryEngineOptions.outage}), then
 * `TemporalOutageError`; an empty prompt throws {@link EmptyPromptError} before anything starts;
 * a prompt larger than the store's content limit throws `ContentTooLargeError`. Model and tool
 * failures do not throw: they end in an error result.
 */
export class QueryEngine {
  readonly sessionId: string;
  private readonly opts: QueryEngineOptions;
  /** Position in the turn being streamed (updated as messages are yielded). */
  position: StreamPosition | null = null;
  /** The turn workflow whose `result` this engine yielded last (for read-your-writes state). */
  private resultYieldedFor: string | undefined;
  /** How many `submitMessage`/`follow` streams of this engine are open. */
  private openStreams = 0;

  /**
   * True while a `submitMessage()` or `follow()` stream of this engine is open (from the call
   * until its `result` is yielded or the caller stops iterating); false between turns.
   */
  get streaming(): boolean {
    return this.openStreams > 0;
  }

  constructor(opts: QueryEngineOptions) {
    this.sessionId = opts.sessionId ?? randomUUID();
    // Permission rules compare absolute paths against the working directory.
    this.opts = { ...opts, cwd: resolve(opts.cwd) };
    this.contextContent = new ContextContentWriter(opts.store, this.sessionId);
  }

  /** Workflow id of this session. */
  get workflowId(): string {
    return sessionWorkflowId(this.sessionId);
  }

  private sessionHandle(): WorkflowHandle {
    return this.opts.client.workflow.getHandle(this.workflowId);
  }

  /**
   * Starts a turn (starting the session workflow if it is not running) and returns where to follow
   * it, without waiting for the turn to finish.
   */
  async start(
    prompt: UserPrompt,
    submitOptions?: SubmitOptions,
    promptUuid?: string,
    extra: { updateId?: string } = {},
  ): Promise<SubmitResponse> {
    // A structured-output schema, system prompt parts, the user's memory and the definitions go
    // to the store; the options carry their keys.
    if (!this.storedDefaults) {
      const stored = this.storeContext(this.opts.defaults);
      this.storedDefaults = stored;
      // A failed write is tried again by the next start.
      stored.catch(() => {
        if (this.storedDefaults === stored) this.storedDefaults = undefined;
      });
    }
    const defaults = await this.storedDefaults;
    // A custom command's `model` and `allowed-tools` apply to the turn it starts.
    const resolved = this.resolve(prompt, submitOptions);
    const withSchema = await this.turnOptions(
      resolved.overrides ? { ...(submitOptions ?? {}), ...resolved.overrides } : submitOptions,
    );
    const options = withSchema ? await this.storeContext(withSchema) : undefined;
    const input: SessionInput = {
      v: WORKFLOW_STATE_VERSION,
      sessionId: this.sessionId,
      cwd: this.opts.cwd,
      defaults,
      ...(this.opts.idleTimeoutMs !== undefined ? { idleTimeoutMs: this.opts.idleTimeoutMs } : {}),
    };
    const { client } = this.opts;
    if (isEmptyPrompt(prompt)) throw new EmptyPromptError();
    // The prompt goes to the store first: the Update and the turn carry only its ref.
    const promptRef = await storePrompt(this.opts.store, this.sessionId, prompt);
    const command = resolved.command;
    const text = promptText(prompt);
    const sa = this.opts.searchAttributes ?? {};
    const withAttributes = sa !== false && !noSearchAttributes.has(client);
    const metadata = {
      prompt: text,
      cwd: this.opts.cwd,
      model: options?.model ?? this.opts.defaults.model,
      ...(sa !== false && sa.batchId !== undefined ? { batchId: sa.batchId } : {}),
      ...(sa !== false && sa.taskId !== undefined ? { taskId: sa.taskId } : {}),
    };
    const submit = (attributes: boolean): Promise<SubmitResponse> => {
      const startOp = new WithStartWorkflowOperation('sessionWorkflow', {
        workflowId: this.workflowId,
        taskQueue: this.opts.taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        // Read by `agent-runner list` and the Web UI: the prompt's first line only.
        memo: { ...sessionMemo(metadata) },
        staticSummary: sessionSummary(metadata),
        staticDetails: sessionDetails(metadata),
        ...(attributes && sa !== false
          ? { typedSearchAttributes: sessionStartSearchAttributes({ sessionId: this.sessionId, ...sa }) }
          : {}),
      });
      return client.workflow.executeUpdateWithStart(submitMessageUpdate, {
        args: [
          {
            prompt: promptRef,
            ...(command ? { command } : {}),
            promptLine: firstLine(text),
            ...(promptUuid ? { promptUuid } : {}),
            ...(options ? { options } : {}),
          },
        ],
        startWorkflowOperation: startOp,
        ...(extra.updateId ? { updateId: extra.updateId } : {}),
      });
    };
    // One update id for every try, so that a start retried through an outage runs once.
    const updateId = extra.updateId ?? randomUUID();
    extra = { ...extra, updateId };
    const waiter = new OutageWaiter(this.outageOptions());
    if (!withAttributes) return waiter.run(() => submit(false));
    try {
      return await waiter.run(() => submit(true));
    } catch (err) {
      if (!isUnknownSearchAttributeError(err)) throw err;
      noSearchAttributes.add(client);
      return waiter.run(() => submit(false));
    }
  }

  private outageOptions(): OutageOptions {
    return {
      hint: `The session goes on; \`agent-runner attach ${this.sessionId}\` prints the turn once Temporal is back.`,
      ...this.opts.outage,
    };
  }

  private userMemory: Promise<readonly MemoryFile[]> | undefined;
  private definitionsKey: Promise<string> | undefined;
  private agentsRef: Promise<TurnOptions['agentsRef']> | undefined;
  private agentTypeList: readonly AgentDefinition[] | undefined;

  /** The session's agent types (see {@link QueryEngineOptions.agentTypes}). */
  agentTypes(): readonly AgentDefinition[] {
    this.agentTypeList ??=
      this.opts.agentTypes ?? sessionAgentTypes({ catalog: this.opts.definitions?.definitions.agents ?? [] });
    return this.agentTypeList;
  }

  /**
   * Replaces the session's agent types (the SDK's `agents`, sent with `initialize`): turns
   * started after this carry the new list.
   */
  setAgentTypes(agents: readonly AgentDefinition[]): void {
    this.agentTypeList = agents;
    this.agentsRef = undefined;
    this.storedDefaults = undefined;
  }
  private readonly warned = new Set<string>();

  /** The session's context texts, each written once by this engine (defaults and submissions share them). */
  private readonly contextContent: ContextContentWriter;
  /** The defaults with their context stored (once per engine). */
  private storedDefaults: Promise<TurnOptions> | undefined;

  private async storeContext<T extends Partial<TurnOptions>>(options: T): Promise<T> {
    const stored = await storeContextOptions(this.contextContent, options, () => {
      this.userMemory ??= this.loadUserMemory();
      return this.userMemory;
    });
    const withAgents = await this.withAgentsRef(stored);
    const defs = this.opts.definitions?.definitions;
    if (!defs || withAgents.definitionsKey !== undefined) return withAgents;
    if (defs.commands.length + defs.agents.length + defs.plugins.length === 0) return withAgents;
    this.definitionsKey ??= putDefinitions(this.opts.store, this.sessionId, defs);
    return { ...withAgents, definitionsKey: await this.definitionsKey };
  }

  /** Options that offer subagents get the ref of the session's stored agent types. */
  private async withAgentsRef<T extends Partial<TurnOptions>>(options: T): Promise<T> {
    if (!options.subagents || options.agentsRef !== undefined) return options;
    this.agentsRef ??= putAgentList(this.opts.store, this.sessionId, this.agentTypes());
    const ref = await this.agentsRef;
    return ref ? { ...options, agentsRef: ref } : options;
  }

  /** What a prompt is (a runner command, a custom command or skill, an unknown `/name`), for this turn. */
  private resolve(prompt: UserPrompt, submitOptions: SubmitOptions | undefined): ReturnType<typeof resolvePrompt> {
    // A slash command is typed text: a prompt of content blocks is never one.
    if (typeof prompt !== 'string') return { warnings: [] };
    const resolved = resolvePrompt(prompt, this.opts.definitions, {
      allowedTools: submitOptions?.allowedTools ?? this.opts.defaults.allowedTools ?? [],
      cwd: this.opts.cwd,
    });
    for (const w of resolved.warnings) {
      if (this.warned.has(w)) continue;
      this.warned.add(w);
      this.opts.onWarning?.(w);
    }
    return resolved;
  }

  /** @throws MemoryImportCycleError when the user's memory files import each other in a cycle. */
  private async loadUserMemory(): Promise<readonly MemoryFile[]> {
    const dir = this.opts.userConfigDir ?? claudeConfigDir();
    if (dir === false) return [];
    const loaded = await loadUserMemory({ configDir: dir });
    for (const w of loaded.warnings) this.opts.onWarning?.(w);
    return loaded.files;
  }

  /** Turn options with a `jsonSchema` stored and replaced by its uuid. */
  private async turnOptions(options: SubmitOptions | undefined): Promise<Partial<TurnOptions> | undefined> {
    if (options?.jsonSchema === undefined) return options;
    const { jsonSchema, ...rest } = options;
    const { storeJsonSchema } = await import('./json-schema'); // ajv loads only for a schema
    const jsonSchemaKey = await storeJsonSchema(this.opts.store, this.sessionId, jsonSchema);
    return { ...rest, jsonSchemaKey };
  }

  /**
   * Submits one user message and streams the turn: `system/init`, the turn's messages as they
   * are recorded, and the `result`. With `options.jsonSchema` the turn returns structured output.
   */
  async *submitMessage(prompt: UserPrompt, submitOptions?: SubmitOptions): AsyncGenerator<SDKMessage, void, undefined> {
    this.openStreams++;
    try {
      yield* this.submitAndFollow(prompt, submitOptions);
    } finally {
      this.openStreams--;
    }
  }

  private async *submitAndFollow(
    prompt: UserPrompt,
    submitOptions?: SubmitOptions,
  ): AsyncGenerator<SDKMessage, void, undefined> {
    const promptUuid = randomUUID();
    const options = await this.turnOptions(submitOptions);
    const turnOptions = this.opts.includePartialMessages ? { ...options, includePartialMessages: true } : options;
    const started = await this.start(prompt, turnOptions, promptUuid);
    const overrides = this.resolve(prompt, submitOptions).overrides;
    const effective = { ...this.opts.defaults, ...(options ?? {}), ...(overrides ?? {}) };
    // With MCP servers, `system/init` lists them (and their tools) once the turn has started them.
    const mcp = effective.mcp ? await this.mcpInit(started.turnWorkflowId) : undefined;
    yield initMessage({
      sessionId: this.sessionId,
      uuid: randomUUID(),
      cwd: this.opts.cwd,
      options: effective,
      apiKeySource: this.opts.apiKeySource ?? 'user',
      ...(mcp ? { mcp } : {}),
      ...(this.opts.definitions ? { definitions: this.opts.definitions.definitions } : {}),
      ...(effective.subagents ? { agentTypes: this.agentTypes().map((a) => a.agentType) } : {}),
    });
    // As Claude Code: the first request's status, then the prompt echoed once it is recorded.
    const partial = this.partialMessages();
    if (partial) yield partial.announceNext();
    if (this.opts.replayUserMessages) {
      const replayText = this.resolve(prompt, submitOptions).replayText;
      const replay = await this.replayOf(promptUuid, started.turnWorkflowId, replayText);
      if (replay) yield replay;
    }
    yield* this.follow({
      turnWorkflowId: started.turnWorkflowId,
      offset: 0,
      ...(started.sessionBefore ? { sessionBefore: started.sessionBefore } : {}),
    });
  }

  /**
   * Streams a turn this engine did not start (`attach`) as `-p` streamed it: `system/init` with
   * the options the turn runs with (read from its history; the engine's defaults when they cannot
   * be read), then everything {@link follow} yields.
   */
  async *attach(turnWorkflowId: string): AsyncGenerator<SDKMessage, void, undefined> {
    const input = await turnInputOf(this.opts.client, turnWorkflowId);
    const options = input?.options ?? this.opts.defaults;
    // A running turn's MCP servers are known once it has started them; a finished one answers at once.
    const mcp = options.mcp ? await this.mcpInit(turnWorkflowId, 10_000) : undefined;
    yield initMessage({
      sessionId: this.sessionId,
      uuid: randomUUID(),
      cwd: input?.cwd ?? this.opts.cwd,
      options,
      apiKeySource: this.opts.apiKeySource ?? 'user',
      ...(mcp ? { mcp } : {}),
    });
    yield* this.follow({ turnWorkflowId, offset: 0 });
  }

  private partial: PartialMessages | undefined;

  /** The tail of stream events, when partial messages are on and the store has a side channel. */
  private partialMessages(): PartialMessages | undefined {
    const channel = this.opts.store.streamEvents;
    if (!this.opts.includePartialMessages || !channel) return undefined;
    this.partial ??= new PartialMessages(channel, this.sessionId);
    return this.partial;
  }

  /**
   * The `user` message echoing a prompt (`isReplay: true`), once its line is in the store; waits
   * while the turn runs (undefined when the turn ended without writing it).
   */
  private async replayOf(
    promptUuid: string,
    turnWorkflowId: string,
    text?: string,
  ): Promise<SDKUserMessage | undefined> {
    const handle = this.opts.client.workflow.getHandle(turnWorkflowId);
    let closed = false;
    // The long poll is aborted when this returns: a call left polling would retry on a closed
    // connection after the caller is done (an uncaught error in the caller's process).
    const poll = new AbortController();
    void this.opts.client
      .withAbortSignal(poll.signal, () => handle.result())
      .then(
        () => (closed = true),
        () => (closed = true),
      );
    try {
      return await this.replayLine(promptUuid, text, () => closed);
    } finally {
      poll.abort();
    }
  }

  /** Polls the store for the prompt's line until it is there, or `closed()` says the turn ended without it. */
  private async replayLine(
    promptUuid: string,
    text: string | undefined,
    closed: () => boolean,
  ): Promise<SDKUserMessage | undefined> {
    for (;;) {
      const e = await this.opts.store.get(this.sessionId, promptUuid);
      if (e?.message) {
        return {
          type: 'user',
          // A command is echoed as its command block, as Claude Code does.
          message: { role: 'user', content: text ?? e.message.content },
          parent_tool_use_id: null,
          uuid: promptUuid,
          timestamp: e.timestamp,
          isReplay: true,
          session_id: this.sessionId,
        };
      }
      if (closed()) return undefined;
      await sleep(20);
    }
  }

  /**
   * Streams a turn from a position: every message after `offset`, then the result. Works on a
   * running or finished turn, from any process that can reach Temporal and the store.
   */
  async *follow(pos: StreamPosition): AsyncGenerator<SDKMessage, void, undefined> {
    this.openStreams++;
    // Says what the turn waits for when it shows nothing for a while (on its own timer).
    const stalls = this.opts.stallNotice
      ? new StallWatcher(this.opts.client, pos.turnWorkflowId, this.opts.stallNotice).start()
      : null;
    try {
      yield* this.followTurn(pos, stalls);
    } finally {
      stalls?.stop();
      this.openStreams--;
    }
  }

  private async *followTurn(
    pos: StreamPosition,
    stalls: StallWatcher | null,
  ): AsyncGenerator<SDKMessage, void, undefined> {
    const handle = this.opts.client.workflow.getHandle<() => Promise<TurnOutcome>>(pos.turnWorkflowId);
    let offset = pos.offset;
    const keep = pos.sessionBefore ? { sessionBefore: pos.sessionBefore } : {};
    this.position = { turnWorkflowId: pos.turnWorkflowId, offset, ...keep };
    let outcome: TurnOutcome | undefined;
    let failure: unknown;
    // The result's long poll fails during an outage: wait for the server and poll again.
    const waiter = new OutageWaiter(this.outageOptions());
    if (stalls) stalls.onUnreachable = (err) => waiter.failed(err);
    let lost: unknown;
    const watchResult = (): Promise<void> =>
      handle.result().then(
        (o) => {
          outcome = o;
        },
        (err: unknown) => {
          // An error result fails the turn workflow and carries the outcome (the Web UI shows it as failed).
          const carried = resultOfFailure<TurnOutcome>(err);
          if (carried) outcome = carried;
          else if (isServerUnreachable(err)) lost = err;
          else failure = err ?? new Error('turn failed');
        },
      );
    let result = watchResult();
    const poll = this.opts.pollIntervalMs ?? 100;
    const followStarted = Date.now();
    /** The turn's Agent calls (tool_use id → prompt), whose results bring their agents' messages. */
    const agentCalls = new Map<string, string>();
    for (;;) {
      // The outcome as this pass began: one that arrives during the pass (while lines are read)
      // is streamed by the next pass, whose events include the lines recorded since the query.
      const ended = outcome;
      const finished = ended !== undefined || failure !== undefined;
      let events: string[] = [];
      let modelCall: string | null = null;
      if (ended) events = ended.events;
      else if (!finished) {
        let progress: TurnProgress | undefined;
        try {
          progress = await handle.query(turnProgressQuery);
          events = progress.events;
          if (lost === undefined) waiter.recovered();
        } catch (err) {
          // Not started yet, or no worker right now: try again. An unreachable server counts
          // toward the outage limit.
          if (isServerUnreachable(err)) waiter.failed(err);
          events = [];
        }
        modelCall = progress?.modelCall ?? null;
        if (stalls && progress) stalls.label = progress.activityLabel ?? progress.activity;
      }
      if (offset < events.length || ended) stalls?.moved();
      for (; offset < events.length; offset++) {
        const uuid = events[offset];
        if (uuid === undefined) continue;
        const entry = await this.readEntry(uuid);
        const msgs = entry ? entryToSdkMessages(entry) : [];
        const after: SDKMessage[] = [];
        if (entry && this.opts.defaults.subagents) {
          yield* this.agentMessages(entry, agentCalls, pos.turnWorkflowId, after);
        }
        if (entry) yield* this.shells.before(entry);
        // A response's stream events (the rest of them) come before its assistant messages.
        const partial = this.partialMessages();
        if (partial && entry?.type === 'assistant') yield* await partial.drain(uuid);
        this.position = { turnWorkflowId: pos.turnWorkflowId, offset: offset + 1, ...keep };
        yield* msgs;
        yield* after;
      }
      // Then the stream events of the call in flight (after the lines recorded before it).
      const partial = this.partialMessages();
      if (partial && modelCall) yield* await partial.poll(modelCall);
      if (ended) {
        outcome = ended;
        break;
      }
      if (failure !== undefined) {
        // The turn workflow itself failed (a non-retryable activity failure such as an unwritable
        // transcript store, or a termination): end with an error result saying why, as for any
        // failed turn. Other errors (the connection) propagate.
        outcome = await outcomeOfFailure(handle, failure, followStarted);
        break;
      }
      if (lost !== undefined) {
        waiter.failed(lost);
        lost = undefined;
        await sleep(1000);
        result = watchResult();
        continue;
      }
      // A background command that ends while the turn waits is reported when it ends.
      if (this.shells.watching) yield* this.shells.endsIn(await this.sessionTasks());
      await Promise.race([result, sleep(poll)]);
    }
    // As Claude Code: `total_cost_usd` and `modelUsage` are the session's, all turns so far.
    const totals = await this.sessionTotals(pos, outcome);
    const turnResult = await turnResultMessage(this.opts.store, this.sessionId, totals, randomUUID());
    const stats = this.opts.defaults.subagents ? await this.subagentStats() : undefined;
    // With subagents, as Claude Code 2.1.328: the session's counters, the result's index, its origin.
    const message = stats
      ? {
          ...turnResult,
          subagent_stats: stats,
          result_index: this.resultsYielded++,
          ...(outcome.origin ? { origin: outcome.origin } : {}),
        }
      : turnResult;
    this.resultYieldedFor = pos.turnWorkflowId;
    yield message;
  }

  /**
   * The outcome with the session's totals (cost and usage by model, this turn included) in place
   * of the turn's: added to what the session had before (`pos.sessionBefore`), or, for a turn
   * this engine did not start (`attach`), the session's own once it has counted this turn. When
   * neither can be had (an older session, a turn since followed by others), the turn's own.
   */
  private async sessionTotals(pos: StreamPosition, outcome: TurnOutcome): Promise<TurnOutcome> {
    let spend: SessionSpend | undefined;
    if (pos.sessionBefore) {
      const modelUsage = mergeModelUsage(pos.sessionBefore.modelUsage, outcome.modelUsage);
      const cost = totalCost(modelUsage);
      spend = { costUsd: cost.usd, costKnown: cost.known, modelUsage };
    } else {
      spend = await this.sessionSpendThrough(pos.turnWorkflowId);
    }
    return spend
      ? { ...outcome, costUsd: spend.costUsd, costKnown: spend.costKnown, modelUsage: spend.modelUsage }
      : outcome;
  }

  /** The session's totals once it has counted `turnWorkflowId`, if that is its last turn (waits briefly). */
  private async sessionSpendThrough(turnWorkflowId: string): Promise<SessionSpend | undefined> {
    const deadline = Date.now() + SESSION_APPLY_WAIT_MS;
    try {
      for (;;) {
        const s = await this.sessionHandle().query(sessionStateQuery);
        if (s.lastTurnWorkflowId === turnWorkflowId) {
          return { costUsd: s.totalCostUsd, costKnown: s.costKnown, modelUsage: s.modelUsage };
        }
        if (s.currentTurnWorkflowId !== turnWorkflowId || Date.now() >= deadline) return undefined;
        await sleep(20);
      }
    } catch {
      return undefined; // the session is gone (idle timeout) or unreachable: the turn's figures
    }
  }

  /**
   * The MCP servers of a starting turn and their tool names, once its `connectMcpServers` step is
   * done (polled; at most `timeoutMs`, after which `system/init` lists none).
   */
  private async mcpInit(
    turnWorkflowId: string,
    timeoutMs = 120_000,
  ): Promise<{ servers: McpServerState[]; toolNames: string[] } | undefined> {
    const handle = this.opts.client.workflow.getHandle(turnWorkflowId);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      let progress: TurnProgress | undefined;
      try {
        progress = await handle.query(turnProgressQuery);
      } catch {
        progress = undefined; // not started yet, or no worker right now: try again
      }
      if (progress?.mcp) {
        const list = await loadMcpTools(this.opts.store, this.sessionId, progress.mcp.toolsRef);
        return { servers: progress.mcp.servers, toolNames: list.tools.map((t) => t.name) };
      }
      if (progress?.done) return undefined;
      await sleep(this.opts.pollIntervalMs ?? 100);
    }
    return undefined;
  }

  /** Results this engine has yielded (the next one's `result_index`). */
  private resultsYielded = 0;
  /** Runs of agents this engine has streamed (their run ids). */
  private readonly streamedRuns = new Set<string>();
  /** The session's commands (background Bash, Monitor, long foreground Bash) in the stream. */
  private shellStream: ShellStream | undefined;
  private get shells(): ShellStream {
    this.shellStream ??= new ShellStream(this.sessionId, () => this.sessionTasks());
    return this.shellStream;
  }

  /** The session's task table, or undefined when the session cannot answer. */
  private async sessionTasks(): Promise<TaskRecord[] | undefined> {
    try {
      return (await this.sessionHandle().query(sessionStatusQuery)).tasks ?? [];
    } catch {
      return undefined;
    }
  }

  private subagentDeps(): SubagentStreamDeps {
    return {
      client: this.opts.client,
      sessionId: this.sessionId,
      cwd: this.opts.cwd,
      readEntry: (u) => this.readEntry(u),
      tasks: async () => {
        try {
          return (await this.sessionHandle().query(sessionStatusQuery)).tasks ?? [];
        } catch {
          return [];
        }
      },
    };
  }

  /** The session's subagent counters (`subagent_stats`), or undefined when the session cannot answer. */
  private async subagentStats(): Promise<SubagentStats | undefined> {
    try {
      return (await this.sessionHandle().query(sessionStatusQuery)).subagentStats ?? emptySubagentStats();
    } catch {
      return undefined;
    }
  }

  /**
   * The messages of the agents an entry concerns, as Claude Code streams them before it: an
   * assistant line's Agent calls are noted; before the line with their results, a foreground
   * agent's whole run ({@link agentRunMessages}) and a background agent's `task_started`. A
   * `SendMessage` that resumed a finished agent starts its next run: its `task_started` too, with
   * the message as the prompt (recording agent-send-message). A `TaskStop` of a background agent
   * ends its run before the call's result (its run's messages go first) and its conversation
   * after it (`[Request interrupted by user]`, pushed to `after`; recording agent-task-stop).
   */
  private async *agentMessages(
    entry: TranscriptEntry,
    calls: Map<string, string>,
    turnWorkflowId: string,
    after: SDKMessage[],
  ): AsyncGenerator<SDKMessage, void, undefined> {
    const blocks = (Array.isArray(entry.message?.content) ? entry.message.content : []) as Array<
      Record<string, unknown>
    >;
    if (entry.type === 'assistant') {
      for (const b of blocks) {
        const field = { Agent: 'prompt', SendMessage: 'message', TaskStop: 'task_id' }[String(b['name'])];
        if (b['type'] !== 'tool_use' || field === undefined) continue;
        const value = ((b['input'] ?? {}) as Record<string, unknown>)[field];
        calls.set(String(b['id']), typeof value === 'string' ? value : '');
      }
      return;
    }
    if (entry.toolRun?.tool === 'TaskStop') {
      const stop = blocks.find((b) => b['type'] === 'tool_result' && calls.has(String(b['tool_use_id'])));
      if (stop && stop['is_error'] !== true)
        yield* this.stoppedAgent(calls.get(String(stop['tool_use_id'])) ?? '', after);
      return;
    }
    // A SendMessage result starts a run only when it resumed the agent (not queued, not refused).
    const resumed = (entry.toolUseResult as { resumedAgentId?: unknown } | undefined)?.resumedAgentId !== undefined;
    if (entry.toolRun?.tool === 'SendMessage' && !resumed) return;
    const answered = blocks
      .filter((b) => b['type'] === 'tool_result' && calls.has(String(b['tool_use_id'])))
      .map((b) => String(b['tool_use_id']));
    for (const id of answered) {
      const found = await this.agentTaskOf(id, turnWorkflowId);
      const task = found?.task;
      if (!task || this.streamedRuns.has(task.runId)) continue;
      const prompt = calls.get(id) ?? '';
      if (task.owner === 'session') {
        // As Claude Code: the running set with it, then its start (its run comes when it ends).
        yield backgroundTasksChanged(this.sessionId, runningAtLaunch(task, found.all, [...calls.keys()]));
        yield taskStartedMessage(this.sessionId, task, prompt);
        continue;
      }
      this.streamedRuns.add(task.runId);
      yield* agentRunMessages(this.subagentDeps(), task, { started: true, prompt });
    }
  }

  /** A background agent a TaskStop ended: its run's messages and the running set now; its interrupt marker to `after`. */
  private async *stoppedAgent(taskId: string, after: SDKMessage[]): AsyncGenerator<SDKMessage, void, undefined> {
    const found = await this.taskWhen(
      (t) => t.taskId === taskId,
      (t) => t.kind !== 'agent' || t.owner !== 'session' || t.status !== 'running',
    );
    const task = found?.task;
    if (!found || task?.kind !== 'agent' || task.owner !== 'session' || task.status === 'running') return;
    if (this.streamedRuns.has(task.runId)) return;
    this.streamedRuns.add(task.runId);
    yield* agentRunMessages(this.subagentDeps(), task, { started: false });
    yield backgroundTasksChanged(this.sessionId, found.all);
    if (task.status === 'killed') after.push(interruptedAgentMessage(this.sessionId, task));
  }

  /**
   * The task record of the agent an Agent call started, once a foreground one has ended (the
   * session folds its end in a few ms after the turn wrote the call's result; waits up to 5 s).
   */
  private agentTaskOf(
    toolUseId: string,
    turnWorkflowId: string,
  ): Promise<{ task: TaskRecord | undefined; all: TaskRecord[] } | undefined> {
    return this.taskWhen(
      (t) => t.kind === 'agent' && t.toolUseId === toolUseId && t.startedBy === turnWorkflowId,
      (t) => t.owner === 'session' || t.status !== 'running',
    );
  }

  /**
   * The session's task that `find` picks, once `ready` holds of it (asked every 20 ms for up to
   * `SESSION_APPLY_WAIT_MS`; then as it is), with the whole table; undefined when the session
   * cannot answer.
   */
  private async taskWhen(
    find: (t: TaskRecord) => boolean,
    ready: (t: TaskRecord) => boolean,
  ): Promise<{ task: TaskRecord | undefined; all: TaskRecord[] } | undefined> {
    const deadline = Date.now() + SESSION_APPLY_WAIT_MS;
    for (;;) {
      let all: TaskRecord[];
      try {
        all = (await this.sessionHandle().query(sessionStatusQuery)).tasks ?? [];
      } catch {
        return undefined;
      }
      const task = all.find(find);
      if ((task && ready(task)) || Date.now() >= deadline) return { task, all };
      await sleep(20);
    }
  }

  /** The ended background agents of the session not streamed yet: their runs' messages. */
  private async *endedBackgroundAgents(tasks: readonly TaskRecord[]): AsyncGenerator<SDKMessage, void, undefined> {
    for (const t of tasks) {
      if (t.kind !== 'agent' || t.owner !== 'session' || t.status === 'running' || this.streamedRuns.has(t.runId)) {
        continue;
      }
      this.streamedRuns.add(t.runId);
      yield* agentRunMessages(this.subagentDeps(), t, { started: false });
      yield backgroundTasksChanged(this.sessionId, tasks);
    }
  }

  private readEntry(uuid: string): Promise<TranscriptEntry | undefined> {
    return readTurnLine(this.opts.store, this.sessionId, uuid);
  }

  /**
   * Session state (usage and cost totals, denials, read files, turn count).
   *
   * Reads its own writes: once this engine has yielded a turn's `result`, the state returned
   * includes that turn. The result comes from the turn workflow, and the session workflow folds it
   * into its totals in its next workflow task, a few ms later; until then the query is retried
   * every 20 ms, for at most `SESSION_APPLY_WAIT_MS` (after which the state as it is returns).
   */
  async state(): Promise<SessionState & { busy: boolean; currentTurnWorkflowId: string | null }> {
    const handle = this.sessionHandle();
    const turn = this.resultYieldedFor;
    const deadline = Date.now() + SESSION_APPLY_WAIT_MS;
    for (;;) {
      const s = await handle.query(sessionStateQuery);
      const pending = turn !== undefined && s.lastTurnWorkflowId !== turn && s.currentTurnWorkflowId === turn;
      if (!pending || Date.now() >= deadline) return s;
      await sleep(20);
    }
  }

  /**
   * The turns that the session's background tasks start after the turn this engine followed:
   * each one's messages and result, until no task of the session runs, no notification waits and
   * no turn runs. Claude Code's `-p` holds its process so while background agents run (its
   * notification turn gives a second result line); here the session holds the tasks, so a client
   * that stops following loses nothing.
   */
  async *followTasks(): AsyncGenerator<SDKMessage, void, undefined> {
    // Following the session's tasks is streaming too: an interrupt now stops them.
    this.openStreams++;
    this.followingTasks = true;
    try {
      yield* this.followTaskTurns();
    } finally {
      this.openStreams--;
      this.followingTasks = false;
    }
  }

  /**
   * True while {@link followTasks} runs: the engine waits for the session's background tasks
   * (an interrupt stops them, see `interruptSignal`).
   */
  followingTasks = false;

  private async *followTaskTurns(): AsyncGenerator<SDKMessage, void, undefined> {
    const handle = this.sessionHandle();
    // Turns are numbered: every turn after the followed one is followed, also one that started
    // and ended before this call (a client slow to read its first result misses none).
    let next = this.resultYieldedFor !== undefined ? (turnNumberOf(this.resultYieldedFor) ?? 0) + 1 : undefined;
    const poll = this.opts.pollIntervalMs ?? 100;
    // A server that goes away while tasks run is waited for, as while a turn is followed.
    const waiter = new OutageWaiter(this.outageOptions());
    for (;;) {
      const s = await waiter.run(() => handle.query(sessionStatusQuery));
      const current = s.currentTurnWorkflowId !== null ? turnNumberOf(s.currentTurnWorkflowId) : undefined;
      const last = current ?? s.turnCount;
      next ??= current ?? s.turnCount + 1;
      yield* this.shells.endsIn(s.tasks);
      if (next <= last) {
        const turn = turnWorkflowId(this.sessionId, next);
        next++;
        if (this.opts.defaults.subagents) yield* this.endedBackgroundAgents(s.tasks ?? []);
        // As Claude Code, a turn a notification starts is announced by its own `system/init`.
        yield initMessage({
          sessionId: this.sessionId,
          uuid: randomUUID(),
          cwd: this.opts.cwd,
          options: this.opts.defaults,
          apiKeySource: this.opts.apiKeySource ?? 'user',
        });
        yield* this.follow({ turnWorkflowId: turn, offset: 0 });
        continue;
      }
      // A cron job does not hold -p (2.1.328 exits with one pending); the session keeps it.
      const running = (s.tasks ?? []).some((t) => t.status === 'running' && t.owner === 'session' && t.kind !== 'cron');
      if (!running && !s.notificationsQueued && !s.busy) return;
      await sleep(Math.max(poll, 100));
    }
  }

  /**
   * Whether a background agent of the session has a run whose end this engine has not streamed
   * yet: one that runs, or ended since (`-p` holds its result lines meanwhile, as Claude Code's
   * until the agent's `task_notification`). False when the session cannot answer.
   */
  async backgroundAgentsRunning(): Promise<boolean> {
    try {
      const s = await this.sessionHandle().query(sessionStatusQuery);
      return (s.tasks ?? []).some(
        (t) =>
          t.kind === 'agent' && t.owner === 'session' && (t.status === 'running' || !this.streamedRuns.has(t.runId)),
      );
    } catch {
      return false;
    }
  }

  /**
   * What the session has spent so far, running work included (USD): its finished turns' total,
   * plus what its running turn and every running agent's turn have spent (their `progress`). A
   * running agent's spend reaches the session's total only when it ends; this sees it live.
   * Undefined when the session cannot answer. An agent's turn that cannot answer counts 0.
   */
  async liveSpendUsd(): Promise<number | undefined> {
    const s = await this.sessionHandle()
      .query(sessionStatusQuery)
      .catch(() => undefined);
    if (!s) return undefined;
    const running = [
      ...(s.currentTurnWorkflowId ? [s.currentTurnWorkflowId] : []),
      ...(s.tasks ?? []).filter((t) => t.kind === 'agent' && t.status === 'running').map((t) => t.workflowId),
    ];
    const live = await Promise.all(
      running.map((id) =>
        this.opts.client.workflow
          .getHandle(id)
          .query(turnProgressQuery)
          .then(
            (p) => p.costUsd,
            () => 0,
          ),
      ),
    );
    return live.reduce((a, b) => a + b, s.totalCostUsd);
  }

  /**
   * True while a background task of the session runs whose end starts a turn (an agent, command,
   * monitor or wake-up; not a cron job), or a notification waits for its turn. False when the
   * session cannot answer.
   */
  async backgroundTasksRunning(): Promise<boolean> {
    const s = await this.sessionHandle()
      .query(sessionStatusQuery)
      .catch(() => undefined);
    if (!s) return false;
    // A task's end or a monitor's event already queued will start a turn too.
    return (
      (s.notificationsQueued ?? 0) > 0 ||
      (s.tasks ?? []).some((t) => t.owner === 'session' && t.status === 'running' && t.kind !== 'cron')
    );
  }

  /** Interrupts the running turn: it ends with a clean result (every tool_use answered). */
  async interrupt(reason?: string): Promise<void> {
    await this.sessionHandle().signal(interruptSignal, reason);
  }

  /**
   * Stops the session's run at a limit of its client's: interrupts the running turn, stops the
   * background tasks, and drops the notifications already queued (no further turn starts for
   * them; submits stay).
   */
  async stopRun(reason: string): Promise<void> {
    await this.sessionHandle().signal(stopRunSignal, reason);
  }

  /** Changes limits of the running turn and of later turns. */
  async setLimits(patch: LimitPatch): Promise<void> {
    await this.sessionHandle().signal(setLimitsSignal, patch);
  }

  /** Lets the session workflow complete once idle; `--resume` rebuilds it from the store. */
  async end(): Promise<void> {
    // Session-only cron jobs end with their client, as CronCreate's text tells the model
    // (outsider F4: they fired for days after `-p` exited); durable ones stay.
    await this.sessionHandle().signal(cronCommandSignal, {
      requestId: randomUUID(),
      replyTo: '',
      kind: 'end-session-only',
    });
    await this.sessionHandle().signal(endSessionSignal);
  }

  /**
   * Ends the session and waits until its workflow has closed (at most `timeoutMs`), so that a
   * process about to stop its in-process worker leaves no session running with stale state.
   * @returns true when the workflow closed in time
   */
  async endAndWait(timeoutMs = 10_000): Promise<boolean> {
    await this.end();
    // Aborted when the wait ends: a long poll left running after a timeout would retry on a
    // closed connection once the caller is done.
    const poll = new AbortController();
    const closed = this.opts.client
      .withAbortSignal(poll.signal, () => this.sessionHandle().result())
      .then(
        () => true,
        () => true,
      );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([closed, timeout]);
    } finally {
      clearTimeout(timer);
      poll.abort();
    }
  }
}

/**
 * The session's background agents running when `task` was launched, in launch order, it last:
 * those launched before it (an earlier call of the same response by call order, `calls`; others by
 * start time) and not ended by then. Claude Code launches a response's Agent calls one by one, so
 * its `background_tasks_changed` grows by one per call (recorded: agent-parallel-background).
 */
export function runningAtLaunch(task: TaskRecord, all: readonly TaskRecord[], calls: readonly string[]): TaskRecord[] {
  const at = (t: TaskRecord): number => calls.indexOf(t.toolUseId);
  const before = (a: TaskRecord, b: TaskRecord): number =>
    at(a) >= 0 && at(b) >= 0 && a.startedBy === b.startedBy ? at(a) - at(b) : a.startedAtMs - b.startedAtMs;
  return all
    .filter(
      (t) =>
        t !== task &&
        t.kind === 'agent' &&
        t.owner === 'session' &&
        before(t, task) < 0 &&
        (t.endedAtMs === undefined || t.endedAtMs > task.startedAtMs),
    )
    .sort(before)
    .map((t) => ({ ...t, status: 'running' as const }))
    .concat([{ ...task, status: 'running' }]);
}
