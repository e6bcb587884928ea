import { BATCH_PRICE_FACTOR } from '../common/batch';
import { contextWindowOf } from '../common/model-limits';
import type { StoredSessionSummary } from '../common/session';
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { withImageSources } from './prompt-images';
import { ModelErrorType } from '../common/model';
import type { ContentBlock, TranscriptEntry } from '../common/transcript';
import { PROMPT_BLOCKS_KEY_PREFIX } from '../common/content-ref';
import { TRANSCRIPT_SCHEMA_VERSION } from '../common/transcript';
import type { RecordPromptInput } from '../common/turn';
import type { Usage, UsageDetails } from '../common/usage';
import { addUsage, emptyUsage, usageDetailsOf } from '../common/usage';
import type { ModelPrice } from '../common/usage';
import { addModelUsage, costOfUsage } from '../engine/cost';
import { isSidecarEntry } from '../store/sidecar';
import { agentOfTurnId } from '../common/ids';

/** True for a line a subagent wrote (its turn id names the agent): part of its sidechain. */
export function isSidechainEntry(e: TranscriptEntry): boolean {
  return agentOfTurnId(e.turnId) !== null;
}
import type { TranscriptStore } from '../store/transcript-store';
import { attemptUsageKey } from '../store/transcript-store';
import { lineTotals, toBilling } from './model/billing';

/**
 * Creates `recordTranscript`: writes lines first-writer-wins by uuid, durable before it returns.
 * @returns how many lines this call wrote (the others were stored already).
 */
export function createRecordTranscript(store: TranscriptStore): (entries: TranscriptEntry[]) => Promise<number> {
  return async (entries) => (await store.appendMany(entries)).filter((r) => r.written).length;
}

/**
 * Creates `recordPrompt`: reads the prompt the client stored (by its ref) and writes the turn's
 * prompt line, first-writer-wins by uuid. Only the ref crosses workflow history.
 * @throws ApplicationFailure `TranscriptError` (non-retryable) when the prompt is missing from the
 *   store or does not match its ref's hash.
 */
export function createRecordPrompt(
  store: TranscriptStore,
): (input: RecordPromptInput) => Promise<{ uuid: string; written: boolean }> {
  return async (input) => {
    const body = await store.getContent(input.sessionId, input.prompt.key);
    const sha256 = body ? createHash('sha256').update(body).digest('hex') : null;
    if (!body || sha256 !== input.prompt.sha256) {
      throw ApplicationFailure.create({
        type: ModelErrorType.Transcript,
        nonRetryable: true,
        message: body
          ? `the prompt stored under ${input.prompt.key} does not match its hash`
          : `the prompt ${input.prompt.key} is not in the store of session ${input.sessionId}`,
      });
    }
    // A prompt of content blocks (an image in stream-json input) is stored as their JSON; its
    // images are saved as files the model can name.
    const content = input.prompt.key.startsWith(PROMPT_BLOCKS_KEY_PREFIX)
      ? await withImageSources(input.sessionId, JSON.parse(body.toString('utf8')) as ContentBlock[], (m) =>
          Context.current().log.warn(m),
        )
      : body.toString('utf8');
    const { entry, written } = await store.append({
      v: TRANSCRIPT_SCHEMA_VERSION,
      type: 'user',
      uuid: input.uuid,
      parentUuid: input.parentUuid,
      sessionId: input.sessionId,
      timestamp: input.timestamp,
      message: { role: 'user', content },
      turnId: input.turnId,
      cwd: input.cwd,
      ...(input.delivered ? { isMeta: true, coordinatorMessage: true } : {}),
    });
    return { uuid: entry.uuid, written };
  };
}

/**
 * True for a line that started a turn of the session: a prompt a person typed, or a task
 * notification that started one (not a tool result, not a runner nudge, not a subagent's line).
 */
export function isPromptLine(e: TranscriptEntry): boolean {
  if (e.type !== 'user' || e.isMeta || !e.message || isSidechainEntry(e)) return false;
  const c = e.message.content;
  return typeof c === 'string' || !c.some((b) => b.type === 'tool_result');
}

/**
 * The leaf of a stored conversation: the last line (file order) that no other line names as
 * its parent and whose chain is whole. Parallel tool results may be written out of order, so
 * file order alone is wrong; and lines written ahead of the line they hang from (a compaction cut
 * short before its boundary was written) are not a conversation to continue. The lines of a turn
 * whose prompt a UserPromptSubmit hook blocked are left out.
 */
export function findLeaf(all: readonly TranscriptEntry[]): string | null {
  // A turn whose prompt a hook blocked left the conversation: its lines are not candidates, nor
  // parents (the conversation goes on from before its prompt).
  const dropped = new Set(all.filter((e) => e.dropsTurn && e.turnId).map((e) => e.turnId));
  const entries = dropped.size ? all.filter((e) => e.turnId === undefined || !dropped.has(e.turnId)) : all;
  const byUuid = new Map(entries.map((e) => [e.uuid, e]));
  const parents = new Set(entries.map((e) => e.parentUuid).filter((p): p is string => p !== null));
  const whole = (e: TranscriptEntry): boolean => {
    const seen = new Set<string>();
    for (let cur: TranscriptEntry | undefined = e; cur; cur = byUuid.get(cur.parentUuid ?? '')) {
      if (cur.parentUuid === null || seen.has(cur.uuid)) return cur.parentUuid === null;
      seen.add(cur.uuid);
      if (cur.type === 'system' && cur.subtype === 'compact_boundary') return true;
    }
    return false;
  };
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    // Sidecar lines (MCP config, hook outcomes, approvals) are beside the conversation, and a
    // subagent's lines are its own conversation (a sidechain), never the session's leaf.
    if (e && !parents.has(e.uuid) && whole(e) && !isSidecarEntry(e) && !isSidechainEntry(e)) return e.uuid;
  }
  return null;
}

/**
 * Creates `loadSession`: totals and leaf of a stored session, for a new or resumed session
 * workflow. Usage counts every attempt the API billed: the billing of each line (see
 * `model/billing.ts`), plus attempt usage no line reported (a call that never completed).
 */
export function createLoadSession(
  store: TranscriptStore,
  priceFor: (model: string) => ModelPrice | null,
): (sessionId: string) => Promise<StoredSessionSummary> {
  return async (sessionId) => {
    const entries = await store.load(sessionId);
    let usage = emptyUsage();
    let modelUsage: StoredSessionSummary['modelUsage'] = {};
    /** `rate`: the price factor ({@link BATCH_PRICE_FACTOR} for a Message Batch's response). */
    const add = (model: string, u: Usage, maxOutputTokens: number, details: UsageDetails = {}, rate = 1): void => {
      usage = addUsage(usage, u);
      const searches = details.webSearchRequests ?? 0;
      const cost = costOfUsage(u, priceFor(model), searches);
      modelUsage = addModelUsage(
        modelUsage,
        model,
        u,
        cost === null ? null : cost * rate,
        { contextWindow: contextWindowOf(model), maxOutputTokens },
        details,
      );
    };
    const listed = new Set<string>();
    for (const e of entries) {
      const max = e.maxTokens ?? 0;
      // Thinking tokens and web searches of a response, counted once (with its own model's usage).
      const details = e.type === 'assistant' ? usageDetailsOf(e.message?.usage) : undefined;
      if (e.billing) {
        for (const unit of e.billing.units) listed.add(unit);
        const own = e.message?.model;
        const rate = e.messageBatch ? BATCH_PRICE_FACTOR : 1;
        for (const [model, u] of Object.entries(e.billing.byModel))
          add(model, u, max, model === own ? details : {}, rate);
      } else if (e.type === 'assistant' && e.message?.usage) {
        add(e.message.model ?? 'unknown', lineTotals(e, priceFor).usage, max, details);
      }
      // Model calls a tool made (WebSearch, WebFetch) are on its result line.
      const spent = e.toolRun?.modelSpend;
      if (spent) {
        add(spent.model, spent.usage, 0, {
          webSearchRequests: spent.webSearchRequests,
          ...(spent.thinkingTokens !== undefined ? { thinkingTokens: spent.thinkingTokens } : {}),
        });
      }
    }
    const unreported = (await store.modelAttemptUsage(sessionId)).filter((r) => !listed.has(attemptUsageKey(r)));
    // Batch responses no line reports (another writer answered their call) are at batch rates.
    const batched = unreported.filter((r) => r.messageBatchId !== undefined);
    const standard = unreported.filter((r) => r.messageBatchId === undefined);
    for (const [model, u] of Object.entries(toBilling(standard).byModel)) add(model, u, 0);
    for (const [model, u] of Object.entries(toBilling(batched).byModel)) add(model, u, 0, {}, BATCH_PRICE_FACTOR);
    return {
      exists: entries.length > 0,
      leafUuid: findLeaf(entries),
      usage,
      modelUsage,
      turnCount: entries.filter(isPromptLine).length,
    };
  };
}
