import { findLeaf, isPromptLine } from '../../../src/activities/transcript';
import type { TranscriptEntry } from '../../../src/common/transcript';

const e = (uuid: string, parentUuid: string | null, extra: Partial<TranscriptEntry> = {}): TranscriptEntry => ({
  type: 'user',
  uuid,
  parentUuid,
  sessionId: 's',
  timestamp: '',
  ...extra,
});

describe('transcript activities', () => {
  test('findLeaf: parallel tool results written out of order still give the chain leaf', () => {
    // chain a → b → r1 → r2, but r2 was written before r1
    expect(findLeaf([e('a', null), e('b', 'a'), e('r2', 'r1'), e('r1', 'b')])).toBe('r2');
  });
  test('findLeaf: lines whose chain is broken (a compaction cut short before its boundary) are not a leaf', () => {
    // a → b is the conversation; s → c1 hang from boundary B, which was never written.
    expect(findLeaf([e('a', null), e('b', 'a'), e('s', 'B'), e('c1', 's')])).toBe('b');
    const boundary = e('B', 'b', { type: 'system', subtype: 'compact_boundary' });
    expect(findLeaf([e('a', null), e('b', 'a'), e('s', 'B'), e('c1', 's'), boundary])).toBe('c1');
  });
  test('findLeaf: the lines of a turn whose prompt a hook blocked are left out; the conversation goes on from before it', () => {
    const blocked = (turnId: string, parent: string | null): TranscriptEntry[] => [
      e(`p-${turnId}`, parent, { turnId }),
      e(`ctx-${turnId}`, `p-${turnId}`, { turnId, type: 'attachment' }),
      e(`n-${turnId}`, parent, { turnId, type: 'system', subtype: 'informational', dropsTurn: true }),
    ];
    // The session's only prompt was blocked: no conversation.
    expect(findLeaf(blocked('t1', null))).toBeNull();
    // A later prompt blocked: the leaf is the previous turn's last line again.
    const before = [e('a', null, { turnId: 't1' }), e('b', 'a', { turnId: 't1' })];
    expect(findLeaf([...before, ...blocked('t2', 'b')])).toBe('b');
    // And a turn after it goes on from there.
    expect(findLeaf([...before, ...blocked('t2', 'b'), e('c', 'b', { turnId: 't3' })])).toBe('c');
  });
  test('findLeaf: empty transcript has no leaf', () => {
    expect(findLeaf([])).toBeNull();
  });
  test('isPromptLine: tool results and runner nudges are not prompts', () => {
    expect(isPromptLine(e('p', null, { message: { role: 'user', content: 'hi' } }))).toBe(true);
    expect(isPromptLine(e('n', null, { isMeta: true, message: { role: 'user', content: 'go on' } }))).toBe(false);
    expect(
      isPromptLine(e('t', null, { message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x' }] } })),
    ).toBe(false);
  });
});
