import { z } from 'zod';

export { TRANSCRIPT_SCHEMA_VERSION } from './version';

/** One content block of a message, Messages API shape; unknown fields are kept. */
export const ContentBlockSchema = z.looseObject({ type: z.string() });
export type ContentBlock = z.infer<typeof ContentBlockSchema> & Record<string, unknown>;

const tokenCount = z.number().int().nonnegative();

/** Token usage, Messages API shape (tokens); see `Usage` in `usage.ts`. Extra fields are dropped. */
export const UsageSchema = z.object({
  input_tokens: tokenCount,
  output_tokens: tokenCount,
  cache_creation_input_tokens: tokenCount,
  cache_read_input_tokens: tokenCount,
});

/**
 * A message in Messages API shape (`MessageParam` for users, `Message` for the assistant:
 * `id`, `model`, `stop_reason`, `usage` are present on assistant messages).
 */
export const TranscriptMessageSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(ContentBlockSchema)]),
  /** Message id (`msg_…`), on assistant messages. */
  id: z.string().optional(),
  /** Model that answered, on assistant messages. */
  model: z.string().optional(),
  stop_reason: z.string().nullable().optional(),
  stop_sequence: z.string().nullable().optional(),
  /** Usage of the API call that produced an assistant message (tokens). Older lines may lack fields. */
  usage: z
    .looseObject({
      input_tokens: z.number().optional(),
      output_tokens: z.number().optional(),
      cache_creation_input_tokens: z.number().nullable().optional(),
      cache_read_input_tokens: z.number().nullable().optional(),
    })
    .optional(),
});

/** Read-file state of a path (see `FileReadState` in `tools.ts`). */
const FileReadStateSchema = z.object({ mtimeMs: z.number(), size: z.number(), sha256: z.string() });

/** What the runner recorded about a tool run, on its tool_result line. */
export const ToolRunRecordSchema = z.object({
  /** Tool name as the model called it. */
  tool: z.string(),
  /** See `RunToolSummary.outcome`. */
  outcome: z.enum(['ok', 'error', 'denied', 'unknown', 'invalid', 'ask']),
  /** New read-file state of a path (after Read, Write or Edit). */
  fileState: z.object({ path: z.string(), state: FileReadStateSchema }).optional(),
  /** Tool input of a denied call (JSON, truncated to 1 KB), for `permission_denials`. */
  deniedInput: z.unknown().optional(),
  /** Why a call was denied, in Claude Code's terms (`PermissionReasonType` in `permissions.ts`). */
  denyReason: z
    .enum(['rule', 'mode', 'workingDir', 'safetyCheck', 'subcommandResults', 'other', 'hook', 'hook_ask', 'approval'])
    .optional(),
  /** The denial is not reported to the model as a permission error (`src/activities/hooks`, approvals). */
  denySilent: z.literal(true).optional(),
  /** The denial's one-line reason or rule, when there is one. */
  denyDetail: z.string().optional(),
  /** Where a Bash command left the shell, relative to the working directory (`shell-cwd.ts`). */
  shellCwd: z.string().optional(),
  /** The working tree stored after the tool ran (`SnapshotRef` in `workspace.ts`). */
  snapshot: z.object({ toolUseId: z.string(), commit: z.string(), bytes: z.number() }).optional(),
  /** Allow rules the call brought into the turn (a loaded skill's `allowed-tools`). */
  allowedRules: z.array(z.string()).optional(),
  /** Model calls the tool made (WebSearch, WebFetch): what they were billed (`ToolModelSpend` in `usage.ts`). */
  modelSpend: z
    .object({
      model: z.string(),
      usage: UsageSchema,
      webSearchRequests: tokenCount,
      thinkingTokens: tokenCount.optional(),
      costUsd: z.number().nullable(),
      calls: tokenCount,
      durationMs: z.number().nonnegative(),
    })
    .optional(),
  /** Bash with `run_in_background`: the launched task (`BackgroundLaunch` in `shell-tasks.ts`). */
  background: z
    .object({
      taskId: z.string(),
      outputFile: z.string(),
      timeoutMs: z.number(),
      description: z.string(),
      command: z.string(),
      cwd: z.string(),
    })
    .optional(),
});
export type ToolRunRecord = z.infer<typeof ToolRunRecordSchema>;

/**
 * The usage a call reports (its result counts it, exactly once): every attempt of the call the
 * API billed (`units`: keys `<callUuid>/<attempt>/<phase>` of the store's attempt usage records),
 * including attempts of earlier calls that ended after those calls had reported. Tokens by model.
 */
export const BillingSchema = z.object({
  units: z.array(z.string()),
  byModel: z.record(z.string(), UsageSchema),
});
export type Billing = z.infer<typeof BillingSchema>;
export type TranscriptMessage = z.infer<typeof TranscriptMessageSchema>;

/**
 * One line of a session transcript (`<dataDir>/sessions/<sessionId>.jsonl`).
 *
 * - `user`: a prompt, or one `tool_result` (then `toolUseResult` holds the tool's structured output).
 * - `assistant`: one complete model response (all content blocks of one API call).
 * - `system` with `subtype: "compact_boundary"`: the context sent to the model starts after it;
 *   the next `user` line holds the summary.
 * - `attachment`: context the runner adds for the model (memory files, git status, environment),
 *   in `attachments`; a tool-result or summary line may carry `attachments` too (nested memory,
 *   the session's context after a compaction).
 *
 * Lines form a chain through `parentUuid`; the file order is not the conversation order.
 * Writes are upserts by `uuid`.
 */
const TranscriptEntryFields = {
  v: z.number().int().optional(),
  type: z.enum(['user', 'assistant', 'system', 'attachment']),
  subtype: z.string().optional(),
  uuid: z.string().min(1),
  parentUuid: z.string().nullable(),
  sessionId: z.string().min(1),
  timestamp: z.string(),
  message: TranscriptMessageSchema.optional(),
  /** Structured output of a tool (Claude Code's `tool_use_result`), on tool_result lines. */
  toolUseResult: z.unknown().optional(),
  /** Id of the turn workflow that wrote the line. */
  turnId: z.string().optional(),
  /** Set on compact boundaries: what triggered compaction and the context size before it, in tokens. */
  compactMetadata: z.object({ trigger: z.enum(['manual', 'auto']), pre_tokens: z.number() }).optional(),
  /** Messages API `request-id` of the call that produced an assistant line. */
  requestId: z.string().optional(),
  /** Marks a line the runner wrote for the model's benefit (e.g. a nudge), not typed by a user. */
  isMeta: z.boolean().optional(),
  /** Working directory of the turn, on prompt lines (`agent-runner list` shows it). */
  cwd: z.string().optional(),
  /** `max_tokens` of the request, on assistant lines (tokens). */
  maxTokens: z.number().int().positive().optional(),
  /** On assistant lines with thinking: how the request asked the API to show it (`thinking.display`). */
  thinkingDisplay: z.string().optional(),
  /** tool_use ids whose streamed input was not valid JSON, with that text, on assistant lines. */
  invalidToolInputs: z.record(z.string(), z.string()).optional(),
  /** What the runner recorded about the tool run, on tool_result lines. */
  toolRun: ToolRunRecordSchema.optional(),
  /** On a compaction summary line: the summary was built without the model (its call failed). */
  compactFallback: z.boolean().optional(),
  /** Billed usage the line's call reports, on assistant and compaction-summary lines. */
  billing: BillingSchema.optional(),
  /**
   * On assistant lines answered through the Message Batches API (`--batch-api`): the batch and the
   * request's `custom_id`. The line is priced at batch rates (src/common/batch.ts).
   */
  messageBatch: z.object({ id: z.string(), customId: z.string() }).optional(),
  /** On a compaction's summary line (`model/compact.ts`): it is one; the summary text alone. */
  isCompactSummary: z.boolean().optional(),
  compactSummary: z.string().optional(),
  /** On a compact boundary: its summary line, and the recent lines kept verbatim after it. */
  summaryUuid: z.string().optional(),
  preservedSegment: z
    .object({ headUuid: z.string().optional(), tailUuid: z.string(), count: z.number().int() })
    .optional(),
  /** On a copy of a preserved line: the line it copies. */
  preservedFrom: z.string().optional(),
  /** On a compact boundary: the shell's directory at that point (`shell-cwd.ts`). */
  shellCwd: z.string().optional(),
  /** On a file-reminder line (`model/file-reminders.ts`): the files it reports. */
  fileReminder: z
    .object({
      files: z.array(z.object({ path: z.string(), state: FileReadStateSchema.nullable(), shown: z.boolean() })),
    })
    .optional(),
  /**
   * On a `microcompact_boundary` system line (`model/microcompact.ts`): the tool_use ids whose
   * results requests from here on send as a placeholder, and the tokens that freed (estimated).
   */
  microcompactMetadata: z
    .object({
      trigger: z.literal('auto'),
      preTokens: z.number(),
      tokensSaved: z.number(),
      compactedToolIds: z.array(z.string()),
    })
    .optional(),
  /**
   * On a `content_replacement` system line (`model/tool-result-budget.ts`): tool results that
   * requests from here on send as their `<persisted-output>` reference (Claude Code's
   * `content-replacement` record), the text sent and the characters of the result it replaces.
   */
  contentReplacementMetadata: z
    .object({
      replacements: z.array(z.object({ toolUseId: z.string(), replacement: z.string(), originalChars: z.number() })),
    })
    .optional(),
  /**
   * On a `snip_boundary` system line (`model/snip.ts`): the lines (stale rounds) that requests
   * from here on leave out, how many rounds, and the tokens that freed (estimated).
   */
  snipMetadata: z.object({ removedUuids: z.array(z.string()), rounds: z.number(), tokensFreed: z.number() }).optional(),
  /**
   * On a `collapse_boundary` system line (`model/collapse.ts`): the lines (old rounds whose
   * results were cleared) that requests from here on leave out, and the digests appended to the
   * result lines kept in their place (`targetUuid`; the text sent and the labels of the calls it
   * names); rounds left out and the tokens that freed (estimated). A later digest of the same
   * target replaces an earlier one.
   */
  collapseMetadata: z
    .object({
      collapsedUuids: z.array(z.string()),
      digests: z.array(z.object({ targetUuid: z.string(), text: z.string(), calls: z.array(z.string()) })),
      rounds: z.number(),
      tokensFreed: z.number(),
    })
    .optional(),
  /** The structured output of a turn (`--json-schema`), on the line that carries it. */
  structuredOutput: z.unknown().optional(),
  /** Hooks (`src/activities/hooks/`): the event of a hook's context line; a hook run's outcome; the config. */
  hookEvent: z.string().optional(),
  /**
   * On a message `SendMessage` delivered to a running agent (with `isMeta`): the model gets it as a
   * mid-conversation `system` message after the tool results, and it is not streamed, as in
   * Claude Code 2.1.328 (recording agent-running-list-send).
   */
  coordinatorMessage: z.boolean().optional(),
  /**
   * On the notice of a prompt a UserPromptSubmit hook blocked: the lines of its turn (`turnId`)
   * are not part of the conversation (the next turn goes on from before the prompt).
   */
  dropsTurn: z.boolean().optional(),
  /** On the note after a refused response: the API message id of that response (`refused_message_id`). */
  refusedMessageId: z.string().optional(),
  /** On a Stop hook's feedback line: an earlier Stop hook of the turn blocked too (`stop_hook_active`). */
  stopHookActive: z.boolean().optional(),
  hookOutcome: z.unknown().optional(),
  hooksConfig: z.unknown().optional(),
  /** A tool input a hook replaced (`PreToolUse` `updatedInput`). */
  updatedInput: z.record(z.string(), z.unknown()).optional(),
  /** MCP (`src/activities/mcp/`): the session's server config and the tools they offer. */
  mcpConfig: z.unknown().optional(),
  mcpTools: z.unknown().optional(),
  /** A line beside the conversation (config of hooks or MCP), never on a chain (`store/sidecar.ts`). */
  isSidecar: z.boolean().optional(),
  /** Context for the model (`ContextAttachment` of src/common/context.ts), rendered by the request builder. */
  attachments: z.array(z.looseObject({ type: z.string() })).optional(),
  /**
   * On the line a command's expansion or failure writes (`prepareCommand`): the prompt line whose
   * text it stands for when the model is asked (`/fix-ci x` becomes the command block and its body).
   */
  replacesPrompt: z.string().optional(),
  /** On the answer of a command that ended before any model call: what Claude Code's stream says of it. */
  localCommand: z
    .object({ source: z.string(), outcome: z.string(), command: z.string().optional(), args: z.string().optional() })
    .optional(),
  /** On a task notification's line: the task run whose end it tells of (`src/common/tasks.ts`). */
  taskNotification: z.object({ taskId: z.string(), runId: z.string() }).optional(),
  /** On the session's context line: the memory sources it was loaded with (`--setting-sources`). */
  settingSources: z.array(z.enum(['user', 'project', 'local'])).optional(),
};

/**
 * Parses a line: the fields above are checked, unknown fields are kept (lines written by a newer
 * version, or by Claude Code, survive a read and a copy).
 */
export const TranscriptEntrySchema = z.looseObject(TranscriptEntryFields);

/**
 * A line as the code sees it: exactly the fields declared above, with no index signature, so that
 * writing or reading a field the schema does not declare fails to compile (a new field is added
 * to the schema first, and with it to every backend's validation).
 */
export type TranscriptEntry = z.infer<z.ZodObject<typeof TranscriptEntryFields>>;
