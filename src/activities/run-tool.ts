import { CancelledFailure, Context } from '@temporalio/activity';
import { isMcpToolName } from '../common/mcp';
import { updatedInputOf } from './hooks/run-hooks';
import { ApplicationFailure } from '@temporalio/common';
import { ToolErrorType, type RunToolInput, type RunToolSummary } from '../common/tools';
import { MAX_STRUCTURED_OUTPUT_ERROR_CHARS, STRUCTURED_OUTPUT_TOOL } from '../common/structured-output';
import { WorkspaceErrorType, type SnapshotRef } from '../common/workspace';
import type { ContentBlock, TranscriptEntry } from '../common/transcript';
import { TRANSCRIPT_SCHEMA_VERSION } from '../common/transcript';
import type { TranscriptStore } from '../store/transcript-store';
import { loadJsonSchema, runStructuredOutput } from './structured-output';
import { persistedShellCwd } from './shell-cwd';
import type { LargeResultRecord } from './large-result';
import { keepLargeResult, materializeLargeResults } from './large-result';
import type { ToolContext, ToolOutput, ToolSettings } from './tools/types';
import { mapFormerPaths } from './workspace/prepare';
import { SnapshotTooLargeError } from './workspace/snapshot';
import { nestedMemoryAttachments } from './context/nested-memory';
import type { ResolvedPermission } from './tool-permission';
import { resolveToolPermission } from './tool-permission';
import { ChildEnvironments } from '../env/child-env';
import { readSettingsEnv } from './settings-env';
import { inputFaultOf, inputFaultOutput } from './tools/input-faults';
import { classifyToolError, isTransientToolError, toolFaultMessage } from './tool-faults';
import { storageFailure } from './store-errors';
import { toolUseError } from './tools/format';
import type { SessionTools } from './session-tools';

/** What `runTool` needs from the worker. */
export interface RunToolDeps {
  store: TranscriptStore;
  /** Runs a tool by name on raw input; never throws for bad input or unknown tools. */
  executeTool(
    name: string,
    rawInput: unknown,
    ctx: ToolContext,
  ): Promise<ToolOutput & { outcome: 'ok' | 'error' | 'invalid' }>;
  /** Runs an `mcp__…` tool of the turn's stored MCP tool list; never throws (see `src/activities/mcp/activities.ts`). */
  executeMcpTool?(
    sessionId: string,
    toolsRef: string,
    name: string,
    rawInput: unknown,
    ctx: ToolContext,
  ): Promise<ToolOutput & { outcome: 'ok' | 'error' | 'invalid' }>;
  /** Tool settings from config (`tools:`), passed to every tool run. */
  settings?: ToolSettings;
  /** Whether a tool may be re-run after a crash (unknown tools count as idempotent: they do nothing). */
  isIdempotent(name: string): boolean;
  /**
   * Stores a snapshot of the workspace after a tool that can change files (the non-idempotent
   * ones). Absent when workspaces are not followed.
   * @throws SnapshotTooLargeError when the snapshot is over the limit.
   */
  snapshot?(input: { sessionId: string; toolUseId: string; root: string; base: string }): Promise<SnapshotRef>;
  /**
   * Decides a `check` permission against the tool's input and the real files.
   * @default resolveToolPermission (src/activities/tool-permission.ts)
   */
  resolvePermission?: typeof resolveToolPermission;
  /** Environments of the processes tools start. @default new ChildEnvironments() (default secret names) */
  childEnv?: ChildEnvironments;
  /** This worker's host queue (workspaces followed), checked against `expectHostQueue`. */
  hostQueue?: string;
  /** Skill and ToolSearch: tools that read the session's stored definitions and tool lists. */
  sessionTools?: SessionTools;
}

let sharedChildEnv: ChildEnvironments | undefined;
function defaultChildEnv(): ChildEnvironments {
  sharedChildEnv ??= new ChildEnvironments();
  return sharedChildEnv;
}

/** Text of the tool_result of a non-idempotent tool whose earlier attempt died mid-run. */
export const UNKNOWN_OUTCOME_TEXT =
  '<tool_use_error>The worker running this tool stopped while the tool was running, so its outcome is unknown: ' +
  'it may have completed, partly completed, or not run at all. It was not re-run automatically. ' +
  'Check the current state before running it again.</tool_use_error>';

const MAX_DENIED_INPUT_BYTES = 1024;
/** Heartbeat period of a running tool, ms (Temporal sends at most one per `worker.heartbeatThrottleMs`). */
const TOOL_HEARTBEAT_MS = 250;
/** Bytes of an unparsable tool input quoted back to the model. */
const MAX_QUOTED_INVALID_JSON_BYTES = 500;

/** The tool_result for a tool call whose input is not valid JSON (Claude Code's wording). */
export function invalidJsonOutput(toolName: string, raw: string): ToolOutput & { outcome: 'invalid' } {
  const bytes = Buffer.from(raw, 'utf8');
  const shown = bytes.subarray(0, MAX_QUOTED_INVALID_JSON_BYTES).toString('utf8');
  return {
    content:
      `<tool_use_error>InputValidationError: ${toolName} was called with input that could not be parsed as JSON.\n` +
      `You sent (first ${Math.min(bytes.length, MAX_QUOTED_INVALID_JSON_BYTES)} of ${bytes.length} bytes): ${shown}\n` +
      'Common causes: unescaped backslashes in file paths (use / or \\\\), unescaped control characters, or truncated output. ' +
      'Retry with valid JSON.</tool_use_error>',
    isError: true,
    structured: `InputValidationError: JSON parse failed (${bytes.length} bytes)`,
    outcome: 'invalid',
  };
}

function truncatedInput(input: unknown): unknown {
  const json = JSON.stringify(input ?? {});
  if (json.length <= MAX_DENIED_INPUT_BYTES) return input ?? {};
  return { truncated: true, json: json.slice(0, MAX_DENIED_INPUT_BYTES) };
}

/**
 * A result of this call written under another uuid (by an older version): a tool_result for the
 * tool_use id at the same place in the chain (same parent). A tool_result elsewhere with the same
 * id (a copy kept by a compaction, an id an API repeated) is another call's.
 */
function findToolResult(
  entries: TranscriptEntry[],
  toolUseId: string,
  parentUuid: string,
): TranscriptEntry | undefined {
  return entries.find(
    (e) =>
      e.type === 'user' &&
      e.parentUuid === parentUuid &&
      Array.isArray(e.message?.content) &&
      e.message.content.some(
        (b) => b.type === 'tool_result' && (b as { tool_use_id?: string }).tool_use_id === toolUseId,
      ),
  );
}

function contentBytes(content: string | ContentBlock[]): number {
  return Buffer.byteLength(typeof content === 'string' ? content : JSON.stringify(content));
}

function summaryOf(entry: TranscriptEntry, input: RunToolInput, replayed: boolean): RunToolSummary {
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
  };
}

/**
 * Creates the `runTool` activity: finds the tool_use in the stored assistant line, applies the
 * workflow's permission decision, runs the tool (heartbeating; cancelled with the activity) and
 * writes its tool_result line with the uuid the workflow chose.
 *
 * Crash safety: a result already stored (by uuid or by tool_use id) is returned as is. Before a
 * non-idempotent tool (Bash, Write, Edit) runs, a run marker is written; an attempt that finds
 * the marker does not re-run the tool and reports an unknown outcome to the model instead. The
 * tool_use is read from the stored assistant line, and the result line is first-writer-wins: an
 * attempt that loses the race (a superseded attempt still alive) returns the stored result.
 */
export function createRunTool(deps: RunToolDeps): (input: RunToolInput) => Promise<RunToolSummary> {
  const run = runToolOnce(deps);
  // An error retrying cannot fix leaves at once as a non-retryable `Tool.Fault` (the turn answers
  // the call with an is_error result); transient errors and the store's own failures as they are.
  return async function runTool(given: RunToolInput): Promise<RunToolSummary> {
    try {
      return await run(given);
    } catch (err) {
      throw storageFailure(err) ? err : classifyToolError(err);
    }
  };
}

/** A fault of the call (see tool-faults.ts) as its tool_result: the run goes on to record it. */
function faultOutput(err: unknown): ToolOutput & { outcome: 'error' } {
  const message = toolFaultMessage(err);
  return { content: toolUseError(message), isError: true, structured: message, outcome: 'error' };
}

function runToolOnce(deps: RunToolDeps): (input: RunToolInput) => Promise<RunToolSummary> {
  return async function runTool(given: RunToolInput): Promise<RunToolSummary> {
    // An absent parent is the assistant line (see RunToolInput.parentUuid).
    const input = { ...given, parentUuid: given.parentUuid ?? given.assistantUuid };
    const { store } = deps;
    if (input.expectHostQueue !== undefined && input.expectHostQueue !== deps.hostQueue) {
      // A local activity on a worker of another host: the workflow sends the call to the host.
      throw ApplicationFailure.create({
        type: WorkspaceErrorType.NotOnHost,
        message: `the workspace is on ${input.expectHostQueue}, not on this worker (${deps.hostQueue ?? 'no host queue'})`,
        nonRetryable: true,
      });
    }
    const existing =
      (await store.get(input.sessionId, input.resultUuid)) ??
      findToolResult(await store.load(input.sessionId), input.toolUseId, input.parentUuid);
    if (existing) return summaryOf(existing, input, true);

    const assistant = await store.get(input.sessionId, input.assistantUuid);
    const content = (assistant?.message?.content ?? []) as ContentBlock[];
    const block = Array.isArray(content)
      ? (content.find((b) => b.type === 'tool_use' && b['id'] === input.toolUseId) as
          { name: string; input: unknown } | undefined)
      : undefined;
    const invalidJson = assistant?.invalidToolInputs?.[input.toolUseId];
    const ws = input.workspace;
    // A PreToolUse hook or an approver may have changed the input: it is in their stored line.
    const updated = input.inputRef ? await updatedInputOf(store, input.sessionId, input.inputRef) : undefined;
    const original = updated ?? block?.input ?? {};
    // A workspace that moved to this host: paths of the former host's tree point into this one.
    const toolInput = ws ? mapFormerPaths(input.toolName, original, ws.formerPaths, ws.repoRoot) : original;

    let out: ToolOutput & { outcome: RunToolSummary['outcome']; structuredOutput?: unknown };
    let deniedInput: unknown;
    let largeResult: LargeResultRecord | undefined;
    // The settings files' `env` is re-read here: its values never enter workflow history.
    const toolEnv = (deps.childEnv ?? defaultChildEnv()).forTools(
      input.settingsEnv ? await readSettingsEnv(input.settingsEnv) : undefined,
    );
    // Bash starts where the session's previous command left the shell (`cd` persists); its
    // relative paths are judged from there.
    // An input the system calls would reject (a NUL byte in a path) is answered before anything runs.
    const inputFault =
      block && invalidJson === undefined && input.skipReason === undefined
        ? inputFaultOf(input.toolName, toolInput)
        : undefined;
    // An exception of the permission check or the tool run that retrying cannot fix.
    let fault: (ToolOutput & { outcome: 'error' }) | undefined;
    const asFault = (err: unknown): undefined => {
      if (isTransientToolError(err)) throw err;
      fault = faultOutput(err);
      return undefined;
    };
    const shellCwd =
      input.toolName === 'Bash' && block && inputFault === undefined
        ? await persistedShellCwd(store, input.sessionId, input.parentUuid, input.cwd).catch(() => undefined)
        : undefined;
    // Rules on paths and commands are decided here, where the input and the files are known.
    const permission: ResolvedPermission =
      input.skipReason !== undefined || !block || invalidJson !== undefined || inputFault !== undefined
        ? { behavior: 'allow' }
        : ((await (deps.resolvePermission ?? resolveToolPermission)(input.permission, {
            toolName: input.toolName,
            input: toolInput,
            cwd: shellCwd ?? input.cwd,
            exportedNames: new Set(Object.keys(toolEnv)),
          }).catch(asFault)) ?? { behavior: 'allow' });
    if (permission.behavior === 'deny' && permission.ask && input.askable && input.skipReason === undefined) {
      // Someone can decide: nothing is written; the workflow waits for the answer and runs it again.
      return {
        toolUseId: input.toolUseId,
        resultUuid: input.resultUuid,
        isError: false,
        outcome: 'ask',
        askReason: permission.message.slice(0, 2048),
        resultBytes: 0,
        replayed: false,
      };
    }
    if (input.skipReason !== undefined) {
      out = {
        content: `<tool_use_error>${input.skipReason}</tool_use_error>`,
        isError: true,
        structured: input.skipReason,
        outcome: 'error',
      };
    } else if (!block) {
      out = {
        content: `<tool_use_error>Error: the tool call ${input.toolUseId} was not found in the transcript.</tool_use_error>`,
        isError: true,
        outcome: 'error',
      };
    } else if (invalidJson !== undefined) {
      out = invalidJsonOutput(input.toolName, invalidJson);
    } else if (inputFault !== undefined) {
      out = inputFaultOutput(inputFault);
    } else if (fault) {
      out = fault;
    } else if (permission.behavior === 'deny') {
      out = {
        content: permission.message,
        isError: true,
        structured: `Error: ${permission.message}`,
        outcome: 'denied',
      };
      deniedInput = truncatedInput(toolInput);
    } else if (input.toolName === STRUCTURED_OUTPUT_TOOL && input.jsonSchemaKey !== undefined) {
      const { compiled } = await loadJsonSchema(store, input.sessionId, input.jsonSchemaKey);
      out = runStructuredOutput(compiled, toolInput);
    } else if (
      !deps.isIdempotent(input.toolName) &&
      (await store.markToolRunStarted(input.sessionId, input.toolUseId))
    ) {
      out = { content: UNKNOWN_OUTCOME_TEXT, isError: true, outcome: 'unknown' };
    } else {
      const ctx = Context.current();
      // A local activity cannot heartbeat (the core does not know it): its worker's workflow task
      // is what keeps it alive, and its timeout bounds it.
      const heartbeat = ctx.info.isLocal ? () => undefined : () => ctx.heartbeat();
      const toolCtx: ToolContext = {
        cwd: input.cwd,
        ...(shellCwd !== undefined ? { shellCwd } : {}),
        signal: ctx.cancellationSignal,
        // The workflow passes the state it holds for this call's own `file_path`.
        readState: () => input.readState ?? undefined,
        heartbeat,
        ...(deps.settings ? { settings: deps.settings } : {}),
        ...(permission.readDenied ? { readDenied: permission.readDenied } : {}),
        env: toolEnv,
      };
      // Often: a cancellation (an interrupt) arrives with a heartbeat's answer.
      const beat = setInterval(heartbeat, TOOL_HEARTBEAT_MS);
      try {
        // A large result of this session that the call names is written again if this host lacks it.
        await materializeLargeResults(store, input.sessionId, toolInput);
        out =
          isMcpToolName(input.toolName) && input.mcpToolsRef && deps.executeMcpTool
            ? await deps.executeMcpTool(input.sessionId, input.mcpToolsRef, input.toolName, toolInput, toolCtx)
            : deps.sessionTools?.handles(input.toolName)
              ? await deps.sessionTools.run(input, toolInput, toolCtx)
              : await deps.executeTool(input.toolName, toolInput, toolCtx);
        // A session tool may refuse the call itself (a skill that needs an allow rule).
        if (out.outcome === 'denied') deniedInput = truncatedInput(toolInput);
        ({ out, record: largeResult } = await keepLargeResult(out, {
          store,
          sessionId: input.sessionId,
          toolUseId: input.toolUseId,
          toolName: input.toolName,
          ...(deps.settings?.largeResultChars !== undefined ? { thresholdChars: deps.settings.largeResultChars } : {}),
        }));
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw err;
        asFault(err);
        out = fault ?? faultOutput(err);
      } finally {
        clearInterval(beat);
      }
      if (ctx.cancellationSignal.aborted) {
        // The turn was interrupted: report the cancellation; the workflow records an interrupt note.
        // A CancelledFailure reports the attempt as cancelled (not failed), so nothing retries it.
        throw new CancelledFailure('tool run cancelled');
      }
    }

    // After a tool that can change files: the tree goes to the store before the result line, so
    // a result the workflow sees always has its snapshot (DESIGN.md rule 7).
    let snapshot: SnapshotRef | undefined;
    if (
      ws &&
      deps.snapshot &&
      !deps.isIdempotent(input.toolName) &&
      (out.outcome === 'ok' || out.outcome === 'error' || out.outcome === 'unknown') &&
      input.skipReason === undefined
    ) {
      try {
        snapshot = await deps.snapshot({
          sessionId: input.sessionId,
          toolUseId: input.toolUseId,
          root: ws.repoRoot,
          base: ws.baseCommit,
        });
      } catch (err) {
        if (err instanceof SnapshotTooLargeError) {
          throw ApplicationFailure.create({
            type: WorkspaceErrorType.SnapshotTooLarge,
            message: err.message,
            nonRetryable: true,
          });
        }
        if (isTransientToolError(err)) throw err;
        // The repository's own state (a broken .git/config): the same on every attempt. The tool
        // did run; the model is told so (the turn gives it this as the call's is_error result).
        throw ApplicationFailure.create({
          type: ToolErrorType.Fault,
          message: toolFaultMessage(
            new Error(
              `${input.toolName} ran, but the workspace could not be recorded after it: ${err instanceof Error ? err.message : String(err)}`,
            ),
          ),
          nonRetryable: true,
        });
      }
    }

    const turnId = Context.current().info.workflowExecution?.workflowId ?? '';
    let attachments: TranscriptEntry['attachments'] = out.attachments?.length
      ? (out.attachments as unknown as TranscriptEntry['attachments'])
      : undefined;
    if (out.outcome === 'ok') {
      try {
        const nested = await nestedMemoryAttachments({
          cwd: input.cwd,
          turnId,
          toolName: input.toolName,
          toolInput,
          entries: await store.load(input.sessionId),
        });
        for (const w of nested.warnings) Context.current().log.warn(w, { sessionId: input.sessionId });
        if (nested.attachments.length) {
          attachments = [
            ...(attachments ?? []),
            ...(nested.attachments as unknown as NonNullable<TranscriptEntry['attachments']>),
          ];
        }
      } catch (err) {
        // Memory is a help for the model; a failure to read it never fails the tool call.
        Context.current().log.warn(`nested memory not loaded: ${err instanceof Error ? err.message : String(err)}`);
      }
    }

    const entry: TranscriptEntry = {
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
      turnId,
      ...(out.structured !== undefined ? { toolUseResult: out.structured } : {}),
      ...(attachments ? { attachments } : {}),
      ...(out.structuredOutput !== undefined ? { structuredOutput: out.structuredOutput } : {}),
      ...(largeResult ? { largeResult } : {}),
      toolRun: {
        tool: input.toolName,
        outcome: out.outcome,
        ...(out.fileState ? { fileState: out.fileState } : {}),
        ...(out.shellCwd !== undefined ? { shellCwd: out.shellCwd } : {}),
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
      },
    };
    // First writer wins: another attempt may have recorded this call meanwhile; report its line.
    const stored = await store.append(entry);
    return summaryOf(stored.entry, input, !stored.written);
  };
}
