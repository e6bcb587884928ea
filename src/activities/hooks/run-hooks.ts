/**
 * The `runHooks` activity: runs the hooks of one event on the host that holds the workspace,
 * with the event's JSON (read from the transcript store, never from workflow history) on stdin,
 * and records the outcome in the store under the event's key. A retry or a replay finds the
 * outcome and returns it without running any hook again; an attempt that finds the run marker of
 * a dead attempt but no outcome does not re-run the hooks either (no verdict, as for a hook that
 * failed).
 */
import { createHash } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { HookCommand, HookOutcome, HooksConfig, RunHooksInput } from '../../common/hooks';
import { DEFAULT_BLOCK_REASON, MATCHED_HOOK_EVENTS, hookMatcherMatches } from '../../common/hooks';
import type { ContentBlock, TranscriptEntry } from '../../common/transcript';
import { uuidV5 } from '../../store/uuid';
import { isMcpToolName, mcpServerOf } from '../../common/mcp';
import { sidecarEntry } from '../../store/sidecar';
import type { TranscriptStore } from '../../store/transcript-store';
import type { CombinedVerdict } from './interpret';
import { combineVerdicts, hookNames, interpretHookResult } from './interpret';
import { runHookCommand } from './run-command';
import { TRANSCRIPT_SCHEMA_VERSION } from '../../common/version';
import { heartbeatEvery } from '../heartbeats';

/** Subtype of the sidecar lines written here (the hooks config's: src/client/stored-config.ts). */
export const HOOK_OUTCOME_SUBTYPE = 'hook_outcome';

/** Uuid of the outcome line of an event. */
export function hookOutcomeUuid(sessionId: string, eventKey: string): string {
  return uuidV5(`${sessionId}/hook-outcome/${eventKey}`);
}

/** The input a PreToolUse hook changed, from its outcome line (undefined when none). */
export async function updatedInputOf(
  store: TranscriptStore,
  sessionId: string,
  outcomeRef: string,
): Promise<Record<string, unknown> | undefined> {
  const e = await store.get(sessionId, outcomeRef);
  return e?.['updatedInput'] as Record<string, unknown> | undefined;
}

function toolInputOf(assistant: TranscriptEntry | undefined, toolUseId: string): unknown {
  const content = (assistant?.message?.content ?? []) as ContentBlock[];
  const block = Array.isArray(content)
    ? content.find((b) => b.type === 'tool_use' && b['id'] === toolUseId)
    : undefined;
  return block?.['input'] ?? {};
}

function textOf(e: TranscriptEntry | undefined): string {
  const c = e?.message?.content;
  if (typeof c === 'string') return c;
  return (c ?? [])
    .filter((b) => b.type === 'text')
    .map((b) => String(b['text'] ?? ''))
    .join('\n');
}

/** Claude Code's stdin JSON for the event (base fields plus the event's own). */
async function hookInput(store: TranscriptStore, input: RunHooksInput): Promise<Record<string, unknown>> {
  const base: Record<string, unknown> = {
    session_id: input.sessionId,
    transcript_path: '',
    cwd: input.cwd,
    permission_mode: input.permissionMode,
    hook_event_name: input.event,
  };
  if (input.tool) {
    const assistant = await store.get(input.sessionId, input.tool.assistantUuid);
    base['tool_name'] = input.tool.name;
    base['tool_input'] = toolInputOf(assistant, input.tool.toolUseId);
    base['tool_use_id'] = input.tool.toolUseId;
    if (isMcpToolName(input.tool.name)) base['mcp_server'] = { name: mcpServerOf(input.tool.name), source: 'dynamic' };
    if (input.tool.resultUuid) {
      const result = await store.get(input.sessionId, input.tool.resultUuid);
      base['tool_response'] = result?.toolUseResult ?? result?.message?.content ?? null;
    }
  }
  // Claude Code 2.1.328 sends SubagentStart no permission_mode (recorded: agent-subagent-hooks).
  if (input.event === 'SubagentStart') delete base['permission_mode'];
  if (input.agent) {
    base['agent_id'] = input.agent.agentId;
    base['agent_type'] = input.agent.agentType;
  }
  if (input.promptUuid) base['prompt'] = textOf(await store.get(input.sessionId, input.promptUuid));
  if (input.stop) {
    base['stop_hook_active'] = input.stop.stopHookActive;
    if (input.event === 'SubagentStop' && input.agent) base['agent_transcript_path'] = input.agent.transcriptPath;
    const last = input.stop.lastAssistantUuid
      ? await store.get(input.sessionId, input.stop.lastAssistantUuid)
      : undefined;
    base['last_assistant_message'] = textOf(last);
  }
  if (input.event === 'SessionStart') base['source'] = input.source ?? 'startup';
  if (input.event === 'PreCompact') {
    base['trigger'] = input.source ?? 'auto';
    base['custom_instructions'] = '';
  }
  return base;
}

/** What the event's matchers are tested against (see `MATCHED_HOOK_EVENTS`), or undefined: every hook runs. */
function hookSubject(input: RunHooksInput): string | undefined {
  if (!MATCHED_HOOK_EVENTS.has(input.event)) return undefined;
  if (input.event === 'SessionStart') return input.source ?? 'startup';
  if (input.event === 'PreCompact') return input.source ?? 'auto';
  if (input.event === 'SubagentStart' || input.event === 'SubagentStop') return input.agent?.agentType ?? '';
  return input.tool?.name;
}

/** The text blocks of the context line an outcome adds for the model, or undefined. */
function contextText(input: RunHooksInput, v: CombinedVerdict, commands: readonly HookCommand[]): string[] | undefined {
  const parts = [...v.contexts];
  if (v.decision === 'block' && input.event === 'Stop') return [`Stop hook feedback:\n${v.reason ?? ''}`];
  const cmd = commands.map((c) => c.command).join(', ');
  // A SubagentStop block reaches the agent in Claude Code 2.1.328's words (recorded:
  // agent-subagent-hooks): the feedback as a user message, the blocking error as a system one
  // (the line's second block; see buildMessages).
  if (v.decision === 'block' && input.event === 'SubagentStop') {
    return [
      `Stop hook feedback:\n${v.reason ?? ''}`,
      `SubagentStop hook blocking error from command: "${cmd}": ${v.reason ?? ''}`,
    ];
  }
  if (v.decision === 'block' && input.event === 'PostToolUse') {
    parts.push(`PostToolUse:${input.tool?.name ?? ''} hook blocking error from command: "${cmd}": ${v.reason ?? ''}`);
  }
  return parts.length ? [parts.join('\n\n')] : undefined;
}

/**
 * A UserPromptSubmit hook that stops the turn (`continue: false`) or blocks the prompt: writes
 * Claude Code's notice as a `system` informational line where the workflow planned it (its text
 * is the turn's result) and says which. A stop wins over a block, and a blocked prompt's notice
 * names it (`Original prompt: …`) and hangs where the prompt did, as it leaves the conversation.
 */
async function writePromptNotice(
  store: TranscriptStore,
  input: RunHooksInput,
  v: CombinedVerdict,
): Promise<'blocked' | 'stopped' | undefined> {
  const at = input.noticeLine;
  if (input.event !== 'UserPromptSubmit' || !at) return undefined;
  let kind: 'blocked' | 'stopped';
  let content: string;
  let reason: string | undefined;
  if (v.stop) {
    kind = 'stopped';
    reason = v.stop.given ? v.stop.reason : undefined;
    content = reason !== undefined ? `${PROMPT_STOPPED_NOTICE}: ${reason}` : PROMPT_STOPPED_NOTICE;
  } else if (v.decision === 'block') {
    kind = 'blocked';
    const why = v.firstReason ?? DEFAULT_BLOCK_REASON;
    const prompt = input.promptUuid ? textOf(await store.get(input.sessionId, input.promptUuid)) : '';
    content = `${PROMPT_BLOCKED_NOTICE}\n${why}\n\nOriginal prompt: ${prompt}`;
    // The outcome's reason is the hook's own words (without the `[command]: ` of an exit 2).
    const bare = why.replace(/^\[[^\]]*\]: /, '').trim();
    reason = why === DEFAULT_BLOCK_REASON ? undefined : bare;
  } else {
    return undefined;
  }
  await store.append({
    v: TRANSCRIPT_SCHEMA_VERSION,
    type: 'system',
    subtype: 'informational',
    uuid: at.uuid,
    parentUuid: kind === 'blocked' ? at.blockedParentUuid : at.parentUuid,
    sessionId: input.sessionId,
    timestamp: new Date().toISOString(),
    turnId: Context.current().info.workflowExecution?.workflowId ?? '',
    content,
    level: 'warning',
    preventContinuation: true,
    promptSubmitOutcome: {
      kind: kind === 'blocked' ? 'blocked_by_hook' : 'stopped_by_hook',
      prompt_kept: kind === 'stopped',
      ...(reason !== undefined ? { reason } : {}),
    },
    // The turn's lines leave the conversation (findLeaf skips them on resume).
    ...(kind === 'blocked' ? { dropsTurn: true } : {}),
  } as TranscriptEntry);
  return kind;
}

/** Claude Code's header of a prompt a UserPromptSubmit hook blocked. */
export const PROMPT_BLOCKED_NOTICE = 'UserPromptSubmit operation blocked by hook:';
/** Claude Code's notice of a prompt whose UserPromptSubmit hook stopped the turn. */
export const PROMPT_STOPPED_NOTICE = 'Operation stopped by hook';

/** What `runHooks` needs. */
export interface RunHooksDeps {
  store: TranscriptStore;
  /** Environment of hook commands. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** Creates the `runHooks` activity. */
export function createRunHooks(deps: RunHooksDeps): (input: RunHooksInput) => Promise<HookOutcome> {
  const { store } = deps;
  return async function runHooks(input: RunHooksInput): Promise<HookOutcome> {
    const outcomeRef = hookOutcomeUuid(input.sessionId, input.eventKey);
    const stored = await store.get(input.sessionId, outcomeRef);
    if (stored) return { ...(stored['hookOutcome'] as Omit<HookOutcome, 'replayed'>), replayed: true } as HookOutcome;

    const cfgLine = await store.get(input.sessionId, input.configRef);
    const config = (cfgLine?.['hooksConfig'] ?? {}) as HooksConfig;
    const subject = hookSubject(input);
    const commands = (config[input.event] ?? []).filter(
      (h) => subject === undefined || hookMatcherMatches(h.matcher, subject),
    );
    const names = hookNames(input.event, subject);
    const marker = `hook-${createHash('sha256').update(input.eventKey).digest('hex').slice(0, 40)}`;
    let verdict: CombinedVerdict;
    if (await store.markToolRunStarted(input.sessionId, marker)) {
      // An earlier attempt started these hooks and died: they are not run a second time.
      verdict = { decision: null, contexts: [], configErrors: [] };
    } else {
      const ctx = Context.current();
      const beat = heartbeatEvery(1000, () => ctx.heartbeat());
      try {
        const json = await hookInput(store, input);
        const results = await Promise.all(
          commands.map((h) =>
            runHookCommand(h.command, {
              cwd: input.cwd,
              input: json,
              ...(h.timeoutSec !== undefined ? { timeoutSec: h.timeoutSec } : {}),
              ...(deps.env ? { env: deps.env } : {}),
              sessionId: input.sessionId,
              signal: ctx.cancellationSignal,
            }),
          ),
        );
        verdict = combineVerdicts(results.map((r, i) => interpretHookResult(input.event, commands[i]!, r, names)));
      } finally {
        beat.stop();
      }
    }
    const notice = verdict.configErrors.length === 0 ? await writePromptNotice(store, input, verdict) : undefined;
    const text = notice ? undefined : contextText(input, verdict, commands);
    let contextWritten = false;
    if (text !== undefined && input.contextLine && verdict.configErrors.length === 0) {
      await store.append({
        v: TRANSCRIPT_SCHEMA_VERSION,
        type: 'user',
        uuid: input.contextLine.uuid,
        parentUuid: input.contextLine.parentUuid,
        sessionId: input.sessionId,
        timestamp: new Date().toISOString(),
        message: { role: 'user', content: text.map((t) => ({ type: 'text', text: t })) },
        turnId: Context.current().info.workflowExecution?.workflowId ?? '',
        isMeta: true,
        hookEvent: input.event,
        // A Stop hook's later feedback in a turn (Claude Code notifies of the first only).
        ...(input.stop?.stopHookActive ? { stopHookActive: true } : {}),
      });
      contextWritten = true;
    }
    const outcome: Omit<HookOutcome, 'replayed'> = {
      decision: verdict.decision,
      ...(verdict.reason !== undefined ? { reason: verdict.reason } : {}),
      ...(verdict.updatedInput ? { updatedInput: true } : {}),
      ...(contextWritten ? { contextWritten } : {}),
      ...(notice ? { notice } : {}),
      ...(verdict.stop ? { stop: { reason: verdict.stop.reason } } : {}),
      ...(verdict.configErrors.length ? { configErrors: verdict.configErrors } : {}),
      outcomeRef,
    };
    await store.append(
      sidecarEntry(input.sessionId, outcomeRef, HOOK_OUTCOME_SUBTYPE, {
        hookOutcome: outcome,
        // The changed input is content: it stays here, and `runTool` reads it by `outcomeRef`.
        ...(verdict.updatedInput ? { updatedInput: verdict.updatedInput } : {}),
        eventKey: input.eventKey,
      }),
    );
    return { ...outcome, replayed: false };
  };
}
