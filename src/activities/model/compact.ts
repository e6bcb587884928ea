import type Anthropic from '@anthropic-ai/sdk';
import type { CompactInput, CompactSummary } from '../../common/model';
import type { TranscriptEntry } from '../../common/transcript';
import { TRANSCRIPT_SCHEMA_VERSION } from '../../common/transcript';
import { storageFailure } from '../store-errors';
import { lineTotals, toBilling } from './billing';
import type { ModelDeps } from './call-model';
import { activityAttemptContext } from './call-model';

/** First words of the compaction request (the local model server's scenarios match on them). */
export const COMPACT_INSTRUCTION =
  'Summarize the conversation below so that the work can continue from the summary alone.';

/** Most characters of rendered conversation sent to the summarizing call. */
export const MAX_COMPACT_INPUT_CHARS = 200_000;
/** Most characters of a summary built without the model. */
export const MAX_FALLBACK_SUMMARY_CHARS = 20_000;

function renderBlock(b: Record<string, unknown>): string {
  switch (b['type']) {
    case 'text':
      return String(b['text'] ?? '');
    case 'tool_use':
      return `[tool call ${String(b['name'])}: ${JSON.stringify(b['input'] ?? {}).slice(0, 2000)}]`;
    case 'tool_result': {
      const c = b['content'];
      const text = typeof c === 'string' ? c : JSON.stringify(c ?? '');
      return `[tool result${b['is_error'] ? ' (error)' : ''}: ${text.slice(0, 2000)}]`;
    }
    default:
      return `[${String(b['type'])}]`;
  }
}

/** Renders a chain as plain text, keeping the first prompt and as much of the end as fits. */
export function renderConversation(chain: readonly TranscriptEntry[], maxChars: number): string {
  const parts = chain
    .filter((e) => e.message)
    .map((e) => {
      const c = e.message?.content;
      const text =
        typeof c === 'string' ? c : (c ?? []).map((b) => renderBlock(b as Record<string, unknown>)).join('\n');
      return `${e.message?.role === 'assistant' ? 'Assistant' : 'User'}: ${text}`;
    });
  const first = parts[0] ?? '';
  const tail: string[] = [];
  let size = first.length;
  for (let i = parts.length - 1; i > 0; i--) {
    const p = parts[i] ?? '';
    if (size + p.length > maxChars) {
      tail.unshift('[… earlier messages omitted …]');
      break;
    }
    tail.unshift(p);
    size += p.length;
  }
  return [first.slice(0, maxChars), ...tail].join('\n\n');
}

/** The session-level context attachments of a chain (the latest line that has them). */
export function sessionContextOf(chain: readonly TranscriptEntry[]): NonNullable<TranscriptEntry['attachments']> {
  for (let i = chain.length - 1; i >= 0; i--) {
    const kept = (chain[i]?.attachments ?? []).filter((a) => a.type !== 'nested_memory');
    if (kept.length) return kept;
  }
  return [];
}

/**
 * Creates `compactContext`: summarizes the conversation ending at `leafUuid` with one
 * (non-streaming) model call, or without the model when that call fails, and writes a
 * `compact_boundary` line plus a user line holding the summary. Later calls send only what
 * follows the boundary. Idempotent by the two uuids.
 */
export function createCompactContext(deps: ModelDeps): (input: CompactInput) => Promise<CompactSummary> {
  return async function compactContext(input: CompactInput): Promise<CompactSummary> {
    const chain = await deps.store.chain(input.sessionId, input.leafUuid);
    const preTokens = Math.ceil(JSON.stringify(chain.map((e) => e.message)).length / 4);
    const existing = await deps.store.get(input.sessionId, input.summaryUuid);
    if (existing) return summaryOf(existing, input, preTokens, deps);
    const actx = (deps.attemptContext ?? activityAttemptContext)();
    let summary: string;
    let fallback = false;
    try {
      const resp = await deps.anthropic().messages.create(
        {
          model: input.model,
          max_tokens: 4096,
          messages: [
            {
              role: 'user',
              content: `${COMPACT_INSTRUCTION} Keep: the task, decisions made, files changed and why, what is left to do, and the latest tool results.\n\n${renderConversation(chain, MAX_COMPACT_INPUT_CHARS)}`,
            },
          ],
          metadata: { user_id: `${input.sessionId}:compact` },
        },
        { signal: actx.signal },
      );
      // Billed from here on, whatever happens next: record it before anything else.
      await deps.store.putModelAttemptUsage(input.sessionId, {
        callUuid: input.summaryUuid,
        attempt: actx.attempt,
        phase: 'end',
        requestId: resp._request_id ?? null,
        messageId: resp.id,
        model: resp.model,
        usage: {
          input_tokens: resp.usage.input_tokens,
          output_tokens: resp.usage.output_tokens,
          cache_creation_input_tokens: resp.usage.cache_creation_input_tokens ?? 0,
          cache_read_input_tokens: resp.usage.cache_read_input_tokens ?? 0,
        },
      });
      summary = resp.content
        .filter((b): b is Anthropic.TextBlock => b.type === 'text')
        .map((b) => b.text)
        .join('\n');
      if (!summary.trim()) throw new Error('empty summary');
    } catch (err) {
      if (storageFailure(err)) throw err;
      fallback = true;
      summary = renderConversation(chain, MAX_FALLBACK_SUMMARY_CHARS);
    }
    const billing = toBilling(await deps.store.modelAttemptUsage(input.sessionId, input.summaryUuid));
    const now = new Date().toISOString();
    // The session's context (memory files, git status, environment) is before the boundary:
    // the summary line carries it on, so every later call still has it.
    const context = sessionContextOf(chain);
    const boundary: TranscriptEntry = {
      v: TRANSCRIPT_SCHEMA_VERSION,
      type: 'system',
      subtype: 'compact_boundary',
      uuid: input.boundaryUuid,
      parentUuid: input.leafUuid,
      sessionId: input.sessionId,
      timestamp: now,
      compactMetadata: { trigger: input.trigger, pre_tokens: preTokens },
      turnId: input.turnId,
    };
    const summaryLine: TranscriptEntry = {
      v: TRANSCRIPT_SCHEMA_VERSION,
      type: 'user',
      uuid: input.summaryUuid,
      parentUuid: input.boundaryUuid,
      sessionId: input.sessionId,
      timestamp: now,
      message: {
        role: 'user',
        content:
          'This session continues a conversation that ran out of context. Summary of it so far:\n\n' +
          `${summary}\n\nContinue the task from where it stopped.`,
      },
      turnId: input.turnId,
      isMeta: true,
      ...(fallback ? { compactFallback: true } : {}),
      billing,
      ...(context.length ? { attachments: context } : {}),
    };
    // First writer wins: another attempt's lines may be stored already; report those.
    const [, stored] = await deps.store.appendMany([boundary, summaryLine]);
    return summaryOf(stored?.entry ?? summaryLine, input, preTokens, deps);
  };
}

/** The summary of a stored compaction: its billing (nothing when it was built without the model). */
function summaryOf(line: TranscriptEntry, input: CompactInput, preTokens: number, deps: ModelDeps): CompactSummary {
  const billed = lineTotals(line, deps.priceFor);
  const models = Object.keys(line.billing?.byModel ?? {});
  return {
    boundaryUuid: input.boundaryUuid,
    summaryUuid: input.summaryUuid,
    preTokens,
    fallback: line.compactFallback === true,
    usage: billed.usage,
    costUsd: billed.attempts > 0 ? billed.costUsd : 0,
    model: models[0] ?? input.model,
  };
}
