import type { SDKMessage } from '../../src/common/sdk-messages';

/** The text of the tool_result of `toolUseId` among the messages. */
export function toolResultText(messages: readonly SDKMessage[], toolUseId: string): string {
  for (const m of messages) {
    if (m.type !== 'user' || !Array.isArray(m.message.content)) continue;
    for (const b of m.message.content as unknown as Array<Record<string, unknown>>) {
      if (b['type'] !== 'tool_result' || b['tool_use_id'] !== toolUseId) continue;
      const c = b['content'];
      return typeof c === 'string' ? c : (c as Array<{ text?: string }>).map((x) => x.text ?? '').join('');
    }
  }
  throw new Error(`no tool_result for ${toolUseId}`);
}
