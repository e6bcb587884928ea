/**
 * Writes the tool_result line of a call the workflow answers itself (the task tools: `Agent`,
 * `SendMessage`, `TaskStop`, `ListAgents`), in the same shape as `runTool`'s lines, first writer
 * wins, and returns the summary of the line the store holds.
 */
import { Context } from '@temporalio/activity';
import type { RunToolSummary, ToolPermission } from '../../common/tools';
import type { TranscriptEntry } from '../../common/transcript';
import { TRANSCRIPT_SCHEMA_VERSION } from '../../common/transcript';
import type { TranscriptStore } from '../../store/transcript-store';
import { truncatedInput } from '../tool-run/outputs';

/** One task-tool result to record. */
export interface ToolResultLine {
  sessionId: string;
  toolUseId: string;
  toolName: string;
  resultUuid: string;
  parentUuid: string;
  /** The text the model gets (a string, or text blocks). */
  content: string | Array<{ type: 'text'; text: string }>;
  isError: boolean;
  /** Claude Code's `tool_use_result` of the call. */
  structured?: unknown;
  outcome: RunToolSummary['outcome'];
  /** A refusal: the `toolRun` fields the turn's `permission_denials` are built from. */
  denied?: {
    reason: NonNullable<Extract<ToolPermission, { behavior: 'deny' }>['reason']>;
    silent?: boolean;
    input: unknown;
  };
}

/** The turn (workflow id) of the running activity; empty outside an activity. */
function currentTurnId(): string {
  try {
    return Context.current().info.workflowExecution?.workflowId ?? '';
  } catch {
    return '';
  }
}

/** Writes the line (or finds the one stored under its uuid) and summarizes it. */
export async function writeToolResult(store: TranscriptStore, r: ToolResultLine): Promise<RunToolSummary> {
  const entry: TranscriptEntry = {
    v: TRANSCRIPT_SCHEMA_VERSION,
    type: 'user',
    uuid: r.resultUuid,
    parentUuid: r.parentUuid,
    sessionId: r.sessionId,
    timestamp: new Date().toISOString(),
    message: {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: r.toolUseId, content: r.content, ...(r.isError ? { is_error: true } : {}) },
      ],
    },
    turnId: currentTurnId(),
    ...(r.structured !== undefined ? { toolUseResult: r.structured } : {}),
    toolRun: {
      tool: r.toolName,
      outcome: r.outcome,
      ...(r.denied
        ? {
            deniedInput: truncatedInput(r.denied.input),
            denyReason: r.denied.reason,
            ...(r.denied.silent ? { denySilent: true } : {}),
          }
        : {}),
    },
  };
  const stored = await store.append(entry);
  const block = (stored.entry.message?.content as Array<Record<string, unknown>> | undefined)?.find(
    (b) => b['type'] === 'tool_result',
  );
  return {
    toolUseId: r.toolUseId,
    resultUuid: stored.entry.uuid,
    isError: block?.['is_error'] === true,
    outcome: stored.entry.toolRun?.outcome ?? r.outcome,
    resultBytes: Buffer.byteLength(JSON.stringify(block?.['content'] ?? '')),
    replayed: !stored.written,
    ...(stored.entry.toolRun?.deniedInput !== undefined ? { deniedInput: stored.entry.toolRun.deniedInput } : {}),
  };
}

/**
 * The call as the permission the workflow decided refuses it (`--disallowedTools Agent`, a deny
 * rule, `Task` being Agent's other name): its denial line, written exactly as `runTool` writes a
 * denied call's (same text, `is_error`, and the fields `permission_denials` is built from); or
 * undefined when the permission lets it run. A tool the workflow answers itself asks this first,
 * so no tool escapes the rules by not going through `runTool`.
 */
export async function writeDenialIfDenied(
  store: TranscriptStore,
  call: Omit<ToolResultLine, 'content' | 'isError' | 'structured' | 'outcome' | 'denied'>,
  permission: ToolPermission | undefined,
  input: unknown,
): Promise<RunToolSummary | undefined> {
  if (permission?.behavior !== 'deny') return undefined;
  return writeToolResult(store, {
    ...call,
    content: permission.message,
    isError: true,
    structured: `Error: ${permission.message}`,
    outcome: 'denied',
    denied: { reason: permission.reason ?? 'mode', ...(permission.silent ? { silent: true } : {}), input },
  });
}
