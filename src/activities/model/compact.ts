import type Anthropic from '@anthropic-ai/sdk';
import { Context } from '@temporalio/activity';
import type { CompactInput, CompactSummary } from '../../common/model';
import type { TranscriptEntry } from '../../common/transcript';
import { TRANSCRIPT_SCHEMA_VERSION } from '../../common/transcript';
import { emptyUsage } from '../../common/usage';
import type { Usage } from '../../common/usage';
import type { TranscriptStore } from '../../store/transcript-store';
import { storageFailure } from '../store-errors';
import { billedTotals, toBilling } from './billing';
import { uuidV5 } from '../../store/uuid';
import { shellCwdOfChain } from '../shell-cwd';
import type { ModelDeps } from './call-model';
import { heartbeatEvery } from '../heartbeats';

/** First words of the compaction request (the local model server's scenarios match on them). */
export const COMPACT_INSTRUCTION =
  'Summarize the conversation below so that the work can continue from the summary alone.';

/** Most characters of rendered conversation sent to the summarizing call. */
export const MAX_COMPACT_INPUT_CHARS = 200_000;
/** Most characters of a summary built without the model. */
export const MAX_FALLBACK_SUMMARY_CHARS = 20_000;
/** Tokens of recent messages kept verbatim after the summary when the caller gives no figure. */
export const DEFAULT_PRESERVE_TOKENS = 20_000;

/** Opening of the summary line (after Claude Code's). */
export const SUMMARY_PREAMBLE =
  'This session is being continued from a previous conversation that ran out of context. ' +
  'The summary below covers the earlier portion of the conversation.';

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

/** Tokens of a line's message, estimated as characters / 4 (as the local model server counts). */
export function estimateTokens(e: TranscriptEntry): number {
  return e.message ? Math.ceil(JSON.stringify(e.message).length / 4) : 0;
}

/**
 * Size of the context before compaction, in tokens: what the last response on the chain was
 * given plus what it wrote (the seeds' `finalContextTokensFromLastResponse`); an estimate from
 * the text when no response on the chain reports usage.
 */
export function contextTokens(chain: readonly TranscriptEntry[]): number {
  for (let i = chain.length - 1; i >= 0; i--) {
    const e = chain[i];
    const u = (e?.type === 'assistant' ? (e.message as Record<string, unknown> | undefined)?.['usage'] : undefined) as
      Usage | undefined;
    if (!u) continue;
    const after = chain.slice(i + 1).reduce((n, l) => n + estimateTokens(l), 0);
    return u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens + u.output_tokens + after;
  }
  return chain.reduce((n, e) => n + estimateTokens(e), 0);
}

/**
 * Where the preserved segment starts: the earliest assistant line from which the rest of the
 * chain fits in `budget` tokens (an assistant line, so that every tool_result kept follows its
 * tool_use). The segment never takes the whole chain: something must be summarized.
 * @returns the index in `chain`, or -1 when nothing is kept
 */
export function preservedStart(chain: readonly TranscriptEntry[], budget: number): number {
  let tokens = 0;
  let start = -1;
  for (let i = chain.length - 1; i > 0; i--) {
    const e = chain[i];
    if (!e) continue;
    tokens += estimateTokens(e);
    if (tokens > budget) break;
    if (e.type === 'assistant') start = i;
  }
  return start;
}

/** Uuid of the copy, after a compaction, of a preserved line (derived: a retry writes the same copy). */
export function preservedCopyUuid(boundaryUuid: string, originalUuid: string): string {
  return uuidV5(`${boundaryUuid}/preserved/${originalUuid}`);
}

/**
 * The text of the summary line: the summary, and a note that the most recent messages follow
 * verbatim when some were kept.
 */
export function summaryText(summary: string, preserved: number): string {
  const kept = preserved > 0 ? `\n\nThe ${preserved} most recent messages follow this summary verbatim.` : '';
  return (
    `${SUMMARY_PREAMBLE}\n\nSummary:\n${summary}${kept}\n\n` +
    'Continue the conversation from where it left off without asking the user any further questions. ' +
    'Continue with the last task that you were asked to work on.'
  );
}

/** The user's instructions of a `/compact <instructions>` prompt line, if any. */
async function instructionsOf(store: TranscriptStore, input: CompactInput): Promise<string | undefined> {
  if (input.instructionsUuid === undefined) return undefined;
  const line = await store.get(input.sessionId, input.instructionsUuid);
  const c = line?.message?.content;
  const text = typeof c === 'string' ? c : '';
  const rest = text.replace(/^\s*\/compact\b/, '').trim();
  return rest === '' ? undefined : rest;
}

/** The summary an earlier attempt wrote, or a new one (one model call, or built without the model). */
async function summarize(
  deps: ModelDeps,
  input: CompactInput,
  summarized: readonly TranscriptEntry[],
): Promise<{ text: string; usage: Usage; model: string; fallback: boolean; stored: boolean }> {
  const earlier = await deps.store.get(input.sessionId, input.summaryUuid);
  const earlierText = earlier?.compactSummary;
  if (typeof earlierText === 'string') {
    return { text: earlierText, usage: emptyUsage(), model: input.model, fallback: false, stored: true };
  }
  const instructions = await instructionsOf(deps.store, input);
  // Heartbeats while the model writes the summary: a dead worker is noticed within the heartbeat timeout.
  const ctx = activityContext();
  const beat = ctx ? heartbeatEvery(1000, () => ctx.heartbeat()) : undefined;
  try {
    const resp = await deps.anthropic(input.model).messages.create(
      {
        model: input.model,
        max_tokens: 4096,
        messages: [
          {
            role: 'user',
            content:
              `${COMPACT_INSTRUCTION} Keep: the task, decisions made, files changed and why, what is left to do, and the latest tool results.` +
              `${instructions ? `\n\nAdditional instructions:\n${instructions}` : ''}` +
              `\n\n${renderConversation(summarized, MAX_COMPACT_INPUT_CHARS)}`,
          },
        ],
        metadata: { user_id: `${input.sessionId}:compact` },
      },
      ctx ? { signal: ctx.cancellationSignal } : {},
    );
    const text = resp.content
      .filter((b): b is Anthropic.TextBlock => b.type === 'text')
      .map((b) => b.text)
      .join('\n');
    const usage: Usage = {
      input_tokens: resp.usage.input_tokens,
      output_tokens: resp.usage.output_tokens,
      cache_creation_input_tokens: resp.usage.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: resp.usage.cache_read_input_tokens ?? 0,
    };
    // Billed, whatever happens next: recorded before anything else (the summary line lists it).
    await deps.store.putModelAttemptUsage(input.sessionId, {
      callUuid: input.summaryUuid,
      attempt: ctx?.info.attempt ?? 1,
      phase: 'end',
      requestId: resp._request_id ?? null,
      messageId: resp.id,
      model: resp.model,
      usage,
    });
    if (!text.trim()) throw new Error('empty summary');
    return { text, usage, model: resp.model, fallback: false, stored: false };
  } catch (err) {
    if (ctx?.cancellationSignal.aborted || storageFailure(err)) throw err;
    const text = renderConversation(summarized, MAX_FALLBACK_SUMMARY_CHARS);
    return { text, usage: emptyUsage(), model: input.model, fallback: true, stored: false };
  } finally {
    beat?.stop();
  }
}

/** The activity's context, or undefined when called outside an activity (unit tests). */
function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/** What a stored boundary says of its compaction (a retried activity returns it). */
function fromBoundary(
  boundary: TranscriptEntry,
  summaryLine: TranscriptEntry | undefined,
  input: CompactInput,
  deps: ModelDeps,
): CompactSummary {
  const seg = boundary.preservedSegment;
  return {
    boundaryUuid: input.boundaryUuid,
    summaryUuid: input.summaryUuid,
    leafUuid: seg?.tailUuid ?? input.summaryUuid,
    preTokens: boundary.compactMetadata?.pre_tokens ?? 0,
    preserved: seg?.count ?? 0,
    fallback: boundary.compactFallback === true,
    ...billedOf(summaryLine, input.model, deps),
  };
}

/**
 * What a compaction reports as spent: the billing its summary line lists (every attempt of the
 * summarizing call the API billed, reported by whichever attempt's result the workflow takes).
 */
function billedOf(
  summaryLine: TranscriptEntry | undefined,
  model: string,
  deps: ModelDeps,
): Pick<CompactSummary, 'usage' | 'costUsd' | 'model'> {
  if (!summaryLine?.billing) return { usage: emptyUsage(), costUsd: 0, model };
  const totals = billedTotals(summaryLine.billing, deps.priceFor);
  return {
    usage: totals.usage,
    costUsd: totals.attempts > 0 ? totals.costUsd : 0,
    model: Object.keys(summaryLine.billing.byModel)[0] ?? model,
  };
}

/**
 * Creates `compactContext`: summarizes the conversation ending at `leafUuid` and starts a new
 * chain after it: a summary line, then the most recent messages copied verbatim (the preserved
 * segment, at most `preserveTokens`), then, written last, the `compact_boundary` line that
 * refers to all of them (the seeds' rule: every line a boundary refers to is durable before the
 * boundary, so a crash mid-way never leaves a boundary pointing at lines that do not exist).
 * Later calls send only what follows the boundary; the new leaf is the last copy (or the summary).
 *
 * Idempotent: a stored boundary means the compaction is done (its outcome is returned); a stored
 * summary without a boundary is reused, so the summarizing model call is not made twice.
 */
export function createCompactContext(deps: ModelDeps): (input: CompactInput) => Promise<CompactSummary> {
  return async function compactContext(input: CompactInput): Promise<CompactSummary> {
    const done = await deps.store.get(input.sessionId, input.boundaryUuid);
    if (done) return fromBoundary(done, await deps.store.get(input.sessionId, input.summaryUuid), input, deps);
    const chain = await deps.store.chain(input.sessionId, input.leafUuid);
    const preTokens = contextTokens(chain);
    const start = preservedStart(chain, input.preserveTokens ?? DEFAULT_PRESERVE_TOKENS);
    const kept = start >= 0 ? chain.slice(start) : [];
    const summarized = start >= 0 ? chain.slice(0, start) : chain;
    const summary = await summarize(deps, input, summarized);
    const shellCwd = await shellCwdOfChain(deps.store, input.sessionId, input.leafUuid).catch(() => undefined);

    const now = new Date().toISOString();
    // The session's context (memory files, git status, environment) is before the boundary:
    // the summary line carries it on, so every later call still has it.
    const context = sessionContextOf(chain);
    const common = { v: TRANSCRIPT_SCHEMA_VERSION, sessionId: input.sessionId, timestamp: now, turnId: input.turnId };
    // The summarizing call's billed attempts (this one's and any earlier one's).
    const billing = toBilling(await deps.store.modelAttemptUsage(input.sessionId, input.summaryUuid));
    const summaryLine: TranscriptEntry = {
      ...common,
      type: 'user',
      uuid: input.summaryUuid,
      parentUuid: input.boundaryUuid,
      message: { role: 'user', content: summaryText(summary.text, kept.length) },
      isMeta: true,
      isCompactSummary: true,
      compactSummary: summary.text,
      ...(context.length ? { attachments: context } : {}),
      billing,
    };
    let parent = input.summaryUuid;
    const copies: TranscriptEntry[] = kept.map((line) => {
      const uuid = preservedCopyUuid(input.boundaryUuid, line.uuid);
      const copy: TranscriptEntry = { ...line, uuid, parentUuid: parent, preservedFrom: line.uuid };
      parent = uuid;
      return copy;
    });
    const tailUuid = copies[copies.length - 1]?.uuid;
    const boundary: TranscriptEntry = {
      ...common,
      type: 'system',
      subtype: 'compact_boundary',
      uuid: input.boundaryUuid,
      parentUuid: input.leafUuid,
      compactMetadata: { trigger: input.trigger, pre_tokens: preTokens },
      summaryUuid: input.summaryUuid,
      ...(tailUuid !== undefined
        ? { preservedSegment: { headUuid: copies[0]?.uuid, tailUuid, count: copies.length } }
        : {}),
      ...(shellCwd !== undefined ? { shellCwd } : {}),
      ...(summary.fallback ? { compactFallback: true } : {}),
    };
    // The summary first on its own (a retry after a crash reuses it instead of calling the model
    // again), then the copies, then the boundary, which commits the compaction.
    // First writer wins: the summary line the store holds is the one whose billing is reported.
    const storedSummary = summary.stored
      ? await deps.store.get(input.sessionId, input.summaryUuid)
      : (await deps.store.append(summaryLine)).entry;
    if (copies.length) await deps.store.appendMany(copies);
    await deps.store.append(boundary);
    return {
      boundaryUuid: input.boundaryUuid,
      summaryUuid: input.summaryUuid,
      leafUuid: tailUuid ?? input.summaryUuid,
      preTokens,
      preserved: copies.length,
      fallback: summary.fallback,
      ...billedOf(storedSummary, summary.model, deps),
    };
  };
}
