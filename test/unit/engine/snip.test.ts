import { planSnip, type SnipCall, type SnipRound } from '../../../src/engine/snip';

const c = (tool: string, inputKey: string, resultKey: string, isError = false): SnipCall => ({
  toolUseId: `${tool}:${inputKey}`,
  tool,
  inputKey,
  resultKey,
  isError,
});
const round = (id: string, calls: SnipCall[], tokens = 1_000, removable = true): SnipRound => ({
  uuids: [`${id}a`, `${id}r`],
  calls,
  removable,
  tokens,
});
/** Five recent rounds the decision keeps whatever they hold. */
const recent = (): SnipRound[] => Array.from({ length: 5 }, (_, i) => round(`k${i}`, [c('Bash', `k${i}`, 'x')]));

describe('planSnip', () => {
  test('planSnip: a read repeated later with the same input and result, and a failed Read, are stale; removed with a rewrite', () => {
    const rounds = [
      round('a', [c('Read', 'f', 'v1')]),
      round('b', [c('Read', 'nope', 'missing', true)]),
      round('c', [c('Read', 'f', 'v1')]),
      ...recent(),
    ];
    expect(planSnip(rounds, true)).toEqual({ newlySnipped: ['aa', 'ar', 'ba', 'br'], rounds: 2, freedTokens: 2_000 });
  });

  test('planSnip: without another stage rewriting, only removals that free minFreedTokens are made', () => {
    const rounds = [round('a', [c('Read', 'f', 'v1')]), round('c', [c('Read', 'f', 'v1')]), ...recent()];
    expect(planSnip(rounds, false).newlySnipped).toEqual([]);
    expect(planSnip(rounds, false, { minFreedTokens: 500 }).newlySnipped).toEqual(['aa', 'ar']);
  });

  test('planSnip: kept: a read whose later result differs, a failed shell command, an edit, a round with text, the recent rounds', () => {
    const rounds = [
      round('a', [c('Read', 'h', 'v1')]),
      round('b', [c('Bash', 'make', 'fail', true)]),
      round('d', [c('Edit', 'e', 'ok')]),
      round('e', [c('Read', 'g', 'v')], 1_000, false),
      round('f', [c('Read', 'f', 'v1'), c('Edit', 'e', 'ok')]),
      round('c', [c('Read', 'h', 'v2'), c('Read', 'g', 'v'), c('Read', 'f', 'v1')]),
      ...recent(),
    ];
    expect(planSnip(rounds, true).newlySnipped).toEqual([]);
    expect(planSnip([round('z', [c('Read', 'x', 'y', true)])], true).newlySnipped).toEqual([]);
  });

  test('planSnip: enabled false removes nothing', () => {
    const rounds = [round('b', [c('Read', 'nope', 'missing', true)]), ...recent()];
    expect(planSnip(rounds, true, { enabled: false }).newlySnipped).toEqual([]);
  });
});
