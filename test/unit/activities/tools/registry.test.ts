import { toolsForModel } from '../../../../src/activities/tools/registry';

describe('registry', () => {
  test('registry: toolsForModel builds each tool’s spec once and shares it, frozen', () => {
    const [first] = toolsForModel(['Read']);
    const [again] = toolsForModel(['Grep', 'Read']).slice(1);
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first?.input_schema)).toBe(true);
    expect(() => {
      (first!.input_schema as Record<string, unknown>)['type'] = 'string';
    }).toThrow(TypeError);
    expect(toolsForModel(['Read'])[0]?.input_schema.type).toBe('object');
  });

  test('registry: toolsForModel keeps the order it is given and a new array per call', () => {
    const a = toolsForModel(['Bash', 'Read']);
    const b = toolsForModel(['Bash', 'Read']);
    expect(a.map((t) => t.name)).toEqual(['Bash', 'Read']);
    expect(a).not.toBe(b);
  });
});
