import { z } from 'zod';

/**
 * Schema version of a transcript line. Bump it when a line's meaning changes, and keep a
 * fixture of the old version in `test/fixtures/transcripts/`.
 */
export const TRANSCRIPT_SCHEMA_VERSION = 1;

/** One content block of a message, Messages API shape; unknown fields are kept. */
export const ContentBlockSchema = z.looseObject({ type: z.string() });
export type ContentBlock = z.infer<typeof ContentBlockSchema> & Record<string, unknown>;

/**
 * A message in Messages API shape (`MessageParam` for users, `Message` for the assistant:
 * `id`, `model`, `stop_reason`, `usage` are present on assistant messages).
 */
export const TranscriptMessageSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(ContentBlockSchema)]),
});
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
export const TranscriptEntrySchema = z.looseObject({
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
  /** Context for the model (`ContextAttachment` of src/common/context.ts), rendered by the request builder. */
  attachments: z.array(z.looseObject({ type: z.string() })).optional(),
  /** On the session's context line: the memory sources it was loaded with (`--setting-sources`). */
  settingSources: z.array(z.enum(['user', 'project', 'local'])).optional(),
});
export type TranscriptEntry = z.infer<typeof TranscriptEntrySchema>;
