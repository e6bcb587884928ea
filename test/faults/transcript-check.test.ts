import { checkTranscriptText } from './helpers/transcript-check';

type L = Record<string, unknown>;
const prompt = (uuid: string, parent: string | null = null): L => ({
  uuid,
  parentUuid: parent,
  type: 'user',
  message: { role: 'user', content: 'hi' },
});
const assistant = (uuid: string, parent: string, toolIds: string[] = []): L => ({
  uuid,
  parentUuid: parent,
  type: 'assistant',
  message: {
    role: 'assistant',
    content: [
      { type: 'text', text: 'ok' },
      ...toolIds.map((id) => ({ type: 'tool_use', id, name: 'Read', input: {} })),
    ],
  },
});
const result = (uuid: string, parent: string, toolId: string): L => ({
  uuid,
  parentUuid: parent,
  type: 'user',
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolId, content: 'x' }] },
});
const text = (lines: Array<L | string>): string =>
  lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';

const good = [prompt('p'), assistant('a1', 'p', ['t1', 't2']), result('r1', 'a1', 't1'), result('r2', 'r1', 't2')];

describe('fault suite transcript checker', () => {
  test('transcript check: a clean turn (parallel results written out of order) passes', () => {
    const lines = [good[0]!, good[1]!, good[3]!, good[2]!, assistant('a2', 'r2')];
    expect(checkTranscriptText(text(lines))).toMatchObject({ problems: [], chainLength: 5, toolUses: 2 });
  });

  test.each([
    ['a duplicate line', [...good, good[2]!], /duplicate message/],
    ['a tool_use without result', [good[0]!, good[1]!, good[2]!], /t2 has 0 tool_results/],
    ['two results for one tool_use', [...good, result('r3', 'r2', 't2')], /t2 has 2 tool_results/],
    ['a broken parent chain', [good[0]!, good[1]!, result('r2', 'zz', 't2'), result('r1', 'a1', 't1')], /broken|leaf/],
    ['a lost branch', [...good, assistant('a2', 'r2'), assistant('b2', 'r2')], /expected one leaf|not on the chain/],
    ['a torn line', [...good, '{"uuid":"a2","par'], /torn write/],
    ['a chain not starting at the prompt', [assistant('a0', 'p')], /broken/],
  ])('transcript check: %s is reported', (_name, lines, problem) => {
    const report = checkTranscriptText(text(lines as Array<L | string>));
    expect(report.problems.join('\n')).toMatch(problem);
  });

  test('transcript check: allowed unanswered calls and torn lines pass only when allowed', () => {
    const cut = [good[0]!, good[1]!, good[2]!, prompt('p2', 'r1')];
    expect(checkTranscriptText(text(cut)).problems).not.toEqual([]);
    expect(checkTranscriptText(text(cut), { allowUnanswered: ['t2'] }).problems).toEqual([]);
    expect(checkTranscriptText(text([...good, '{"torn'])).problems).not.toEqual([]);
    expect(checkTranscriptText(text([...good, '{"torn']), { allowTornLines: true })).toMatchObject({
      problems: [],
      tornLines: 1,
    });
  });
});
