import type { RunToolInput } from '../../common/tools';
import type { ContentBlock } from '../../common/transcript';
import { STRUCTURED_OUTPUT_TOOL } from '../../common/structured-output';
import type { ToolCallFacts } from '../../engine/tool-call-plan';
import { updatedInputOf } from '../hooks/run-hooks';
import { persistedShellCwd } from '../shell-cwd';
import { mapFormerPaths } from '../workspace/prepare';
import type { ResolvedPermission } from '../tool-permission';
import { resolveToolPermission } from '../tool-permission';
import { readSettingsEnv } from '../settings-env';
import { inputFaultOf } from '../tools/input-faults';
import { isTransientToolError, toolFaultMessage } from '../tool-faults';
import type { RunToolDeps } from './deps';
import { defaultChildEnv } from './deps';

/** A `RunToolInput` whose absent parent has become the assistant line (see `RunToolInput.parentUuid`). */
export type ToolRunInput = RunToolInput & { parentUuid: string };

/** What `runTool` has read of one call before it decides anything (see `planToolCall`). */
export interface ToolCall {
  /** The `tool_use` block of the stored assistant line (absent: not found). */
  block: { name: string; input: unknown } | undefined;
  /** The model's input as sent, when it was not valid JSON. */
  invalidJson: string | undefined;
  /** The input the tool gets: a hook's or an approver's change, paths of a former host mapped. */
  toolInput: unknown;
  /** The environment of the processes the tool starts (with the settings files' `env`). */
  toolEnv: NodeJS.ProcessEnv;
  /** Why the system would refuse the input (a NUL byte in a path). */
  inputFault: string | undefined;
  /** Where the session's previous Bash command left the shell (Bash only). */
  shellCwd: string | undefined;
  /** The permission for this input and these files. */
  permission: ResolvedPermission;
  /** The permission check failed with a fault retrying cannot fix: its message. */
  permissionFault: string | undefined;
  /** The model of the assistant line that asked for the call (WebSearch and WebFetch call it too). */
  callingModel: string | undefined;
}

/**
 * Reads one call: the tool_use from the stored assistant line, the input as a hook or an approver
 * left it, the settings `env`, the checks of its input, the shell's directory, and the permission
 * for this input and these files. A transient error of the permission check is thrown (Temporal
 * retries the activity); any other becomes `permissionFault`.
 */
export async function readToolCall(deps: RunToolDeps, input: ToolRunInput): Promise<ToolCall> {
  const { store } = deps;
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
  // The settings files' `env` is re-read here: its values never enter workflow history.
  const toolEnv = (deps.childEnv ?? defaultChildEnv()).forTools(
    input.settingsEnv ? await readSettingsEnv(input.settingsEnv) : undefined,
  );
  // An input the system calls would reject (a NUL byte in a path) is answered before anything runs.
  const inputFault =
    block && invalidJson === undefined && input.skipReason === undefined
      ? inputFaultOf(input.toolName, toolInput)
      : undefined;
  // Bash starts where the session's previous command left the shell (`cd` persists); its
  // relative paths are judged from there.
  const shellCwd =
    input.toolName === 'Bash' && block && inputFault === undefined
      ? await persistedShellCwd(store, input.sessionId, input.parentUuid, input.cwd).catch(() => undefined)
      : undefined;
  const decided =
    input.skipReason !== undefined || !block || invalidJson !== undefined || inputFault !== undefined
      ? undefined
      : await decidePermission(deps, input, { toolInput, toolEnv, shellCwd });
  return {
    block,
    invalidJson,
    toolInput,
    toolEnv,
    inputFault,
    shellCwd,
    permission: decided?.permission ?? { behavior: 'allow' },
    permissionFault: decided?.fault,
    callingModel: assistant?.message?.model,
  };
}

/** Rules on paths and commands, decided here where the input and the files are known. */
async function decidePermission(
  deps: RunToolDeps,
  input: ToolRunInput,
  call: Pick<ToolCall, 'toolInput' | 'toolEnv' | 'shellCwd'>,
): Promise<{ permission?: ResolvedPermission; fault?: string }> {
  try {
    const permission = await (deps.resolvePermission ?? resolveToolPermission)(input.permission, {
      toolName: input.toolName,
      input: call.toolInput,
      cwd: call.shellCwd ?? input.cwd,
      exportedNames: new Set(Object.keys(call.toolEnv)),
    });
    return { permission };
  } catch (err) {
    // An exception of the permission check that retrying cannot fix: the call's result.
    if (isTransientToolError(err)) throw err;
    return { fault: toolFaultMessage(err) };
  }
}

/** The facts `planToolCall` decides on. */
export function factsOf(deps: RunToolDeps, input: ToolRunInput, call: ToolCall): ToolCallFacts {
  const p = call.permission;
  return {
    ...(input.skipReason !== undefined ? { skipReason: input.skipReason } : {}),
    found: call.block !== undefined,
    ...(call.invalidJson !== undefined ? { invalidJson: call.invalidJson } : {}),
    ...(call.inputFault !== undefined ? { inputFault: call.inputFault } : {}),
    ...(call.permissionFault !== undefined ? { fault: call.permissionFault } : {}),
    permission: p.behavior === 'deny' ? { behavior: 'deny', message: p.message, ask: p.ask === true } : p,
    askable: input.askable === true,
    ...(input.toolName === STRUCTURED_OUTPUT_TOOL && input.jsonSchemaKey !== undefined
      ? { jsonSchemaKey: input.jsonSchemaKey }
      : {}),
    idempotent: deps.isIdempotent(input.toolName),
  };
}
