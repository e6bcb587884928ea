import { entryToSdkMessages, resultTextOf } from '../../../src/client/sdk-message';
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

  test('entryToSdkMessages: a notice line is system/informational, with its notification when it has one', () => {
    const entry = {
      ...base,
      type: 'system',
      subtype: 'informational',
      uuid: 'n1',
      level: 'warning',
      content: 'A hook blocked the turn from ending 9 consecutive times',
      notification: { key: 'stop-hook-block-cap', text: 'A hook…', priority: 'high', color: 'warning' },
    } as TranscriptEntry;
    const [info, note] = entryToSdkMessages(entry);
    expect(info).toEqual({
      type: 'system',
      subtype: 'informational',
      content: 'A hook blocked the turn from ending 9 consecutive times',
      level: 'warning',
      uuid: 'n1',
      session_id: 's1',
    });
    expect(note).toMatchObject({
      type: 'system',
      subtype: 'notification',
      key: 'stop-hook-block-cap',
      priority: 'high',
    });
    const plain = { ...entry, notification: undefined } as TranscriptEntry;
    expect(entryToSdkMessages(plain)).toHaveLength(1);
  });

  test("entryToSdkMessages: hook context for the model is not streamed; a Stop hook's feedback is, notified the first time", () => {
    const meta = (hookEvent: string, extra: Record<string, unknown> = {}): TranscriptEntry =>
      ({
        ...base,
        type: 'user',
        uuid: `m-${hookEvent}`,
        isMeta: true,
        hookEvent,
        message: { role: 'user', content: [{ type: 'text', text: 'x' }] },
        ...extra,
      }) as TranscriptEntry;
    expect(entryToSdkMessages(meta('PostToolUse'))).toEqual([]);
    expect(entryToSdkMessages(meta('SessionStart'))).toEqual([]);
    expect(entryToSdkMessages(meta('UserPromptSubmit'))).toEqual([]);
    expect(
      entryToSdkMessages(meta('Stop')).map((m) => `${m.type}/${(m as { subtype?: string }).subtype ?? ''}`),
    ).toEqual(['user/', 'system/notification']);
    expect(entryToSdkMessages(meta('Stop', { stopHookActive: true }))).toHaveLength(1);
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

describe('result text', () => {
  const lines: Record<string, TranscriptEntry> = {
    a1: {
      ...base,
      type: 'assistant',
      uuid: 'a1',
      message: { role: 'assistant', content: [{ type: 'text', text: 'The answer.' }] },
    } as TranscriptEntry,
    n1: {
      ...base,
      type: 'system',
      subtype: 'informational',
      uuid: 'n1',
      content: 'A hook said no.',
    } as TranscriptEntry,
  };
  const read = (uuid: string): Promise<TranscriptEntry | undefined> => Promise.resolve(lines[uuid]);
  test("resultTextOf: the last answer's text, a hook notice's content, or empty when the outcome says so", async () => {
    expect(await resultTextOf({ lastAssistantUuid: 'a1' }, read)).toBe('The answer.');
    expect(await resultTextOf({ lastAssistantUuid: 'a1', resultTextUuid: 'n1' }, read)).toBe('A hook said no.');
    expect(await resultTextOf({ lastAssistantUuid: 'a1', resultTextUuid: null }, read)).toBe('');
    expect(await resultTextOf({ lastAssistantUuid: null }, read)).toBe('');
  });
});
