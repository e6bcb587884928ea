import { entryToSdkMessages } from '../../../src/client/sdk-message';
import type { TranscriptEntry } from '../../../src/common/transcript';

const base = { v: 1, parentUuid: null, sessionId: 's1', timestamp: '2026-01-01T00:00:00.000Z' };

describe('SDK messages from transcript lines', () => {
  test('entryToSdkMessages: a response becomes one assistant message per content block, like Claude Code', () => {
    const entry: TranscriptEntry = {
      ...base,
      type: 'assistant',
      uuid: 'a1',
      requestId: 'req_1',
      message: {
        role: 'assistant',
        id: 'msg_1',
        content: [
          { type: 'text', text: 'Let me read.' },
          { type: 'tool_use', id: 't1', name: 'Read', input: {} },
        ],
        stop_reason: 'tool_use',
      } as unknown as TranscriptEntry['message'],
    };
    const msgs = entryToSdkMessages(entry);
    expect(msgs).toHaveLength(2);
    expect(msgs.map((m) => (m.type === 'assistant' ? m.message['content'] : null))).toEqual([
      [{ type: 'text', text: 'Let me read.' }],
      [{ type: 'tool_use', id: 't1', name: 'Read', input: {} }],
    ]);
    for (const m of msgs) {
      expect(m).toMatchObject({
        type: 'assistant',
        session_id: 's1',
        timestamp: base.timestamp,
        request_id: 'req_1',
        message: { id: 'msg_1', stop_reason: 'tool_use', context_management: null },
      });
    }
    // The last block keeps the line's uuid; the others get stable derived ones.
    expect(msgs[1]?.uuid).toBe('a1');
    expect(msgs[0]?.uuid).not.toBe('a1');
    expect(entryToSdkMessages(entry)[0]?.uuid).toBe(msgs[0]?.uuid);
  });

  test('entryToSdkMessages: a denied tool call is announced by system/permission_denied before its result', () => {
    const entry = {
      ...base,
      type: 'user',
      uuid: 'u1',
      message: {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't9', content: 'Permission to use Bash has been denied', is_error: true },
        ],
      },
      toolUseResult: 'Error: Permission to use Bash has been denied',
      toolRun: { tool: 'Bash', outcome: 'denied', denyReason: 'rule' },
    } as TranscriptEntry;
    const [denied, result] = entryToSdkMessages(entry);
    expect(denied).toMatchObject({
      type: 'system',
      subtype: 'permission_denied',
      session_id: 's1',
      tool_name: 'Bash',
      tool_use_id: 't9',
      decision_reason_type: 'rule',
      message: 'Permission to use Bash has been denied',
    });
    expect(result).toMatchObject({
      type: 'user',
      uuid: 'u1',
      tool_use_result: 'Error: Permission to use Bash has been denied',
    });
  });

  test('entryToSdkMessages: other tool results are one user message', () => {
    const entry = {
      ...base,
      type: 'user',
      uuid: 'u2',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
      toolRun: { tool: 'Read', outcome: 'ok' },
    } as TranscriptEntry;
    expect(entryToSdkMessages(entry).map((m) => m.type)).toEqual(['user']);
  });
});
