/**
 * The activities' part of the agent events (`src/telemetry/agent-events.ts`): wrappers that emit
 * a record for each real call, by the attempt that made it. A summary of a line an earlier
 * attempt stored (`replayed`) emits nothing, and workflow code never emits, so replaying a
 * workflow emits nothing either. Nothing emitted here goes into workflow history.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { PROMPT_BLOCKS_KEY_PREFIX } from '../common/content-ref';
import type { CallModelInput, CallModelSummary } from '../common/model';
import type { RecordPromptInput } from '../common/turn';
import type { RunToolInput, RunToolSummary, ToolPermission } from '../common/tools';
import type { TranscriptStore } from '../store/transcript-store';
import type { AgentEvents } from '../telemetry/agent-events';
import { CODE_EDIT_TOOLS, type AgentMetrics } from '../telemetry/agent-metrics';
import { gitActivity, linesChanged } from '../telemetry/code-activity';
import type { Activities } from './types';

/** The activities with `callModel`, `recordPrompt` and `runTool` emitting the agent events (all as they are when `events` is absent). */
export function withAgentEvents(events: AgentEvents | undefined, store: TranscriptStore, acts: Activities): Activities {
  if (!events) return acts;
  return {
    ...acts,
    callModel: withModelEvents(acts.callModel, events),
    recordPrompt: withPromptEvents(acts.recordPrompt, events, store),
    runTool: withToolEvents(acts.runTool, events),
  };
}

/** `callModel` emitting `claude_code.api_request` for a call it made, `claude_code.api_error` for one that failed. */
export function withModelEvents(
  fn: (input: CallModelInput) => Promise<CallModelSummary>,
  events: AgentEvents | undefined,
): (input: CallModelInput) => Promise<CallModelSummary> {
  if (!events) return fn;
  return async (input) => {
    const started = Date.now();
    try {
      const summary = await fn(input);
      if (!summary.replayed) {
        events.apiRequest(
          { sessionId: input.sessionId },
          { model: summary.model, usage: summary.usage, costUsd: summary.costUsd, durationMs: summary.durationMs },
        );
      }
      return summary;
    } catch (err) {
      // Only the API's answers (typed by classifyModelError), not the store's failures.
      if (err instanceof ApplicationFailure && err.type?.startsWith('ModelError.')) {
        const details = (err.details?.[0] ?? {}) as { status?: number | null; requestId?: string | null };
        events.apiError(
          { sessionId: input.sessionId },
          {
            model: input.model,
            error: err.message,
            statusCode: details.status ?? null,
            requestId: details.requestId ?? null,
            durationMs: Date.now() - started,
            attempt: attemptNumber(),
          },
        );
      }
      throw err;
    }
  };
}

/**
 * `recordPrompt` emitting `claude_code.user_prompt` when it writes the prompt's line (once per
 * prompt, whatever the retries). The prompt is read again from the store for its length (and, with
 * `OTEL_LOG_USER_PROMPTS`, its text): it never crosses workflow history.
 */
export function withPromptEvents(
  fn: (input: RecordPromptInput) => Promise<{ uuid: string; written: boolean }>,
  events: AgentEvents | undefined,
  store: TranscriptStore,
): (input: RecordPromptInput) => Promise<{ uuid: string; written: boolean }> {
  if (!events) return fn;
  return async (input) => {
    const out = await fn(input);
    if (out.written) {
      const text = await promptText(store, input);
      events.userPrompt({ sessionId: input.sessionId }, text.length, text);
    }
    return out;
  };
}

/**
 * `runTool` emitting `claude_code.tool_decision` (accept or reject) and, for a call that ran,
 * `claude_code.tool_result`. A call not run (`skipReason`, an `ask` left to a person) emits nothing.
 */
export function withToolEvents(
  fn: (input: RunToolInput) => Promise<RunToolSummary>,
  events: AgentEvents | undefined,
): (input: RunToolInput) => Promise<RunToolSummary> {
  if (!events) return fn;
  return async (input) => {
    if (input.skipReason !== undefined) return fn(input);
    const started = Date.now();
    const ctx = { sessionId: input.sessionId };
    const call = { toolName: input.toolName, toolUseId: input.toolUseId };
    const source = decisionSource(input.permission);
    let summary: RunToolSummary;
    try {
      summary = await fn(input);
    } catch (err) {
      // A fault retrying cannot fix: the tool ran (or started) and failed without a result line.
      if (err instanceof ApplicationFailure && err.type === 'Tool.Fault') {
        events.toolDecision(ctx, { ...call, decision: 'accept', source });
        events.toolResult(ctx, {
          ...call,
          success: false,
          durationMs: Date.now() - started,
          decisionSource: source,
          errorType: err.type,
        });
      }
      throw err;
    }
    if (summary.replayed || summary.outcome === 'ask') return summary;
    if (summary.outcome === 'denied') {
      events.toolDecision(ctx, { ...call, decision: 'reject', source });
      return summary;
    }
    if (summary.outcome !== 'invalid') events.toolDecision(ctx, { ...call, decision: 'accept', source });
    events.toolResult(ctx, {
      ...call,
      success: !summary.isError,
      durationMs: Date.now() - started,
      resultBytes: summary.resultBytes,
      decisionSource: source,
    });
    return summary;
  };
}

/**
 * `runTool` counting `claude_code.code_edit_tool.decision` for Edit, Write and NotebookEdit: the
 * same decisions as `claude_code.tool_decision`, by the attempt that made them.
 */
export function withCodeEditMetrics(metrics: AgentMetrics | undefined, acts: Activities): Activities {
  if (!metrics) return acts;
  const runTool = acts.runTool;
  return {
    ...acts,
    runTool: async (input) => {
      if (!CODE_EDIT_TOOLS.has(input.toolName) || input.skipReason !== undefined) return runTool(input);
      const ctx = { sessionId: input.sessionId };
      const source = decisionSource(input.permission);
      let summary: RunToolSummary;
      try {
        summary = await runTool(input);
      } catch (err) {
        if (err instanceof ApplicationFailure && err.type === 'Tool.Fault')
          metrics.codeEditDecision(ctx, input.toolName, 'accept', source);
        throw err;
      }
      if (!summary.replayed && summary.outcome !== 'ask' && summary.outcome !== 'invalid') {
        metrics.codeEditDecision(ctx, input.toolName, summary.outcome === 'denied' ? 'reject' : 'accept', source);
      }
      return summary;
    },
  };
}

/** Tools whose successful runs change code (lines counted) or may commit and open pull requests. */
const LINE_TOOLS: ReadonlySet<string> = new Set(['Edit', 'Write']);

/**
 * `runTool` counting what a successful call did to the code, by the attempt that ran it:
 * `claude_code.lines_of_code.count` for Edit and Write (from the result line's structured patch,
 * attributed to the model of the assistant line that asked), `claude_code.commit.count` and
 * `claude_code.pull_request.count` for a foreground Bash command that exited 0. Reading the lines
 * back costs two store reads per such call, only with metrics on; a failure to read counts
 * nothing and never fails the tool.
 */
export function withCodeActivityMetrics(
  metrics: AgentMetrics | undefined,
  store: TranscriptStore,
  acts: Activities,
): Activities {
  if (!metrics) return acts;
  const runTool = acts.runTool;
  return {
    ...acts,
    runTool: async (input) => {
      const summary = await runTool(input);
      const counts = LINE_TOOLS.has(input.toolName) || input.toolName === 'Bash';
      if (counts && !summary.replayed && summary.outcome === 'ok' && !summary.isError && !summary.background) {
        await countCodeActivity(metrics, store, input).catch(() => undefined);
      }
      return summary;
    },
  };
}

async function countCodeActivity(metrics: AgentMetrics, store: TranscriptStore, input: RunToolInput): Promise<void> {
  const ctx = { sessionId: input.sessionId };
  const asked = await store.get(input.sessionId, input.assistantUuid);
  if (input.toolName === 'Bash') {
    const blocks = (asked?.message?.content ?? []) as unknown as Array<Record<string, unknown>>;
    const use = blocks.find((b) => b['type'] === 'tool_use' && b['id'] === input.toolUseId);
    const command = (use?.['input'] as { command?: unknown } | undefined)?.command;
    if (typeof command !== 'string') return;
    const { commits, pullRequests } = gitActivity(command);
    metrics.gitActivity(ctx, commits, pullRequests);
    return;
  }
  const result = await store.get(input.sessionId, input.resultUuid);
  const lines = linesChanged(result?.toolUseResult);
  if (lines) metrics.linesChanged(ctx, asked?.message?.model ?? 'unknown', lines.added, lines.removed);
}

/** Claude Code's `source` of a decision: a hook's, an approver's (`user_temporary`), else the configuration's. */
function decisionSource(permission: ToolPermission): string {
  if (permission.behavior === 'deny') {
    if (permission.reason === 'hook' || permission.reason === 'hook_ask') return 'hook';
    if (permission.reason === 'approval') return 'user_reject';
  }
  return 'config';
}

/** The prompt's text as the model got it (a prompt of blocks: its text blocks, one per line). */
async function promptText(store: TranscriptStore, input: RecordPromptInput): Promise<string> {
  const body = await store.getContent(input.sessionId, input.prompt.key);
  if (!body) return '';
  const raw = body.toString('utf8');
  if (!input.prompt.key.startsWith(PROMPT_BLOCKS_KEY_PREFIX)) return raw;
  const blocks = JSON.parse(raw) as Array<{ type?: string; text?: string }>;
  return blocks
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text)
    .join('\n');
}

function attemptNumber(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
}
