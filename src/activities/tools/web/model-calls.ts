/**
 * Model calls a tool makes for the conversation, as Claude Code's WebSearch and WebFetch do: a
 * second request to the session's model (with the API's `web_search` server tool, or none), the
 * model's default effort and no thinking (`secondaryCallParams`), streamed with the worker's
 * model client. What each call was billed (tokens and web searches, priced) comes back as a
 * {@link ToolModelSpend}, which the tool's result line keeps and the turn counts.
 *
 * Errors: a retryable API error (429, 529, 5xx, the network) is thrown as the typed failure of
 * `classifyModelError`, so that Temporal retries the tool run; any other comes back as
 * {@link ToolModelCallError}, which the tool reports to the model.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ModelProvider } from '../../../common/model-capabilities';
import type { ModelPrice, ToolModelSpend } from '../../../common/usage';
import { addUsage, emptyUsage, usageDetailsOf } from '../../../common/usage';
import { costOfUsage } from '../../../engine/cost';
import type { ModelClient } from '../../model/call-model';
import { betaHeaders } from '../../model/betas';
import { classifyModelError } from '../../model/errors';
import { assembleStream } from '../../model/stream';
import type { AssembledMessage } from '../../model/stream';
import { secondaryCallParams } from '../../model/thinking-params';

/** One request of a tool. */
export interface ToolModelRequest {
  model: string;
  /** The system prompt (one text block), if any. */
  system?: string;
  messages: Anthropic.MessageParam[];
  /** Server tools (`web_search_20250305`), or none. */
  tools?: unknown[];
  tool_choice?: { type: 'auto' | 'any' | 'none' };
  /** The session (`metadata.user_id`, as the conversation's own calls send it). */
  sessionId?: string;
}

/** What a tool gets back. */
export interface ToolModelResponse {
  message: AssembledMessage;
  spend: ToolModelSpend;
}

/** A request the API refused for good (400, 401, 403, 404, 413): the tool tells the model. */
export class ToolModelCallError extends Error {
  override readonly name = 'ToolModelCallError';
}

/** The model calls of tools, bound to the worker's client. */
export interface ToolModelCalls {
  /**
   * Streams one request. `onEvent` is called on every stream event (tools heartbeat there).
   * @throws ApplicationFailure (retryable) for an error worth retrying; ToolModelCallError otherwise
   */
  call(req: ToolModelRequest, opts: { signal: AbortSignal; onEvent?: () => void }): Promise<ToolModelResponse>;
}

/** What {@link createToolModelCalls} needs from the worker. */
export interface ToolModelCallDeps {
  client(model: string): ModelClient;
  provider?: ModelProvider;
  priceFor(model: string): ModelPrice | null;
}

/** Sums the spends of several calls of one tool run (same model). */
export function addSpend(a: ToolModelSpend | undefined, b: ToolModelSpend): ToolModelSpend {
  if (!a) return b;
  return {
    model: b.model,
    usage: addUsage(a.usage, b.usage),
    webSearchRequests: a.webSearchRequests + b.webSearchRequests,
    ...(a.thinkingTokens !== undefined || b.thinkingTokens !== undefined
      ? { thinkingTokens: (a.thinkingTokens ?? 0) + (b.thinkingTokens ?? 0) }
      : {}),
    costUsd: a.costUsd === null || b.costUsd === null ? null : a.costUsd + b.costUsd,
    calls: a.calls + b.calls,
    durationMs: a.durationMs + b.durationMs,
  };
}

/** Creates the model calls of tools. */
export function createToolModelCalls(deps: ToolModelCallDeps): ToolModelCalls {
  return {
    async call(req, opts) {
      const provider = deps.provider ?? 'firstParty';
      const { betas, ...effort } = secondaryCallParams(req.model, provider);
      const params = {
        model: req.model,
        ...(req.system !== undefined ? { system: [{ type: 'text', text: req.system }] } : {}),
        messages: req.messages,
        tools: req.tools ?? [],
        ...(req.tool_choice ? { tool_choice: req.tool_choice } : {}),
        ...(req.sessionId !== undefined ? { metadata: { user_id: req.sessionId } } : {}),
        stream: true,
        ...effort,
      } as unknown as Anthropic.MessageCreateParamsStreaming;
      const started = Date.now();
      let message: AssembledMessage;
      try {
        const stream = await deps
          .client(req.model)
          .messages.create(params, { signal: opts.signal, ...betaHeaders(betas) });
        message = await assembleStream(stream, () => opts.onEvent?.());
      } catch (err) {
        if (opts.signal.aborted) throw err;
        const failure = classifyModelError(err);
        if (!failure.nonRetryable) throw failure;
        throw new ToolModelCallError(`API Error: ${failure.message}`);
      }
      const usage = {
        input_tokens: message.usage.input_tokens,
        output_tokens: message.usage.output_tokens,
        cache_creation_input_tokens: message.usage.cache_creation_input_tokens,
        cache_read_input_tokens: message.usage.cache_read_input_tokens,
      };
      const details = usageDetailsOf(message.usage);
      const spend: ToolModelSpend = {
        model: message.model || req.model,
        usage: { ...emptyUsage(), ...usage },
        webSearchRequests: details.webSearchRequests,
        thinkingTokens: details.thinkingTokens,
        costUsd: costOfUsage(usage, deps.priceFor(message.model || req.model), details.webSearchRequests),
        calls: 1,
        durationMs: Date.now() - started,
      };
      return { message, spend };
    },
  };
}
