import { collapseCallLabel, collapseDigestText, planCollapse, type CollapseRound } from '../../../src/engine/collapse';

/** A round of one call `tool(input)` whose tool_use id is `${id}t`. */
const round = (id: string, tool = 'Bash', input: Record<string, unknown> = { command: id }): CollapseRound => ({
  uuids: [`${id}a`, `${id}r`],
  calls: [{ toolUseId: `${id}t`, tool, inputKey: JSON.stringify(input), isError: false, resultKey: 'x' }],
  removable: true,
  tokens: 100,
  adjacent: true,
  folded: [],
  foldedTokens: 0,
});
/** Five recent rounds the decision keeps whatever they hold. */
const recent = (): CollapseRound[] => Array.from({ length: 5 }, (_, i) => round(`k${i}`));
const clearedOf = (rounds: CollapseRound[]): Set<string> =>
  new Set(rounds.flatMap((r) => r.calls.map((c) => c.toolUseId)));

describe('planCollapse', () => {
  test('planCollapse: a run of adjacent old rounds whose results were cleared: all but the last left out, a digest on the last', () => {
    const rounds = [round('a', 'Read', { file_path: 'src/a.ts' }), round('b'), round('c'), ...recent()];
    const plan = planCollapse(rounds, clearedOf(rounds));
    expect(plan.collapses).toHaveLength(1);
    const [c] = plan.collapses;
    expect(c).toMatchObject({ collapsedUuids: ['aa', 'ar', 'ba', 'br'], targetUuid: 'cr', rounds: 3 });
    expect(c!.calls).toEqual(['Read(src/a.ts)', 'Bash(b)']);
    expect(c!.text).toBe(collapseDigestText(['Read(src/a.ts)', 'Bash(b)']));
    expect(c!.text).toMatch(
      /^<system-reminder>\nBefore the tool call above, you made 2 more tool calls, collapsed here/,
    );
    expect(plan).toMatchObject({ rounds: 2, freedTokens: 200 - Math.ceil(c!.text.length / 4) });
  });

  test('planCollapse: kept: a round with a result not cleared, a round with text, the recent rounds; a single round does not collapse', () => {
    const rounds = [round('a'), round('b'), round('c'), round('d'), { ...round('e'), removable: false }, round('f')];
    const cleared = clearedOf(rounds);
    cleared.delete('bt');
    // Nothing older than the 5 most recent: nothing collapses.
    expect(planCollapse(rounds, cleared).collapses).toEqual([]);
    const longer = [...rounds, ...recent()];
    const plan = planCollapse(longer, cleared);
    // a alone (b not cleared), c-d a run, e not removable, f alone.
    expect(plan.collapses.map((c) => [c.collapsedUuids, c.targetUuid])).toEqual([[['ca', 'cr'], 'dr']]);
  });

  test('planCollapse: rounds with something sent between them are not one run', () => {
    const rounds = [round('a'), { ...round('b'), adjacent: false }, round('c'), round('d'), ...recent()];
    const plan = planCollapse(rounds, clearedOf(rounds));
    expect(plan.collapses.map((c) => c.targetUuid)).toEqual(['dr']);
    expect(plan.collapses[0]!.collapsedUuids).toEqual(['ba', 'br', 'ca', 'cr']);
  });

  test('planCollapse: calls an earlier digest named are folded into the new one, in order', () => {
    const rounds = [
      round('z'),
      { ...round('c'), folded: ['Bash(a)', 'Bash(b)'], foldedTokens: 40 },
      round('d'),
      ...recent(),
    ];
    const plan = planCollapse(rounds, clearedOf(rounds));
    // The earlier digest leaves the view with its round.
    expect(plan.freedTokens).toBe(200 + 40 - Math.ceil(plan.collapses[0]!.text.length / 4));
    expect(plan.collapses[0]!.calls).toEqual(['Bash(z)', 'Bash(a)', 'Bash(b)', 'Bash(c)']);
    expect(plan.collapses[0]!.targetUuid).toBe('dr');
  });

  test('planCollapse: enabled false and keepRecent', () => {
    const rounds = [round('a'), round('b'), round('c'), ...recent()];
    expect(planCollapse(rounds, clearedOf(rounds), { enabled: false }).collapses).toEqual([]);
    expect(planCollapse(rounds, clearedOf(rounds), { keepRecent: 7 }).collapses).toEqual([]);
    expect(planCollapse(rounds, clearedOf(rounds), { keepRecent: 6 }).collapses[0]!.targetUuid).toBe('br');
  });

  test('collapseCallLabel: the main input, else compact JSON, cut to 100 characters', () => {
    expect(collapseCallLabel('Bash', JSON.stringify({ command: 'echo hi', description: 'x' }))).toBe('Bash(echo hi)');
    expect(collapseCallLabel('Grep', JSON.stringify({ pattern: 'foo', path: 'src' }))).toBe('Grep(foo)');
    expect(collapseCallLabel('WebFetch', JSON.stringify({ url: 'https://e.x', prompt: 'p' }))).toBe(
      'WebFetch(https://e.x)',
    );
    expect(collapseCallLabel('TodoWrite', JSON.stringify({ todos: [] }))).toBe('TodoWrite({"todos":[]})');
    const long = collapseCallLabel('Bash', JSON.stringify({ command: 'x'.repeat(300) }));
    expect(long).toHaveLength(100);
    expect(long.endsWith('…')).toBe(true);
  });
});
