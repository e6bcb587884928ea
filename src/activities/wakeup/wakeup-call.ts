/**
 * The activities of a `ScheduleWakeup` call. The workflow answers the call (the timer is the
 * session's); these only read its input from the stored tool_use (storing its prompt as
 * content, which never enters workflow history) and write its tool_result.
 */
import type { RunToolSummary } from '../../common/tools';
import type { WakeupCall, WakeupCallRef, WakeupOutcome } from '../../common/wakeup';
import { storePrompt } from '../../store/prompt-content';
import { SCHEDULED_PROMPT_MAX_CHARS, scheduledPromptTooLongText } from '../../common/scheduled-prompt';
import type { TranscriptStore } from '../../store/transcript-store';
import { writeDenialIfDenied, writeToolResult } from '../agents/tool-result-line';
import { WAKEUP_PROMPT_REQUIRED, wakeupScheduledText, wakeupStoppedText } from './texts';

export type { WakeupCall, WakeupCallRef, WakeupOutcome } from '../../common/wakeup';

/** Characters of the `reason` kept (it is shown to people, and travels in history). */
const REASON_CHARS = 200;

/** Creates `readWakeupCall`. */
export function createReadWakeupCall(store: TranscriptStore): (i: WakeupCallRef) => Promise<WakeupCall> {
  return async (i) => {
    const line = await store.get(i.sessionId, i.assistantUuid);
    const content = Array.isArray(line?.message?.content) ? line.message.content : [];
    const use = content.find((b) => b.type === 'tool_use' && (b as { id?: string }).id === i.toolUseId) as
      { input?: Record<string, unknown> } | undefined;
    const input = use?.input ?? {};
    const { permission, ...call } = i;
    const denied = await writeDenialIfDenied(store, call, permission, input);
    if (denied) return { kind: 'invalid', result: denied };
    if (input['stop'] === true) return { kind: 'stop' };
    const prompt = input['prompt'];
    const error =
      typeof prompt !== 'string' || prompt.length === 0
        ? WAKEUP_PROMPT_REQUIRED
        : prompt.length > SCHEDULED_PROMPT_MAX_CHARS
          ? scheduledPromptTooLongText(prompt.length)
          : null;
    if (typeof prompt !== 'string' || error !== null) {
      const result = await writeToolResult(store, {
        ...i,
        content: error ?? WAKEUP_PROMPT_REQUIRED,
        isError: true,
        structured: `Error: ${error ?? WAKEUP_PROMPT_REQUIRED}`,
        outcome: 'error',
      });
      return { kind: 'invalid', result };
    }
    const d = input['delaySeconds'];
    return {
      kind: 'schedule',
      delaySeconds: typeof d === 'number' ? d : null,
      promptRef: await storePrompt(store, i.sessionId, prompt),
      reason: typeof input['reason'] === 'string' ? input['reason'].slice(0, REASON_CHARS) : '',
    };
  };
}

/** Creates `recordWakeupResult`: the call's tool_result, with 2.1.328's `tool_use_result`. */
export function createRecordWakeupResult(
  store: TranscriptStore,
): (i: WakeupCallRef & { outcome: WakeupOutcome }) => Promise<RunToolSummary> {
  return async ({ outcome, ...ref }) => {
    if (outcome.kind === 'stopped') {
      return writeToolResult(store, {
        ...ref,
        content: wakeupStoppedText(outcome.cancelled),
        isError: false,
        structured: {
          scheduledFor: outcome.nowMs,
          clampedDelaySeconds: 0,
          wasClamped: false,
          stopped: true,
          cancelledWakeups: outcome.cancelled,
        },
        outcome: 'ok',
      });
    }
    return writeToolResult(store, {
      ...ref,
      content: wakeupScheduledText(
        outcome.dueAtMs,
        outcome.nowMs,
        outcome.wasClamped ? outcome.clampedDelaySeconds : undefined,
      ),
      isError: false,
      structured: {
        scheduledFor: outcome.dueAtMs,
        clampedDelaySeconds: outcome.clampedDelaySeconds,
        wasClamped: outcome.wasClamped,
      },
      outcome: 'ok',
    });
  };
}
