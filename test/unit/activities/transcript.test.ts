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
