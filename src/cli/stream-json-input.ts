/**
 * `--input-format stream-json`: the protocol the Claude Agent SDK speaks to the CLI it spawns.
 * stdin carries one JSON object per line: user messages (`{"type":"user","message":{"role":"user",
 * "content":…}}`, each one a turn of the same session, run in order) and control requests
 * (`{"type":"control_request","request_id":…,"request":{"subtype":…}}`), answered on stdout with
 * `{"type":"control_response","response":{"subtype":"success"|"error","request_id":…,…}}` while
 * turns run. Supported requests: `initialize`, `interrupt`, `set_permission_mode`, `set_model`;
 * any other is answered with an error.
 */
import type { AgentDefinition } from '../common/agents';
import { mergeAgentDefinitions } from '../common/agents';
import { AgentsOptionError, parseAgentsOption } from '../client/agent-types';
import { createInterface } from 'node:readline';
import { resolveModelAlias } from '../config/model-aliases';
import type { SDKMessage, SDKResultMessage } from '../common/sdk-messages';
import type { PendingApproval } from '../common/approvals';
import type { ApprovalDecision } from '../client/approvals';
import type { TurnOptions } from '../common/turn';
import { RUNNER_VERSION } from '../common/version';
import type { PermissionMode } from '../common/permissions';
import { PERMISSION_MODES } from '../common/permissions';
import type { Definitions } from '../config-files/definitions/types';
import type { ContentBlock } from '../common/transcript';
import type { UserPrompt } from '../common/user-prompt';
import { PROMPT_BLOCK_TYPES } from '../common/user-prompt';
import { errorText } from './error-text';

/** The runner's own commands, as `initialize` lists them. */
const RUNNER_COMMANDS = [
  {
    name: 'clear',
    description: 'Start a fresh conversation in this session (no model call)',
    argumentHint: '',
    builtin: true,
  },
  {
    name: 'compact',
    description: 'Free up context by summarizing the conversation so far',
    argumentHint: '<optional custom summarization instructions>',
    builtin: true,
  },
];

/**
 * `initialize`'s `commands` and `agents` (the Agent SDK's `supportedCommands()`), as Claude Code
 * 2.1.328 lists them: skills, then commands, each description marked with where it comes from
 * (` (user)`, ` (project)`, ` (plugin <name>)`), then the built-in ones.
 */
export function initializeCatalog(
  defs: Definitions | undefined,
  agentTypes?: readonly AgentDefinition[],
): {
  commands: Array<{ name: string; description: string; argumentHint: string; builtin?: boolean }>;
  agents: Array<{ name: string; description: string; model?: string }>;
} {
  const scope = (c: { scope: string; plugin?: string }): string =>
    c.scope === 'plugin' ? `plugin ${c.plugin ?? ''}` : c.scope;
  const custom = defs
    ? [...defs.commands.filter((c) => c.kind === 'skill'), ...defs.commands.filter((c) => c.kind === 'command')]
    : [];
  return {
    commands: [
      ...custom.map((c) => ({
        name: c.name,
        description: `${c.description} (${scope(c)})`,
        argumentHint: c.argumentHint,
      })),
      ...RUNNER_COMMANDS,
    ],
    agents: agentTypes
      ? agentTypes.map((a) => ({
          name: a.agentType,
          description: a.description,
          ...(a.model !== undefined ? { model: a.model } : {}),
        }))
      : (defs?.agents ?? []).map((a) => ({
          name: a.name,
          description: a.description,
          ...(a.model !== undefined ? { model: a.model } : {}),
        })),
  };
}

/** One stdin line, classified. */
export type StreamInputLine =
  /**
   * A user message: its text, and `blocks` when it carries images or documents (then the prompt
   * is the blocks, text blocks included, in their order); `skippedBlocks` names what is left out.
   */
  | { kind: 'user'; text: string; blocks?: ContentBlock[]; skippedBlocks: string[] }
  | { kind: 'control_request'; requestId: string; request: Record<string, unknown> }
  /** The client's answer to a request of ours (`can_use_tool`). */
  | { kind: 'control_response'; requestId: string; ok: boolean; response: Record<string, unknown>; error?: string }
  /** `control_response`, `keep_alive` and types this runner does not know: nothing to do. */
  | { kind: 'ignored'; type: string }
  | { kind: 'invalid'; error: string };

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A Messages API image or document `source`: base64 data with its media type, a URL, or a Files API id. */
function isMediaSource(v: unknown): boolean {
  if (!isRecord(v)) return false;
  const str = (k: string): boolean => typeof v[k] === 'string' && v[k] !== '';
  switch (v['type']) {
    case 'base64':
      return str('media_type') && str('data');
    case 'url':
      return str('url');
    case 'file':
      return str('file_id');
    case 'text':
      return str('data');
    default:
      return false;
  }
}

/** Parses one line of stream-json input. Never throws. */
export function parseStreamInputLine(line: string): StreamInputLine {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (e) {
    return { kind: 'invalid', error: `not JSON (${(e as Error).message}): ${line.slice(0, 200)}` };
  }
  if (!isRecord(v) || typeof v['type'] !== 'string') {
    return { kind: 'invalid', error: `not a message object with a "type": ${line.slice(0, 200)}` };
  }
  if (v['type'] === 'control_request') {
    const requestId = v['request_id'];
    const request = v['request'];
    if (typeof requestId !== 'string' || !isRecord(request) || typeof request['subtype'] !== 'string') {
      return { kind: 'invalid', error: `control_request without request_id or request.subtype: ${line.slice(0, 200)}` };
    }
    return { kind: 'control_request', requestId, request };
  }
  if (v['type'] === 'control_response') {
    const r = v['response'];
    if (!isRecord(r) || typeof r['request_id'] !== 'string') {
      return { kind: 'invalid', error: `control_response without response.request_id: ${line.slice(0, 200)}` };
    }
    return {
      kind: 'control_response',
      requestId: r['request_id'],
      ok: r['subtype'] === 'success',
      response: isRecord(r['response']) ? r['response'] : {},
      ...(typeof r['error'] === 'string' ? { error: r['error'] } : {}),
    };
  }
  if (v['type'] !== 'user') return { kind: 'ignored', type: v['type'] };
  const message = v['message'];
  const content = isRecord(message) ? message['content'] : undefined;
  if (typeof content === 'string') return { kind: 'user', text: content, skippedBlocks: [] };
  if (!Array.isArray(content)) return { kind: 'invalid', error: 'user message without message.content' };
  const texts: string[] = [];
  const blocks: ContentBlock[] = [];
  const skippedBlocks: string[] = [];
  for (const block of content) {
    if (isRecord(block) && block['type'] === 'text' && typeof block['text'] === 'string') {
      texts.push(block['text']);
      blocks.push(block as ContentBlock);
    } else if (isRecord(block) && PROMPT_BLOCK_TYPES.has(String(block['type'])) && isMediaSource(block['source'])) {
      // An image or a document goes to the model as it came, as in Claude Code.
      blocks.push(block as ContentBlock);
    } else {
      skippedBlocks.push(isRecord(block) ? String(block['type']) : typeof block);
    }
  }
  const media = blocks.some((b) => b.type !== 'text');
  return { kind: 'user', text: texts.join('\n'), ...(media ? { blocks } : {}), skippedBlocks };
}

/** What a stream-json session needs from the conversation (a {@link QueryEngine}). */
export interface StreamJsonEngine {
  submitMessage(prompt: UserPrompt, options?: Partial<TurnOptions>): AsyncGenerator<SDKMessage, void, undefined>;
  interrupt(reason?: string): Promise<void>;
  /** The session's agent types (`initialize` lists them). */
  agentTypes?(): readonly AgentDefinition[];
  /** Replaces them (the SDK's `agents`, sent with `initialize`). */
  setAgentTypes?(agents: readonly AgentDefinition[]): void;
}

/** Dependencies of {@link runStreamJsonInput}. */
export interface StreamJsonInputDeps {
  engine: StreamJsonEngine;
  /** Turn options of the session; `initialize`, `set_model` and `set_permission_mode` change them for later turns. */
  options: TurnOptions;
  /** Writes one JSON line on stdout. */
  write: (message: unknown) => void;
  /** A warning on stderr. */
  warn: (line: string) => void;
  /**
   * Why a model cannot be used under the session's USD limit (it has no price), or null. A
   * `set_model` to such a model is refused and the session keeps its model.
   */
  unenforceableBudget?: (model: string, options: TurnOptions) => string | null;
  /**
   * `--permission-prompt-tool stdio`: turns' pending approvals are sent to the client as
   * `can_use_tool` control requests, and its `control_response` answers them.
   */
  approvals?: StreamApprovals;
  /** The session's commands, skills and agents (`initialize` lists them). */
  definitions?: Definitions;
}

/** What the stream-json session needs to bridge approvals to the client. */
export interface StreamApprovals {
  /** Approvals the running turn waits for, each with its tool input. */
  pending(): Promise<Array<PendingApproval & { input: unknown }>>;
  answer(d: ApprovalDecision): Promise<unknown>;
  /** How often pending approvals are polled (ms). @default 250 */
  pollMs?: number;
}

type ControlResult = { ok: true; response: Record<string, unknown> } | { ok: false; error: string };

const SUPPORTED_REQUESTS = ['initialize', 'interrupt', 'set_permission_mode', 'set_model'];

function promptOption(v: unknown): string | undefined {
  const text = Array.isArray(v) ? v.filter((x) => typeof x === 'string').join('\n') : typeof v === 'string' ? v : '';
  return text.trim() === '' ? undefined : text;
}

/**
 * Runs a stream-json session: every user line is a turn (run one after another, their messages
 * written as they come), control requests are answered at once, also while a turn runs. Returns
 * the last turn's result once stdin has ended and every turn has finished (undefined if there
 * was no user message).
 * @throws Error when a line is not a stream-json message (no later line is read, and no turn that
 *   has not started runs), or the error that ended a turn.
 */
export async function runStreamJsonInput(
  lines: AsyncIterable<string>,
  deps: StreamJsonInputDeps,
): Promise<SDKResultMessage | undefined> {
  const { engine, write, warn } = deps;
  let options: TurnOptions = { ...deps.options };
  const defaultModel = options.model;
  let turnRunning = false;
  let last: SDKResultMessage | undefined;
  let queue: Promise<void> = Promise.resolve();
  let failure: { error: unknown } | undefined;

  const control = async (request: Record<string, unknown>): Promise<ControlResult> => {
    switch (request['subtype']) {
      case 'initialize': {
        const systemPrompt = promptOption(request['systemPrompt']);
        const appendSystemPrompt = promptOption(request['appendSystemPrompt']);
        options = {
          ...options,
          ...(systemPrompt !== undefined ? { systemPrompt } : {}),
          ...(appendSystemPrompt !== undefined ? { appendSystemPrompt } : {}),
        };
        // The SDK sends its `outputFormat` schema both here and as `--json-schema`, which applies.
        const sdkAgents = request['agents'];
        if (isRecord(sdkAgents) && Object.keys(sdkAgents).length > 0 && engine.setAgentTypes) {
          try {
            const sdk = parseAgentsOption(sdkAgents, 'sdk');
            engine.setAgentTypes(mergeAgentDefinitions([engine.agentTypes?.() ?? [], sdk]));
          } catch (e) {
            if (e instanceof AgentsOptionError) return { ok: false, error: e.message };
            throw e;
          }
        }
        const ignored = [
          'hooks',
          'sdkMcpServers',
          ...(engine.setAgentTypes ? [] : ['agents']),
          ...(options.jsonSchemaKey ? [] : ['jsonSchema']),
        ];
        const unsupported = ignored.filter((k) => {
          const v = request[k];
          return v !== undefined && v !== null && !(isRecord(v) && Object.keys(v).length === 0);
        });
        if (unsupported.length > 0) warn(`agent-runner: initialize: not supported, ignored: ${unsupported.join(', ')}`);
        return {
          ok: true,
          response: {
            ...initializeCatalog(deps.definitions, engine.agentTypes?.()),
            output_style: 'default',
            available_output_styles: ['default'],
            models: [],
            account: {},
            claude_code_version: RUNNER_VERSION,
            current_permission_mode: options.permissionMode,
          },
        };
      }
      case 'interrupt':
        if (turnRunning) await engine.interrupt('Interrupted by the client (control_request interrupt)');
        return { ok: true, response: {} };
      case 'set_permission_mode': {
        const mode = request['mode'];
        if (typeof mode !== 'string' || !(PERMISSION_MODES as readonly string[]).includes(mode)) {
          return {
            ok: false,
            error: `Unsupported permission mode: ${String(mode)} (one of ${PERMISSION_MODES.join(', ')})`,
          };
        }
        options = { ...options, permissionMode: mode as PermissionMode };
        return { ok: true, response: {} };
      }
      case 'set_model': {
        const model = request['model'];
        const next = typeof model === 'string' && model !== 'default' ? resolveModelAlias(model) : defaultModel;
        const refused = deps.unenforceableBudget?.(next, options) ?? null;
        if (refused !== null) return { ok: false, error: `set_model refused: ${refused}` };
        options = { ...options, model: next };
        return { ok: true, response: {} };
      }
      default:
        return {
          ok: false,
          error: `Unsupported control request subtype: ${String(request['subtype'])} (this runner supports ${SUPPORTED_REQUESTS.join(', ')})`,
        };
    }
  };

  const answer = async (requestId: string, request: Record<string, unknown>): Promise<void> => {
    let r: ControlResult;
    try {
      r = await control(request);
    } catch (e) {
      r = { ok: false, error: errorText(e) };
    }
    write({
      type: 'control_response',
      response: r.ok
        ? { subtype: 'success', request_id: requestId, response: r.response }
        : { subtype: 'error', request_id: requestId, error: r.error },
    });
  };

  // can_use_tool requests sent to the client, by request id.
  const asked = new Map<string, string>();
  const seen = new Set<string>();
  let requestSeq = 0;
  const pollApprovals = async (): Promise<void> => {
    const bridge = deps.approvals;
    if (!bridge) return;
    let list: Array<PendingApproval & { input: unknown }> = [];
    try {
      list = await bridge.pending();
    } catch {
      return; // between turns, or a query that failed: next poll
    }
    for (const p of list) {
      if (seen.has(p.approvalId)) continue;
      seen.add(p.approvalId);
      const requestId = `can_use_tool_${++requestSeq}`;
      asked.set(requestId, p.approvalId);
      write({
        type: 'control_request',
        request_id: requestId,
        request: {
          subtype: 'can_use_tool',
          tool_name: p.toolName,
          input: p.input ?? {},
          tool_use_id: p.toolUseId,
          permission_suggestions: [],
          blocked_path: null,
          decision_reason: p.reason,
        },
      });
    }
  };
  const onControlResponse = async (line: Extract<StreamInputLine, { kind: 'control_response' }>): Promise<void> => {
    const approvalId = asked.get(line.requestId);
    if (!approvalId || !deps.approvals) return;
    asked.delete(line.requestId);
    const r = line.response;
    const allow = line.ok && r['behavior'] === 'allow';
    const updated = r['updatedInput'];
    const message = typeof r['message'] === 'string' ? r['message'] : line.error;
    try {
      await deps.approvals.answer({
        approvalId,
        behavior: allow ? 'allow' : 'deny',
        ...(message !== undefined && !allow ? { message } : {}),
        ...(allow && isRecord(updated) ? { updatedInput: updated } : {}),
        by: 'sdk',
      });
    } catch (e) {
      warn(`agent-runner: could not answer approval ${approvalId}: ${errorText(e)}`);
    }
  };

  const runTurn = async (prompt: UserPrompt): Promise<void> => {
    turnRunning = true;
    // One poll at a time; the last one is awaited before the turn ends (the client may close next).
    let polling: Promise<void> = Promise.resolve();
    const timer = deps.approvals
      ? setInterval(() => {
          polling = polling.then(pollApprovals);
        }, deps.approvals.pollMs ?? 250)
      : undefined;
    try {
      for await (const msg of engine.submitMessage(prompt, options)) {
        write(msg);
        if (msg.type === 'result') last = msg;
      }
    } finally {
      if (timer) clearInterval(timer);
      await polling;
      turnRunning = false;
    }
  };

  const pending = new Set<Promise<void>>();
  for await (const raw of lines) {
    if (raw.trim() === '') continue;
    const line = parseStreamInputLine(raw);
    if (line.kind === 'invalid') {
      // As Claude Code: a line that is not a message ends the run with an error (exit 1). Turns
      // not started yet are not run; one that runs finishes (and prints its result) first.
      failure ??= {
        error: new Error(`error parsing a stream-json input line (${raw.length} characters): ${line.error}`),
      };
      break;
    } else if (line.kind === 'control_response') {
      const p = onControlResponse(line).finally(() => pending.delete(p));
      pending.add(p);
    } else if (line.kind === 'control_request') {
      const p = answer(line.requestId, line.request).finally(() => pending.delete(p));
      pending.add(p);
    } else if (line.kind === 'user') {
      if (line.skippedBlocks.length > 0) {
        warn(
          `agent-runner: only text, image and document blocks are supported in user messages; skipped: ${line.skippedBlocks.join(', ')}`,
        );
      }
      if (line.text.trim() === '' && !line.blocks) {
        warn('agent-runner: ignoring a user message with no text');
        continue;
      }
      const prompt: UserPrompt = line.blocks ?? line.text;
      // A turn that fails (the server went away) ends the session: later turns are not run.
      queue = queue
        .then(() => (failure ? undefined : runTurn(prompt)))
        .catch((error: unknown) => {
          failure ??= { error };
        });
    }
  }
  await Promise.all(pending);
  await queue;
  if (failure) throw failure.error;
  return last;
}

/** The lines of a readable stream (stdin), as they arrive. */
export function readLines(stream: NodeJS.ReadableStream): AsyncIterable<string> {
  return createInterface({ input: stream, crlfDelay: Infinity });
}
