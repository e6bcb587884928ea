/**
 * `readTaskCall`: the input of a `SendMessage`, `TaskStop` or `ListAgents` call, read from the
 * stored assistant line and reduced to what the workflow needs (ids; a message goes to the store
 * and travels as a ref). Input Claude Code 2.1.328 refuses gets its error result written here.
 */
import { z } from 'zod';
import type { ContentRef } from '../../common/content-ref';
import type { RunToolSummary, ToolPermission } from '../../common/tools';
import type { ContentBlock } from '../../common/transcript';
import { storePrompt } from '../../store/prompt-content';
import type { TranscriptStore } from '../../store/transcript-store';
import { validationErrorDetail, validationErrorText } from '../tools/execute';
import { coordinatorMessage } from './texts';
import { writeDenialIfDenied, writeToolResult } from './tool-result-line';

/** Input of `readTaskCall`. */
export interface ReadTaskCallInput {
  sessionId: string;
  assistantUuid: string;
  toolUseId: string;
  toolName: 'SendMessage' | 'TaskStop' | 'ListAgents';
  /** Where an error result goes. */
  resultUuid: string;
  parentUuid: string;
  /** The call's permission as the workflow decided it: a denial is written instead. */
  permission?: ToolPermission;
}

/** What the call asks, or its error result (written). */
export type TaskCall =
  | { kind: 'send'; to: string; messageRef: ContentRef }
  | { kind: 'stop'; taskId: string | null }
  | { kind: 'list' }
  | { kind: 'invalid'; result: RunToolSummary };

const SendMessageInput = z.strictObject({
  to: z.string(),
  summary: z.string().optional(),
  message: z.string().default(''),
  notify_when_idle: z.boolean().optional(),
});
const TaskStopInput = z.strictObject({ task_id: z.string().optional(), shell_id: z.string().optional() });
const ListAgentsInput = z.strictObject({
  channel: z.string().optional(),
  q: z.string().optional(),
  cursor: z.string().optional(),
});

/** Creates `readTaskCall`. */
export function createReadTaskCall(store: TranscriptStore): (input: ReadTaskCallInput) => Promise<TaskCall> {
  return async (i) => {
    const line = await store.get(i.sessionId, i.assistantUuid);
    const content = (Array.isArray(line?.message?.content) ? line.message.content : []) as ContentBlock[];
    const raw = content.find((b) => b.type === 'tool_use' && b['id'] === i.toolUseId)?.['input'] ?? {};
    const schema =
      i.toolName === 'SendMessage' ? SendMessageInput : i.toolName === 'TaskStop' ? TaskStopInput : ListAgentsInput;
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const result = await writeToolResult(store, {
        ...i,
        content: validationErrorText(i.toolName, parsed.error.issues, raw),
        isError: true,
        structured: validationErrorDetail(parsed.error.issues),
        outcome: 'invalid',
      });
      return { kind: 'invalid', result };
    }
    const { permission, ...call } = i;
    const denied = await writeDenialIfDenied(store, call, permission, raw);
    if (denied) return { kind: 'invalid', result: denied };
    if (i.toolName === 'ListAgents') return { kind: 'list' };
    if (i.toolName === 'TaskStop') {
      const d = parsed.data as z.infer<typeof TaskStopInput>;
      return { kind: 'stop', taskId: d.task_id ?? d.shell_id ?? null };
    }
    const d = parsed.data as z.infer<typeof SendMessageInput>;
    return { kind: 'send', to: d.to, messageRef: await storePrompt(store, i.sessionId, coordinatorMessage(d.message)) };
  };
}
