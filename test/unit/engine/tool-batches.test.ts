import { partitionToolUses } from '../../../src/engine/tool-batches';

const u = (name: string, id = name) => ({ id, name });

describe('tool batches', () => {
  test('partitionToolUses: consecutive read-only calls share a batch; others run alone, in order', () => {
    const batches = partitionToolUses([
      u('Read', '1'),
      u('Grep', '2'),
      u('Bash', '3'),
      u('Edit', '4'),
      u('Glob', '5'),
      u('Read', '6'),
    ]);
    expect(batches.map((b) => b.map((x) => x.id))).toEqual([['1', '2'], ['3'], ['4'], ['5', '6']]);
  });
  test('partitionToolUses: unknown tools run alone', () => {
    expect(partitionToolUses([u('Read'), u('Nope'), u('Read', 'r2')])).toHaveLength(3);
  });
});
