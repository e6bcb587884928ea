import { Context } from '@temporalio/activity';
import type { RunToolSummary } from '../../common/tools';
import { MAX_STRUCTURED_OUTPUT_ERROR_CHARS, STRUCTURED_OUTPUT_TOOL } from '../../common/structured-output';
import type { SnapshotRef } from '../../common/workspace';
import type { ToolModelSpend } from '../../common/usage';
import type { ContentBlock, TranscriptEntry } from '../../common/transcript';
import { TRANSCRIPT_SCHEMA_VERSION } from '../../common/transcript';
import type { TranscriptStore } from '../../store/transcript-store';
import { nestedMemoryAttachments } from '../context/nested-memory';
import type { ToolCall, ToolRunInput } from './call';
import type { RunToolDeps } from './deps';
import type { ToolRun } from './execute';

/**
 * The result of this call if one is stored: by the uuid the workflow planned, or (written by an
 * older version under another uuid) a tool_result for the tool_use id at the same place in the
 * chain (same parent), found through the store's index of tool_use ids, not a scan of the
 * session. A tool_result elsewhere with the same id (a copy kept by a compaction, an id an API
 * repeated) is another call's.
 */
export async function storedResultOf(
  store: TranscriptStore,
  input: ToolRunInput,
): Promise<TranscriptEntry | undefined> {
  const byUuid = await store.get(input.sessionId, input.resultUuid);
  if (byUuid) return byUuid;
  const lines = await store.toolResultLines(input.sessionId, input.toolUseId);
  return lines.find((e) => e.type === 'user' && e.parentUuid === input.parentUuid);
}

function contentBytes(content: string | ContentBlock[]): number {
  return Buffer.byteLength(typeof content === 'string' ? content : JSON.stringify(content));
}

/** What the workflow learns of a stored result line (`replayed`: it was there before this attempt). */
export function summaryOf(entry: TranscriptEntry, input: ToolRunInput, replayed: boolean): RunToolSummary {
  const content = entry.message?.content;
  const block = (Array.isArray(content) ? content : []).find((b) => b.type === 'tool_result') as
    { is_error?: boolean; content?: string | ContentBlock[] } | undefined;
  const meta = entry.toolRun;
  return {
    toolUseId: input.toolUseId,
    resultUuid: entry.uuid,
    isError: block?.is_error === true,
    outcome: meta?.outcome ?? (block?.is_error ? 'error' : 'ok'),
    ...(meta?.fileState ? { fileState: meta.fileState } : {}),
    ...(meta?.deniedInput !== undefined ? { deniedInput: meta.deniedInput } : {}),
    resultBytes: contentBytes(block?.content ?? ''),
    replayed,
    ...(input.toolName === STRUCTURED_OUTPUT_TOOL && block?.is_error && typeof block.content === 'string'
      ? { structuredOutputError: block.content.slice(0, MAX_STRUCTURED_OUTPUT_ERROR_CHARS) }
      : {}),
    ...(meta?.snapshot ? { snapshot: meta.snapshot } : {}),
    ...(meta?.allowedRules?.length ? { allowedRules: meta.allowedRules } : {}),
    ...(meta?.modelSpend ? { modelSpend: meta.modelSpend as ToolModelSpend } : {}),
    ...(meta?.background ? { background: meta.background } : {}),
  };
}

/**
 * Writes the call's tool_result line (the uuid and parent the workflow planned), with the nested
 * memory a Read, Edit or Write brought in. First writer wins: another attempt may have recorded
 * this call meanwhile, and then its line is reported.
 */
export async function recordToolResult(
  deps: RunToolDeps,
  input: ToolRunInput,
  call: ToolCall,
  run: ToolRun,
  snapshot: SnapshotRef | undefined,
): Promise<RunToolSummary> {
  const turnId = Context.current().info.workflowExecution?.workflowId ?? '';
  const own = run.out.attachments?.length
    ? (run.out.attachments as unknown as NonNullable<TranscriptEntry['attachments']>)
    : [];
  const nested = run.out.outcome === 'ok' ? await nestedMemoryOf(deps.store, input, call, turnId) : undefined;
  const all = [...own, ...(nested ?? [])];
  const attachments = all.length ? all : undefined;
  const entry = resultLine(input, call, run, { turnId, snapshot, attachments });
  const stored = await deps.store.append(entry);
  return summaryOf(stored.entry, input, !stored.written);
}

/**
 * The memory files of the directories between the working directory and the file a Read, Edit
 * or Write named, not yet in this turn's context (read from the session's attachment lines only).
 * Memory is a help for the model: a failure to read it never fails the call.
 */
async function nestedMemoryOf(
  store: TranscriptStore,
  input: ToolRunInput,
  call: ToolCall,
  turnId: string,
): Promise<TranscriptEntry['attachments']> {
  try {
    const nested = await nestedMemoryAttachments({
      cwd: input.cwd,
      turnId,
      toolName: input.toolName,
      toolInput: call.toolInput,
      lines: () => store.attachmentLines(input.sessionId),
    });
    for (const w of nested.warnings) Context.current().log.warn(w, { sessionId: input.sessionId });
    if (nested.attachments.length) return nested.attachments as unknown as TranscriptEntry['attachments'];
  } catch (err) {
    Context.current().log.warn(`nested memory not loaded: ${err instanceof Error ? err.message : String(err)}`);
  }
  return undefined;
}

/** The tool_result line of one call. */
function resultLine(
  input: ToolRunInput,
  call: ToolCall,
  { out, deniedInput, largeResult }: ToolRun,
  extra: { turnId: string; snapshot: SnapshotRef | undefined; attachments: TranscriptEntry['attachments'] },
): TranscriptEntry {
  const { permission } = call;
  const { snapshot, attachments } = extra;
  return {
    v: TRANSCRIPT_SCHEMA_VERSION,
    type: 'user',
    uuid: input.resultUuid,
    parentUuid: input.parentUuid,
    sessionId: input.sessionId,
    timestamp: new Date().toISOString(),
    message: {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: input.toolUseId,
          content: out.content,
          ...(out.isError ? { is_error: true } : {}),
        },
        ...(out.followUp ?? []),
      ],
    },
    turnId: extra.turnId,
    ...(out.structured !== undefined ? { toolUseResult: out.structured } : {}),
    ...(attachments ? { attachments } : {}),
    ...(out.structuredOutput !== undefined ? { structuredOutput: out.structuredOutput } : {}),
    ...(largeResult ? { largeResult } : {}),
    toolRun: {
      tool: input.toolName,
      outcome: out.outcome,
      ...(out.fileState ? { fileState: out.fileState } : {}),
      ...(out.shellCwd !== undefined ? { shellCwd: out.shellCwd } : {}),
      ...(out.background ? { background: out.background } : {}),
      ...(deniedInput !== undefined ? { deniedInput } : {}),
      ...(out.outcome === 'denied' && permission.behavior === 'deny'
        ? {
            denyReason: permission.reason,
            ...(permission.detail !== undefined ? { denyDetail: permission.detail } : {}),
            ...(permission.silent ? { denySilent: true } : {}),
          }
        : {}),
      ...(snapshot ? { snapshot } : {}),
      ...(out.allowedRules?.length ? { allowedRules: out.allowedRules } : {}),
      ...(out.modelSpend ? { modelSpend: out.modelSpend } : {}),
    },
  };
}
