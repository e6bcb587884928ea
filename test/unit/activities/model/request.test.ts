import { buildMessages, MISSING_RESULT_TEXT, ORPHAN_RESULTS_TEXT } from '../../../../src/activities/model/request';
import type { TranscriptEntry } from '../../../../src/common/transcript';

let n = 0;
function line(type: 'user' | 'assistant', content: unknown): TranscriptEntry {
  n++;
  return {
    type,
    uuid: `u${n}`,
    parentUuid: null,
    sessionId: 's',
    timestamp: '',
    message: { role: type, content } as never,
  };
}

describe('request builder', () => {
  test('buildMessages: consecutive tool_result lines merge into one user message', () => {
    const msgs = buildMessages([
      line('user', 'do it'),
      line('assistant', [
        { type: 'tool_use', id: 't1', name: 'Read', input: {} },
        { type: 'tool_use', id: 't2', name: 'Glob', input: {} },
      ]),
      line('user', [{ type: 'tool_result', tool_use_id: 't1', content: 'a' }]),
      line('user', [{ type: 'tool_result', tool_use_id: 't2', content: 'b' }]),
    ]);
    expect(msgs.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect((msgs[2]?.content as unknown[]).length).toBe(2);
  });

  test('buildMessages: the last block carries the cache breakpoint, and only it', () => {
    const msgs = buildMessages([
      line('user', 'hi'),
      line('assistant', [{ type: 'text', text: 'yo' }]),
      line('user', 'again'),
    ]);
    const all = msgs.flatMap((m) => m.content as unknown as Array<Record<string, unknown>>);
    expect(all.filter((b) => b['cache_control'])).toHaveLength(1);
    expect(all.at(-1)?.['cache_control']).toEqual({ type: 'ephemeral' });
  });

  test('buildMessages: a tool_use without a result gets an is_error result, so the API never answers 400', () => {
    const msgs = buildMessages([
      line('user', 'go'),
      line('assistant', [{ type: 'tool_use', id: 'lost', name: 'Bash', input: {} }]),
    ]);
    expect(msgs).toHaveLength(3);
    expect((msgs[2]?.content as unknown as Array<Record<string, unknown>>)[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'lost',
      is_error: true,
      content: MISSING_RESULT_TEXT,
    });
  });

  test('buildMessages: a tool_result whose tool_use is not in the previous assistant message is left out', () => {
    // The shape a forked transcript had: the stored tool_use (kept) and a result for another id.
    const msgs = buildMessages([
      line('user', 'go'),
      line('assistant', [{ type: 'tool_use', id: 'stored', name: 'Bash', input: {} }]),
      line('user', [{ type: 'tool_result', tool_use_id: 'other', content: 'x' }]),
      line('assistant', [{ type: 'text', text: 'next' }]),
      line('user', [{ type: 'tool_result', tool_use_id: 'nowhere', content: 'y' }]),
    ]);
    const blocks = (i: number) => msgs[i]?.content as unknown as Array<Record<string, unknown>>;
    expect(blocks(2).map((b) => [b['type'], b['tool_use_id']])).toEqual([['tool_result', 'stored']]);
    expect(blocks(4)).toEqual([{ type: 'text', text: ORPHAN_RESULTS_TEXT, cache_control: { type: 'ephemeral' } }]);
  });

  test('buildMessages: stored-only fields are not sent back to the API', () => {
    const msgs = buildMessages([line('user', 'q'), line('assistant', [{ type: 'text', text: 'a', citations: null }])]);
    expect(msgs[1]?.content).toEqual([{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }]);
  });
});
