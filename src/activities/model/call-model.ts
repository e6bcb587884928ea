import { resolveToolPath } from '../tools/file-state';
import { toolUseLabel } from '../../common/summary';
import type Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { CallModelInput, CallModelSummary } from '../../common/model';
import { ModelErrorType } from '../../common/model';
import type { ToolUseSummary } from '../../common/tools';
import { BUILTIN_TOOL_NAMES } from '../../common/tools';
import type { TranscriptEntry } from '../../common/transcript';
import type { Usage } from '../../common/usage';
import type { ModelPrice } from '../../engine/cost';
import { costOfUsage } from '../../engine/cost';
import type { TranscriptStore } from '../../store/transcript-store';
import type { StreamEventWriter } from '../../store/stream-events';
import { TranscriptChainError } from '../../store/transcript-store';
import { structuredOutputTools } from '../structured-output';
import { replayedReminder, withFileReminder } from './file-reminders';
import { failFastForFallback } from './fallback';
import { classifyModelError } from './errors';
import { buildMessages, buildSystem } from './request';
import { assembleStream } from './stream';
import { layeredSystemPrompt } from './system-prompt';
import { getContextContent, MissingContextContentError } from '../../context/content-keys';

/** What `callModel` needs from the worker. */
export interface ModelDeps {
  store: TranscriptStore;
  /** The Anthropic client (SDK retries must be off: `maxRetries: 0`). */
  anthropic(): Anthropic;
  /** Price of a model, or null when it is not in the table. */
  priceFor(model: string): ModelPrice | null;
  /** Tool definitions sent to the model, by name. */
  toolsForModel(names: string[]): Anthropic.Tool[];
  /** Context window of a model (tokens). @default 200000 */
  contextWindowFor?(model: string): number;
}

/**
 * The events of a stream, each also published to a side channel as `{event}` (the first with
 * `ttft_ms`, the time from the request to it); keep-alive pings are not published.
 */
async function* publishing<E extends { type: string }>(
  events: AsyncIterable<E>,
  tap: StreamEventWriter,
  requestedAt: number,
): AsyncIterable<E> {
  let first = true;
  for await (const ev of events) {
    if (ev.type !== 'ping') tap.publish(first ? { event: ev, ttft_ms: Date.now() - requestedAt } : { event: ev });
    first = false;
    yield ev;
  }
}

/**
 * Builds the system prompt of a call from the parts the input names by content key (read from
 * the session's content blobs; the text never travels in workflow history).
 * @throws ApplicationFailure `TranscriptError` (non-retryable) when a part is not in the store.
 */
export async function systemPromptFor(
  store: TranscriptStore,
  input: Pick<CallModelInput, 'sessionId' | 'systemPromptKey' | 'appendSystemPromptKey'>,
): Promise<string> {
  try {
    const read = (key: string | undefined): Promise<string | undefined> =>
      key === undefined ? Promise.resolve(undefined) : getContextContent(store, input.sessionId, key);
    const [systemPrompt, appendSystemPrompt] = await Promise.all([
      read(input.systemPromptKey),
      read(input.appendSystemPromptKey),
    ]);
    return layeredSystemPrompt({
      ...(systemPrompt !== undefined ? { systemPrompt } : {}),
      ...(appendSystemPrompt !== undefined ? { appendSystemPrompt } : {}),
    });
  } catch (err) {
    if (!(err instanceof MissingContextContentError)) throw err;
    throw ApplicationFailure.create({ type: ModelErrorType.Transcript, message: err.message, nonRetryable: true });
  }
}

function summarize(
  entry: TranscriptEntry,
  cwd: string,
  deps: ModelDeps,
  durationMs: number,
  replayed: boolean,
): CallModelSummary {
  const m = (entry.message ?? {}) as Record<string, unknown>;
  const content = (Array.isArray(m['content']) ? m['content'] : []) as Array<Record<string, unknown>>;
  const usage = m['usage'] as Usage;
  const model = String(m['model'] ?? '');
  const toolUses: ToolUseSummary[] = content
    .filter((b) => b['type'] === 'tool_use')
    .map((b) => {
      const input = (b['input'] ?? {}) as Record<string, unknown>;
      const fp = input['file_path'];
      return {
        id: String(b['id']),
        name: String(b['name']),
        ...(typeof fp === 'string' && fp.length > 0 && fp.length < 4096 ? { filePath: resolveToolPath(cwd, fp) } : {}),
        label: toolUseLabel(String(b['name']), input, cwd),
      };
    });
  return {
    model,
    stopReason: (m['stop_reason'] as string | null) ?? null,
    usage,
    costUsd: costOfUsage(usage, deps.priceFor(model)),
    contextWindow: deps.contextWindowFor?.(model) ?? 200_000,
    maxOutputTokens: Number((entry as Record<string, unknown>)['maxTokens'] ?? 0) || 0,
    toolUses,
    contentTypes: content.map((b) => String(b['type'])),
    durationMs,
    replayed,
  };
}

/**
 * Creates the `callModel` activity: reads the context chain from the store, streams one Messages
 * API call (heartbeating on every event so a dead worker is noticed within the heartbeat
 * timeout, and aborting the HTTP request when the activity is cancelled), writes the assistant
 * line (durable before the activity returns) and returns a small summary.
 *
 * Idempotent: if the assistant line already exists (the call completed but its worker died
 * before reporting), it returns the stored summary without calling the API again.
 * @throws ApplicationFailure typed by {@link classifyModelError}; `TranscriptError` (non-retryable)
 *   when the context chain is broken.
 */
export function createCallModel(deps: ModelDeps): (input: CallModelInput) => Promise<CallModelSummary> {
  return async function callModel(input: CallModelInput): Promise<CallModelSummary> {
    const existing = await deps.store.get(input.sessionId, input.assistantUuid);
    if (existing) {
      return {
        ...summarize(existing, input.cwd, deps, 0, true),
        ...(await replayedReminder(deps.store, input, existing)),
      };
    }

    let chain: TranscriptEntry[];
    try {
      chain = await deps.store.chain(input.sessionId, input.parentUuid);
    } catch (err) {
      if (err instanceof TranscriptChainError) {
        throw ApplicationFailure.create({ type: ModelErrorType.Transcript, message: err.message, nonRetryable: true });
      }
      throw err;
    }
    const ctx = Context.current();
    const turnId = ctx.info.workflowExecution?.workflowId ?? '';
    // Files the model read that changed on disk since get a reminder line before this call.
    const context = await withFileReminder(deps.store, { ...input, turnId }, chain);
    const params: Anthropic.MessageCreateParamsStreaming = {
      model: input.model,
      max_tokens: input.maxTokens,
      system: buildSystem(await systemPromptFor(deps.store, input)),
      messages: buildMessages(context.chain),
      tools: [
        ...deps.toolsForModel(input.tools ?? [...BUILTIN_TOOL_NAMES]),
        ...((await structuredOutputTools(deps.store, input)) as Anthropic.Tool[]),
      ],
      metadata: { user_id: input.sessionId },
      stream: true,
    };
    const started = Date.now();
    let assembled;
    let requestId: string | null = null;
    try {
      const { data, request_id } = await deps
        .anthropic()
        .messages.create(params, { signal: ctx.cancellationSignal })
        .withResponse();
      requestId = request_id ?? null;
      // `--include-partial-messages`: the raw events also go to the store's side channel.
      const tap = input.streamEvents ? deps.store.streamEvents?.open(input.sessionId, input.assistantUuid) : undefined;
      assembled = await assembleStream(tap ? publishing(data, tap, started) : data, (n) =>
        ctx.heartbeat({ events: n }),
      );
      await tap?.close();
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw err;
      throw failFastForFallback(classifyModelError(err), input, ctx.info.attempt);
    }
    const durationMs = Date.now() - started;
    const { invalidToolInputs, ...message } = assembled;
    const entry: TranscriptEntry = {
      v: 1,
      type: 'assistant',
      uuid: input.assistantUuid,
      parentUuid: context.parentUuid,
      sessionId: input.sessionId,
      timestamp: new Date().toISOString(),
      message: message as unknown as TranscriptEntry['message'],
      maxTokens: input.maxTokens,
      turnId,
      ...(requestId ? { requestId } : {}),
      ...(Object.keys(invalidToolInputs).length ? { invalidToolInputs } : {}),
    };
    await deps.store.append(entry);
    return {
      ...summarize(entry, input.cwd, deps, durationMs, false),
      ...(context.reminder ? { fileReminder: context.reminder } : {}),
    };
  };
}
