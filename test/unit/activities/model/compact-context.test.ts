import { sessionContextOf } from '../../../../src/activities/model/compact';
import type { TranscriptEntry } from '../../../../src/common/transcript';

const base = { parentUuid: null, sessionId: 's', timestamp: '' };

describe('compaction keeps the session context', () => {
  test('sessionContextOf: the latest line with session context, without nested memory', () => {
    const context: TranscriptEntry = {
      ...base,
      type: 'attachment',
      uuid: 'ctx',
      attachments: [
        { type: 'instructions', files: [] },
        { type: 'environment', environment: {} },
      ],
    };
    const nested: TranscriptEntry = {
      ...base,
      type: 'user',
      uuid: 'r',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] },
      attachments: [{ type: 'nested_memory', file: { path: '/r/sub/CLAUDE.md', type: 'Project', content: 'n' } }],
    };
    const prompt: TranscriptEntry = { ...base, type: 'user', uuid: 'p', message: { role: 'user', content: 'go' } };
    expect(sessionContextOf([prompt, context, nested]).map((a) => a.type)).toEqual(['instructions', 'environment']);
    // After an earlier compaction, the summary line carries it.
    const summary: TranscriptEntry = { ...prompt, uuid: 'sum', attachments: context.attachments! };
    expect(sessionContextOf([summary, nested])).toEqual(context.attachments);
    expect(sessionContextOf([prompt, nested])).toEqual([]);
  });
});
