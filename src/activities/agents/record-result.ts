/**
 * `recordAgentResult`: writes the tool_result of a task-tool call (`Agent`, `SendMessage`,
 * `TaskStop`, `ListAgents`) from the small answer the workflow has, building Claude Code
 * 2.1.328's texts from the store (a foreground agent's report is its last assistant line). A
 * finished run's transcript also goes to its output file. First writer wins by the planned uuid.
 */
import type { AgentToolResult, RecordAgentResultInput } from '../../common/agent-run';
import type { TranscriptEntry } from '../../common/transcript';
import type { RunToolSummary } from '../../common/tools';
import { agentOfTurnId } from '../../common/ids';
import type { TranscriptStore } from '../../store/transcript-store';
import type { ToolResultLine } from './tool-result-line';
import { writeToolResult } from './tool-result-line';
import { writeOutputFile } from './output-file';
import type { TaskToolText } from './texts';
import {
  MISSING_TASK_ID,
  handbackText,
  launchedText,
  listAgentsText,
  noTaskText,
  queuedText,
  resumedText,
  stoppedText,
  unreachableText,
} from './texts';

/** The text of an assistant line (its text blocks, joined), or ''. */
export function assistantLineText(e: TranscriptEntry | undefined): string {
  const c = e?.message?.content;
  if (typeof c === 'string') return c;
  return (c ?? [])
    .filter((b) => b.type === 'text')
    .map((b) => String(b['text'] ?? ''))
    .join('\n');
}

/** The lines of one agent on the chain ending at `leafUuid` (a fork's chain starts in its parent's). */
export async function agentLines(
  store: TranscriptStore,
  sessionId: string,
  agentId: string,
  leafUuid: string,
): Promise<TranscriptEntry[]> {
  const chain = await store.chain(sessionId, leafUuid);
  return chain.filter((e) => agentOfTurnId(e.turnId)?.agentId === agentId);
}

/** Creates `recordAgentResult`. */
export function createRecordAgentResult(
  store: TranscriptStore,
  log: (message: string) => void = () => undefined,
): (input: RecordAgentResultInput) => Promise<RunToolSummary> {
  return async (input) => {
    const line = await lineOf(store, input.result, input.sessionId, log);
    return writeToolResult(store, {
      sessionId: input.sessionId,
      toolUseId: input.toolUseId,
      toolName: input.toolName,
      resultUuid: input.resultUuid,
      parentUuid: input.parentUuid,
      ...line,
    });
  };
}

type LineBody = Pick<ToolResultLine, 'content' | 'isError' | 'structured' | 'outcome'>;

const ok = (text: string, structured?: unknown): LineBody => ({
  content: text,
  isError: false,
  ...(structured !== undefined ? { structured } : {}),
  outcome: 'ok',
});
const okWith = (t: TaskToolText): LineBody => ok(t.text, t.structured);
/** A failed call: `tool_use_result` is `Error: <message>` (without the `<tool_use_error>` wrapping), as Claude Code's. */
const failed = (text: string): LineBody => ({
  content: text,
  isError: true,
  structured: `Error: ${text.replace(/^<tool_use_error>([\s\S]*)<\/tool_use_error>$/, '$1')}`,
  outcome: 'error',
});

async function lineOf(
  store: TranscriptStore,
  r: AgentToolResult,
  sessionId: string,
  log: (message: string) => void,
): Promise<LineBody> {
  switch (r.kind) {
    case 'handback':
      return handbackLine(store, r, sessionId, log);
    case 'launched':
      return ok(launchedText(r.agentId, r.outputFile), {
        isAsync: true,
        status: 'async_launched',
        agentId: r.agentId,
        outputFile: r.outputFile,
        canReadOutputFile: true,
        canContinueAgent: true,
      });
    case 'resumed':
      return okWith(resumedText(r.agentId));
    case 'queued':
      return okWith(queuedText(r.agentId));
    case 'unreachable':
      return okWith(unreachableText(r.to));
    case 'stopped':
      return okWith(stoppedText(r.taskId, r.taskType ?? 'local_agent', r.description));
    case 'no-task':
      return failed(noTaskText(r.taskId));
    case 'missing-task-id':
      return failed(MISSING_TASK_ID);
    case 'list':
      return okWith(listAgentsText('agent-runner', sessionId.slice(0, 6), r.rows));
    case 'unavailable':
      return failed(r.message);
  }
}

async function handbackLine(
  store: TranscriptStore,
  r: Extract<AgentToolResult, { kind: 'handback' }>,
  sessionId: string,
  log: (message: string) => void,
): Promise<LineBody> {
  const last = r.lastAssistantUuid ? await store.get(sessionId, r.lastAssistantUuid) : undefined;
  const report = r.error ?? assistantLineText(last);
  try {
    await writeOutputFile(r.outputFile, await agentLines(store, sessionId, r.agentId, r.leafUuid));
  } catch (err) {
    log(`agent ${r.agentId}: output file not written: ${err instanceof Error ? err.message : String(err)}`);
  }
  const text = handbackText({
    agentId: r.agentId,
    report,
    toolsUsed: r.report.toolsUsed,
    ...(r.worktree ? { worktree: r.worktree } : {}),
    totalTokens: r.report.usage.totalTokens,
    toolUses: r.report.usage.toolUses,
    durationMs: r.report.usage.durationMs,
  });
  const structured = {
    status: r.error === undefined ? 'completed' : 'failed',
    agentId: r.agentId,
    toolsUsed: r.report.toolsUsed,
    content: [{ type: 'text', text: report }],
    totalDurationMs: r.report.usage.durationMs,
    totalTokens: r.report.usage.totalTokens,
    totalToolUseCount: r.report.usage.toolUses,
    canContinueAgent: true,
  };
  return { content: [{ type: 'text', text }], isError: false, structured, outcome: 'ok' };
}
