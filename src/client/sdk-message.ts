import type { WorkspaceRef } from '../common/workspace';
import type {
  SDKAssistantMessage,
  SDKCompactBoundaryMessage,
  SDKMessage,
  SDKMicrocompactBoundaryMessage,
  SDKContentReplacementMessage,
  SDKSnipBoundaryMessage,
  SDKCollapseBoundaryMessage,
  SDKModelFallbackMessage,
  SDKPermissionDeniedMessage,
  SDKResultMessage,
  SDKSystemInitMessage,
  SDKUserMessage,
  SDKWorkspaceInfo,
} from '../common/sdk-messages';
import type { McpServerState } from '../common/mcp';
import { isMcpToolName, mcpServerOf } from '../common/mcp';
import type { PermissionReasonType } from '../common/permissions';
import type { TranscriptEntry } from '../common/transcript';
import type { ContextStageTotals, TurnOptions, TurnOutcome } from '../common/turn';
import { EXIT_PLAN_MODE_TOOL, TOOL_NAMES } from '../common/tools';
import { STRUCTURED_OUTPUT_TOOL } from '../common/structured-output';
import { RUNNER_VERSION } from '../common/version';
import { uuidV5 } from '../store/uuid';
import type { Definitions } from '../config-files/definitions/types';
import { modelInvocable } from '../config-files/definitions/catalog';
import { SKILL_TOOL } from '../common/session-tools';

/**
 * Converts a transcript line to the SDK message a caller sees (`assistant`, `user` with
 * `tool_use_result`, or `system`/`compact_boundary`). Returns null for lines callers do not get.
 */
export function entryToSdkMessage(e: TranscriptEntry): SDKMessage | null {
  if (e.type === 'system' && e.subtype === 'compact_boundary') {
    const m: SDKCompactBoundaryMessage = {
      type: 'system',
      subtype: 'compact_boundary',
      uuid: e.uuid,
      session_id: e.sessionId,
      compact_metadata: e.compactMetadata ?? { trigger: 'auto', pre_tokens: 0 },
    };
    return m;
  }
  if (e.type === 'system' && e.subtype === 'microcompact_boundary') {
    const meta = e.microcompactMetadata;
    const m: SDKMicrocompactBoundaryMessage = {
      type: 'system',
      subtype: 'microcompact_boundary',
      uuid: e.uuid,
      session_id: e.sessionId,
      microcompact_metadata: {
        trigger: 'auto',
        cleared_tool_results: meta?.compactedToolIds.length ?? 0,
        tokens_saved: meta?.tokensSaved ?? 0,
      },
    };
    return m;
  }
  if (e.type === 'system' && e.subtype === 'content_replacement') {
    const rs = e.contentReplacementMetadata?.replacements ?? [];
    const m: SDKContentReplacementMessage = {
      type: 'system',
      subtype: 'content_replacement',
      uuid: e.uuid,
      session_id: e.sessionId,
      content_replacement_metadata: {
        trigger: 'auto',
        replaced_tool_results: rs.length,
        tokens_saved: rs.reduce(
          (n, r) => n + Math.max(0, Math.ceil(r.originalChars / 4) - Math.ceil(r.replacement.length / 4)),
          0,
        ),
      },
    };
    return m;
  }
  if (e.type === 'system' && e.subtype === 'snip_boundary') {
    const m: SDKSnipBoundaryMessage = {
      type: 'system',
      subtype: 'snip_boundary',
      uuid: e.uuid,
      session_id: e.sessionId,
      snip_metadata: {
        trigger: 'auto',
        snipped_rounds: e.snipMetadata?.rounds ?? 0,
        tokens_saved: e.snipMetadata?.tokensFreed ?? 0,
      },
    };
    return m;
  }
  if (e.type === 'system' && e.subtype === 'collapse_boundary') {
    const m: SDKCollapseBoundaryMessage = {
      type: 'system',
      subtype: 'collapse_boundary',
      uuid: e.uuid,
      session_id: e.sessionId,
      collapse_metadata: {
        trigger: 'auto',
        collapsed_rounds: e.collapseMetadata?.rounds ?? 0,
        tokens_saved: e.collapseMetadata?.tokensFreed ?? 0,
      },
    };
    return m;
  }
  if (e.type === 'system' && e.subtype === 'model_fallback') {
    const f = e as Record<string, unknown>;
    const m: SDKModelFallbackMessage = {
      type: 'system',
      subtype: 'model_fallback',
      uuid: e.uuid,
      session_id: e.sessionId,
      trigger: 'overloaded',
      original_model: String(f['originalModel'] ?? ''),
      fallback_model: String(f['fallbackModel'] ?? ''),
      content: String(f['content'] ?? ''),
    };
    return m;
  }
  if (e.type === 'system' && e.subtype === 'informational') return informationalMessage(e);
  if (!e.message) return null;
  if (e.type === 'assistant') {
    const m: SDKAssistantMessage = {
      type: 'assistant',
      uuid: e.uuid,
      session_id: e.sessionId,
      message: e.message as Record<string, unknown>,
      parent_tool_use_id: null,
    };
    return m;
  }
  if (e.type === 'user') {
    const m: SDKUserMessage = {
      type: 'user',
      uuid: e.uuid,
      session_id: e.sessionId,
      message: { role: 'user', content: e.message.content },
      parent_tool_use_id: null,
      ...(e.toolUseResult !== undefined ? { tool_use_result: e.toolUseResult } : {}),
      ...(e.isMeta ? { isSynthetic: true } : {}),
      ...(e.refusedMessageId !== undefined ? { refused_message_id: e.refusedMessageId } : {}),
      timestamp: e.timestamp,
    };
    return m;
  }
  return null;
}

/**
 * The SDK messages of a transcript line as Claude Code streams them: an assistant response
 * becomes one `assistant` message per content block (all with the response's `message.id`);
 * other lines map as in {@link entryToSdkMessage}. The last block's message keeps the line's
 * uuid (resuming at it includes the whole response); earlier ones get uuids derived from it, the
 * same on every read.
 */
export function entryToSdkMessages(e: TranscriptEntry): SDKMessage[] {
  // Hook output for the model (UserPromptSubmit) is context, not a message: Claude Code does not stream it.
  if (e['hookEvent'] === 'UserPromptSubmit') return [];
  // Nor a message SendMessage delivered to a running agent (its system message for the model).
  if (e.coordinatorMessage === true) return [];
  const whole = entryToSdkMessage(e);
  if (whole?.type === 'user') {
    const denied = permissionDenied(e);
    if (e.isMeta && typeof e['hookEvent'] === 'string' && e['hookEvent'] !== 'Stop') {
      // Hook context for the model (PostToolUse, SessionStart, UserPromptSubmit): Claude Code
      // does not stream it.
      return [];
    }
    // Claude Code follows the first Stop hook feedback of a turn with a notification.
    if (e['hookEvent'] === 'Stop') return e['stopHookActive'] === true ? [whole] : [whole, stopHookNotification(e)];
    const split = withFollowUp(e, whole);
    const status = planExitStatus(e);
    return [...(denied ? [denied] : []), ...(status ? [status] : []), ...split];
  }
  if (whole?.type === 'assistant' && e.localCommand) {
    // A command that stopped before the model: its answer says so, as Claude Code's does.
    const { source, command, args, outcome } = e.localCommand;
    return [
      {
        ...whole,
        message: { ...whole.message, context_management: null },
        local_command_source: source,
        ...(command !== undefined ? { local_command_run: { command, args: args ?? '' } } : {}),
        local_command_outcome: { kind: outcome },
        timestamp: e.timestamp,
      },
    ];
  }
  if (whole && e.type === 'system' && e.subtype === 'informational') {
    const n = notificationOf(e);
    return n ? [whole, n] : [whole];
  }
  if (!whole || whole.type !== 'assistant') return whole ? [whole] : [];
  const msg = whole.message;
  const blocks = Array.isArray(msg['content']) ? (msg['content'] as unknown[]) : [];
  const base: SDKAssistantMessage = {
    ...whole,
    // Claude Code's messages carry the API's context_management (null when unused).
    message: { ...msg, context_management: msg['context_management'] ?? null },
    timestamp: e.timestamp,
    ...(e.requestId !== undefined ? { request_id: e.requestId } : {}),
  };
  if (blocks.length <= 1) return [withThinkingDisplay(withMcpMeta(base, blocks), e, blocks)];
  return blocks.map((block, i) =>
    withThinkingDisplay(
      withMcpMeta(
        {
          ...base,
          uuid: i === blocks.length - 1 ? e.uuid : uuidV5(`${e.uuid}/block/${i}`),
          message: { ...base.message, content: [block] },
        },
        [block],
      ),
      e,
      [block],
    ),
  );
}

/**
 * A tool-result line whose result is followed by more blocks (a loaded skill's text): the result
 * as one message, then the rest as a synthetic user message (uuid derived from the line's), as
 * Claude Code streams them.
 */
function withFollowUp(e: TranscriptEntry, whole: SDKUserMessage): SDKMessage[] {
  const content = whole.message.content;
  if (!Array.isArray(content)) return [whole];
  const results = content.filter((b) => (b as { type?: string }).type === 'tool_result');
  const rest = content.filter((b) => (b as { type?: string }).type !== 'tool_result');
  if (results.length === 0 || rest.length === 0) return [whole];
  return [
    { ...whole, message: { role: 'user', content: results } },
    {
      type: 'user',
      uuid: uuidV5(`${e.uuid}/follow-up`),
      session_id: e.sessionId,
      message: { role: 'user', content: rest },
      parent_tool_use_id: null,
      isSynthetic: true,
      timestamp: e.timestamp,
    },
  ];
}

/** Claude Code's `thinking_display` on the message of a thinking block: the display the request asked for. */
function withThinkingDisplay(
  m: SDKAssistantMessage,
  e: TranscriptEntry,
  blocks: readonly unknown[],
): SDKAssistantMessage {
  const thinks = blocks.some((b) => (b as { type?: unknown }).type === 'thinking');
  return thinks && e.thinkingDisplay !== undefined ? { ...m, thinking_display: e.thinkingDisplay } : m;
}

/** Claude Code's `tool_use_meta` on a message with MCP tool calls (display names for a UI). */
function withMcpMeta(m: SDKAssistantMessage, blocks: readonly unknown[]): SDKAssistantMessage {
  const meta = blocks
    .map((b) => b as { type?: string; id?: string; name?: string })
    .filter((b) => b.type === 'tool_use' && typeof b.name === 'string' && isMcpToolName(b.name))
    .map((b) => {
      const server = mcpServerOf(b.name!) ?? '';
      const tool = b.name!.slice(`mcp__${server}__`.length);
      return {
        id: String(b.id),
        display_name: tool.charAt(0).toUpperCase() + tool.slice(1),
        server_display_name: server,
        tool_name: tool,
      };
    });
  return meta.length ? { ...m, tool_use_meta: meta } : m;
}

/**
 * A `system`/`informational` line (a notice the runner shows the caller, not the model: a
 * refusal note, the Stop-hook cap, a prompt a hook blocked) as Claude Code streams it.
 */
function informationalMessage(e: TranscriptEntry): SDKMessage {
  const f = e as Record<string, unknown>;
  return {
    type: 'system',
    subtype: 'informational',
    content: String(f['content'] ?? ''),
    level: String(f['level'] ?? 'notice'),
    ...(f['preventContinuation'] === true ? { prevent_continuation: true } : {}),
    ...(f['promptSubmitOutcome'] !== undefined ? { prompt_submit_outcome: f['promptSubmitOutcome'] } : {}),
    uuid: e.uuid,
    session_id: e.sessionId,
  } as unknown as SDKMessage;
}

/** The `system`/`notification` Claude Code sends with some notices (`notification` of an informational line). */
function notificationOf(e: TranscriptEntry): SDKMessage | undefined {
  const n = (e as Record<string, unknown>)['notification'] as
    { key?: string; text?: string; priority?: string; color?: string } | undefined;
  if (!n?.key) return undefined;
  return {
    type: 'system',
    subtype: 'notification',
    key: n.key,
    text: n.text ?? '',
    priority: n.priority ?? 'immediate',
    ...(n.color !== undefined ? { color: n.color } : {}),
    uuid: uuidV5(`${e.uuid}/notification`),
    session_id: e.sessionId,
  } as unknown as SDKMessage;
}

/** The `system`/`notification` Claude Code sends after a Stop hook's feedback. */
function stopHookNotification(e: TranscriptEntry): SDKMessage {
  return {
    type: 'system',
    subtype: 'notification',
    key: 'stop-hook-error',
    text: 'stop hook reported a problem',
    priority: 'immediate',
    uuid: uuidV5(`${e.uuid}/notification`),
    session_id: e.sessionId,
  } as unknown as SDKMessage;
}

/**
 * The `system`/`status` message Claude Code 2.1.328 sends before the tool result of an approved
 * ExitPlanMode: the session's permission mode is now `default` (uuid derived from the line's).
 */
function planExitStatus(e: TranscriptEntry): SDKMessage | undefined {
  const run = e['toolRun'] as { tool?: string; outcome?: string } | undefined;
  if (run?.tool !== EXIT_PLAN_MODE_TOOL || run.outcome !== 'ok') return undefined;
  return {
    type: 'system',
    subtype: 'status',
    status: null,
    permissionMode: 'default',
    uuid: uuidV5(`${e.uuid}/status`),
    session_id: e.sessionId,
  } as unknown as SDKMessage;
}

/**
 * The `system`/`permission_denied` message Claude Code sends before the tool result of a call the
 * permission policy refused, built from that result's line (uuid derived from the line's).
 */
function permissionDenied(e: TranscriptEntry): SDKPermissionDeniedMessage | undefined {
  const run = e['toolRun'] as
    | {
        tool?: string;
        outcome?: string;
        denyReason?: PermissionReasonType | 'hook' | 'hook_ask' | 'approval';
        denyDetail?: string;
        denySilent?: boolean;
      }
    | undefined;
  if (run?.outcome !== 'denied' || run.denySilent || !Array.isArray(e.message?.content)) return undefined;
  // A hook's deny (or exit 2) is not announced by Claude Code; its unanswered `ask` is, as `hook`.
  if (run.denyReason === 'hook' || run.denyReason === 'approval') return undefined;
  const block = e.message.content.find((b) => b.type === 'tool_result') as
    { tool_use_id?: string; content?: unknown } | undefined;
  if (!block) return undefined;
  return {
    type: 'system',
    subtype: 'permission_denied',
    uuid: uuidV5(`${e.uuid}/permission_denied`),
    session_id: e.sessionId,
    tool_name: run.tool ?? '',
    tool_use_id: String(block.tool_use_id ?? ''),
    decision_reason_type: run.denyReason === 'hook_ask' ? 'hook' : (run.denyReason ?? 'mode'),
    ...(run.denyDetail !== undefined ? { decision_reason: run.denyDetail } : {}),
    message: typeof block.content === 'string' ? block.content : JSON.stringify(block.content ?? ''),
  };
}

/**
 * The text of a turn's `result`: the notice a hook left (`resultTextUuid`: a `system` line's
 * `content`), none (`resultTextUuid: null`), or the last answer's text blocks. `read` finds a
 * line (undefined when it is not there).
 */
export async function resultTextOf(
  outcome: Pick<TurnOutcome, 'lastAssistantUuid' | 'resultTextUuid'>,
  read: (uuid: string) => Promise<TranscriptEntry | undefined>,
): Promise<string> {
  if (outcome.resultTextUuid !== undefined) {
    if (outcome.resultTextUuid === null) return '';
    const notice = await read(outcome.resultTextUuid);
    return String((notice as Record<string, unknown> | undefined)?.['content'] ?? '');
  }
  return outcome.lastAssistantUuid ? assistantText(await read(outcome.lastAssistantUuid)) : '';
}

/** Text of an assistant line's text blocks, joined. */
export function assistantText(e: TranscriptEntry | undefined): string {
  const c = e?.message?.content;
  if (typeof c === 'string') return c;
  return (c ?? [])
    .filter((b) => b.type === 'text')
    .map((b) => String((b as { text?: unknown }).text ?? ''))
    .join('');
}

/** The `system`/`init` message that opens every turn's stream. */
export function initMessage(args: {
  sessionId: string;
  uuid: string;
  cwd: string;
  options: TurnOptions;
  apiKeySource: SDKSystemInitMessage['apiKeySource'];
  /** The turn's MCP servers and the names of their tools (`mcp__server__tool`). */
  mcp?: { servers: McpServerState[]; toolNames: string[] };
  /** The session's commands, skills, agents and plugins. */
  definitions?: Definitions;
  /** Names of the session's agent types, in listing order (else the catalog's agents are listed). */
  agentTypes?: readonly string[];
}): SDKSystemInitMessage {
  const defs = args.definitions;
  const invocable = defs ? modelInvocable(defs) : [];
  return {
    type: 'system',
    subtype: 'init',
    uuid: args.uuid,
    session_id: args.sessionId,
    apiKeySource: args.apiKeySource,
    claude_code_version: RUNNER_VERSION,
    cwd: args.cwd,
    tools: [
      // The task tools are not listed (as before them): only the built-in and web tools.
      ...(args.options.tools ?? [...TOOL_NAMES, ...(args.options.approverTools ?? [])]),
      ...(invocable.length && !args.options.tools ? [SKILL_TOOL] : []),
      ...(args.options.jsonSchemaKey !== undefined ? [STRUCTURED_OUTPUT_TOOL] : []),
      ...(args.mcp?.toolNames ?? []),
    ],
    mcp_servers: args.mcp?.servers ?? [],
    model: args.options.model,
    permissionMode: args.options.permissionMode,
    // As Claude Code lists them: the session's commands and skills, then the built-in ones.
    slash_commands: [...(defs?.commands.map((c) => c.name) ?? []), ...RUNNER_SLASH_COMMANDS],
    output_style: 'default',
    skills: defs
      ? [
          ...defs.commands.filter((c) => c.kind === 'skill').map((c) => c.name),
          ...defs.commands.filter((c) => c.kind === 'command' && c.disableModelInvocation).map((c) => c.name),
        ]
      : [],
    plugins:
      defs?.plugins.map((p) => ({
        name: p.name,
        path: p.path,
        source: p.source,
        ...(p.version ? { version: p.version } : {}),
      })) ?? [],
    agents: args.agentTypes ? [...args.agentTypes] : (defs?.agents.map((a) => a.name) ?? []),
  };
}

/** The runner's own slash commands (`/compact`, `/clear`). */
export const RUNNER_SLASH_COMMANDS: readonly string[] = ['clear', 'compact'];

/**
 * Builds the `result` message of a turn from its outcome and the final assistant text. With
 * `structuredOutput` (a valid StructuredOutput call), a success carries it as
 * `structured_output`, and `result` is its JSON text, as in Claude Code.
 */
export function resultMessage(
  o: TurnOutcome,
  args: { sessionId: string; uuid: string; finalText: string; structuredOutput?: unknown },
): SDKResultMessage {
  const base: SDKResultMessage = {
    type: 'result',
    subtype: o.subtype,
    uuid: args.uuid,
    session_id: args.sessionId,
    duration_ms: o.durationMs,
    duration_api_ms: o.durationApiMs,
    is_error: o.isError,
    num_turns: o.numTurns,
    stop_reason: o.stopReason,
    total_cost_usd: o.costUsd,
    total_cost_usd_known: o.costKnown,
    ...(o.batchApi
      ? {
          batch_api: {
            batched_calls: o.batchApi.batchedCalls,
            fallbacks: o.batchApi.fallbacks,
            fallback_reasons: o.batchApi.fallbackReasons,
            saved_usd: o.batchApi.savedUsd,
          },
        }
      : {}),
    usage: {
      ...o.usage,
      output_tokens_details: { thinking_tokens: sumOf(o.modelUsage, (u) => u.thinkingTokens ?? 0) },
      server_tool_use: { web_search_requests: sumOf(o.modelUsage, (u) => u.webSearchRequests), web_fetch_requests: 0 },
    },
    modelUsage: o.modelUsage,
    permission_denials: o.permissionDenials,
    terminal_reason: o.terminalReason,
    ...(o.workspace ? { workspace: workspaceInfo(o.workspace) } : {}),
    ...(o.contextStages ? { context_stages: contextStagesInfo(o.contextStages) } : {}),
  };
  if (o.subtype === 'success' && args.structuredOutput !== undefined) {
    return {
      ...base,
      result: JSON.stringify(args.structuredOutput),
      structured_output: args.structuredOutput,
      api_error_status: o.apiErrorStatus,
    };
  }
  if (o.subtype === 'success' && o.answeredWithoutModel) {
    // A command that stopped before any model call: no terminal_reason (Claude Code's form), and
    // `local_command` when a custom command's `!` line stopped it.
    const local = {
      ...base,
      stop_reason: null,
      result: args.finalText,
      ...(o.localCommand !== undefined ? { local_command: o.localCommand } : {}),
    };
    delete (local as Partial<SDKResultMessage>).terminal_reason;
    return local;
  }
  if (o.subtype === 'success') return { ...base, result: args.finalText, api_error_status: o.apiErrorStatus };
  return { ...base, errors: o.errors, ...(o.apiErrorStatus !== null ? { api_error_status: o.apiErrorStatus } : {}) };
}

function sumOf(map: TurnOutcome['modelUsage'], f: (u: TurnOutcome['modelUsage'][string]) => number): number {
  return Object.values(map).reduce((n, u) => n + f(u), 0);
}

/** The user-facing view of a workspace ref (result message, `status`). */
export function workspaceInfo(ref: WorkspaceRef): SDKWorkspaceInfo {
  return {
    host: ref.host,
    path: ref.path,
    base_commit: ref.baseCommit,
    last_snapshot: ref.lastSnapshot
      ? { commit: ref.lastSnapshot.commit, tool_use_id: ref.lastSnapshot.toolUseId, bytes: ref.lastSnapshot.bytes }
      : null,
    moves: ref.moves,
    ...(ref.movedFrom ? { moved_from: { host: ref.movedFrom.host, path: ref.movedFrom.path } } : {}),
  };
}

/** `context_stages` of a result message (the API's snake_case names). */
function contextStagesInfo(t: ContextStageTotals): NonNullable<SDKResultMessage['context_stages']> {
  const m = t.microcompact;
  const b = t.toolResultBudget;
  const s = t.snip;
  const c = t.collapse;
  return {
    ...(s ? { snip: { runs: s.runs, snipped_rounds: s.snippedRounds, freed_tokens: s.freedTokens } } : {}),
    ...(c ? { collapse: { runs: c.runs, collapsed_rounds: c.collapsedRounds, freed_tokens: c.freedTokens } } : {}),
    ...(b
      ? {
          tool_result_budget: {
            runs: b.runs,
            replaced_tool_results: b.replacedToolResults,
            freed_tokens: b.freedTokens,
          },
        }
      : {}),
    ...(m
      ? { microcompact: { runs: m.runs, cleared_tool_results: m.clearedToolResults, freed_tokens: m.freedTokens } }
      : {}),
  };
}
